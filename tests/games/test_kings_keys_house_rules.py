"""The house rules of King's Keys (docs/games/kings-keys.md): wild_stands_for
(ruling R8), the last turn of a hand played under each reading, its scoring worked
out by hand; match (ruling R1), the first turns of a stacked deal under each
reading, worked out by hand."""

import json

import pytest

from referee.audit import audit
from referee.autoplay import new_table
from referee.events import Event
from referee.games import engine
from referee.games.base import IllegalMove, MalformedMove
from referee.table import Table
from tests.games.kings_keys_helpers import SEED, move, stack
from tests.test_audit import reseal

KK = engine("kings-keys")

FIELD = ["R1A", "G2S", "B3C", "Y4K", "R2S", "G3C", "B4K", "Y1A", "G1C", "B2A"]


def last_turn(rule: str) -> dict:
    """Three players with wild cards, dealer 0 (turn order 1, 2, 0): seats 1 and 2
    are out; the dealer holds the Joker of axes and has collected the four axes 4s.
    Its Joker takes the red 3 of axes, the green 1 of keys turned up stays in the
    field, and the hand is scored."""
    deck = stack(3, [[], [], []], FIELD, wild=True)
    table, _ = new_table("kings-keys", 3, {"deck": deck, "wild_cards": True, "wild_stands_for": rule},
                         seed=SEED)
    s = table.state
    s.hands = [["*A"], [], []]
    s.field = [["R3A"], ["B1S"]]
    s.pile = ["G1K", "Y2S"]
    s.collected = [["R4A", "G4A", "B4A", "Y4A"], [], []]
    s.turn = 0
    events = move(table, 0, {"type": "play", "card": "*A"})
    assert [e.type for e in events] == ["played", "drawn", "hand-scored", "dealt"]
    assert events[0].payload["took"] == ["R3A"] and events[1].payload["took"] == []
    return events[2].payload


def test_by_default_a_wild_card_may_stand_for_a_card_held():
    scored = last_turn("any")
    # Axes: 4 + 4 + 4 + 4 + 3 = 19, and the Joker as a fifth 4: 23, so 12 points.
    joker = scored["seats"][0]["joker"]
    assert joker == [{"set": "joker-set", "item": "A", "count": 23, "points": 12,
                      "cards": ["R3A", "R4A", "G4A", "B4A", "Y4A", "*A"],
                      "stands_for": {"*A": "R4A"}}]
    assert scored["points"] == [12, 0, 0]


def test_with_the_house_rule_a_wild_card_stands_only_for_a_card_not_held():
    scored = last_turn("not-held")
    # Every axes 4 is held: the Joker stands for the highest axes card left, a 3
    # (yellow, the last colour): 19 + 3 = 22, so 11 points.
    joker = scored["seats"][0]["joker"]
    assert joker[0]["count"] == 22 and joker[0]["stands_for"] == {"*A": "Y3A"}
    assert scored["points"] == [11, 0, 0]


@pytest.mark.parametrize("rule", ["any", "not-held"])
def test_the_view_says_which_reading_is_played(rule):
    table, _ = new_table("kings-keys", 3, {"wild_cards": True, "wild_stands_for": rule}, seed=SEED)
    assert table.engine.view(table.state, None)["wild_stands_for"] == rule


# ---- match: compulsory, or optional ------------------------------------------------------

# Four players, dealer 0 (turn order 1, 2, 3, 0); eight field cards of eight
# different kinds. Seat 1 holds the yellow 1 of keys, seat 2 the yellow 3, seat 3
# the green 1 of shields; the pile starts Y2K, R4A, B1A.
MATCH_DECK = stack(4, [[], ["Y1K"], ["Y3K"], ["G1S"]], ["R1A", "G2S", "B3C", "Y4K", "R2S", "G3C", "B4K", "Y1A"],
                   pile=["Y2K", "R4A", "B1A"])


def match_table(rule: str | None, log=None):
    options = {"deck": MATCH_DECK} | ({"match": rule} if rule else {})
    table, created = new_table("kings-keys", 4, options, seed=SEED)
    if log is not None:
        log += created
    return table


def test_by_default_a_match_must_be_taken():
    table = match_table(None)
    assert table.state.options["match"] == "compulsory"
    assert [m for m in table.engine.legal(table.state, 1) if m.get("card") == "Y1K"] == [{"type": "play", "card": "Y1K"}]
    with pytest.raises(IllegalMove) as refused:
        table.propose(1, [{"type": "play", "card": "Y1K", "leave": True}])
    assert refused.value.rule == "must-take"
    # Y1K takes Y4K; the Y2K turned up then matches nothing and stays.
    events = move(table, 1, {"type": "play", "card": "Y1K"})
    assert [(e.type, e.payload["took"]) for e in events] == [("played", ["Y4K"]), ("drawn", [])]
    # Y3K takes Y2K; R4A, turned up, takes R1A at once: there is nothing to choose.
    events = move(table, 2, {"type": "play", "card": "Y3K"})
    assert [(e.type, e.payload["took"]) for e in events] == [("played", ["Y2K"]), ("drawn", ["R1A"])]
    move(table, 3, {"type": "play", "card": "G1S"})
    s = table.state
    assert s.collected == [[], ["Y1K", "Y4K"], ["Y3K", "Y2K", "R4A", "R1A"], ["G1S", "G2S"]]
    assert s.field == [["B3C"], ["R2S"], ["G3C"], ["B4K"], ["Y1A"], ["B1A"]]


def test_with_the_house_rule_a_match_may_stay_in_the_field():
    log = []
    table = match_table("optional", log)
    view = table.engine.view(table.state, 1)
    assert view["match"] == "optional"
    assert "a match may be left in the field" in table.engine.render(table.state, 1)
    assert [m for m in table.engine.legal(table.state, 1) if m.get("card") == "Y1K"] == [
        {"type": "play", "card": "Y1K"}, {"type": "play", "card": "Y1K", "leave": True}]
    # Seat 1 leaves Y1K beside Y4K; the Y2K turned up could take either, or stay.
    events = move(table, 1, {"type": "play", "card": "Y1K", "leave": True}, log)
    assert events[0].payload["took"] == [] and events[1].payload["choices"] == [["Y4K"], ["Y1K"]]
    assert table.engine.legal_moves(table.state, 1) == [
        {"type": "choose", "take": "Y4K"}, {"type": "choose", "take": "Y1K"}, {"type": "choose", "leave": True}]
    # It stays: three yellow keys lie in the field, put together where the first lay.
    move(table, 1, table.engine.parse("choose leave")[0], log)
    assert table.state.field == [["R1A"], ["G2S"], ["B3C"], ["Y4K", "Y1K", "Y2K"], ["R2S"], ["G3C"],
                                 ["B4K"], ["Y1A"]]
    # Y3K is the fourth: it takes the whole group and may not stay.
    assert [m for m in table.engine.legal(table.state, 2) if m.get("card") == "Y3K"] == [{"type": "play", "card": "Y3K"}]
    with pytest.raises(IllegalMove) as refused:
        table.propose(2, [{"type": "play", "card": "Y3K", "leave": True}])
    assert refused.value.rule == "must-take"
    events = move(table, 2, {"type": "play", "card": "Y3K"}, log)
    assert events[0].payload["took"] == ["Y4K", "Y1K", "Y2K"]
    # R4A, turned up, could take R1A or stay: seat 2 owes a choice, and takes it.
    assert events[1].payload["choices"] == [["R1A"]] and table.to_act() == [2]
    move(table, 2, {"type": "choose", "take": "R1A"}, log)
    move(table, 3, {"type": "play", "card": "G1S"}, log)  # takes G2S; B1A stays
    s = table.state
    assert s.collected == [[], [], ["Y3K", "Y4K", "Y1K", "Y2K", "R4A", "R1A"], ["G1S", "G2S"]]
    assert s.field == [["B3C"], ["R2S"], ["G3C"], ["B4K"], ["Y1A"], ["B1A"]]
    # The game's export so far audits valid; claiming the default reading, the
    # replay refuses the card left in the field.
    for seat in (0, 1, 3):  # each leaves in turn (house rule on_resign): seat 2, the last in, wins
        move(table, seat, {"type": "resign"}, log)
    assert table.over and table.state.result["winners"] == [2]
    text = "".join(e.to_json() + "\n" for e in log)
    report = audit(text)
    assert report["valid"] and report["seed"] == "verified", report
    lines = [json.loads(x) for x in text.splitlines()]
    lines[0]["payload"]["options"]["match"] = "compulsory"
    report = audit(reseal(lines))
    left = next(d["seq"] for d in lines if d["type"] == "played")
    assert not report["valid"] and report["first_error"]["seq"] == left
    assert "(rule must-take)" in report["first_error"]["detail"]


def test_a_game_created_before_the_house_rule_must_take_and_audits():
    d = Table.created_event("kings-keys", "g-old", [f"p{i}" for i in range(4)], {"deck": MATCH_DECK}, SEED,
                            True).to_dict()
    d["payload"]["engine_version"] = 3
    del d["payload"]["options"]["match"]
    del d["payload"]["options"]["on_resign"]  # as version 3 wrote it: a resignation ends the game
    created = Event.from_dict({**d, "hash": ""}).sealed()
    table = Table.from_created(created)
    log = [created] + table.settle_all(SEED)
    assert table.state.options["match"] == "compulsory"
    with pytest.raises(IllegalMove):
        table.propose(1, [{"type": "play", "card": "Y1K", "leave": True}])
    move(table, 1, {"type": "play", "card": "Y1K"}, log)
    move(table, 2, {"type": "resign"}, log)
    report = audit("".join(e.to_json() + "\n" for e in log))
    assert report["valid"] and report["seed"] == "verified", report


def test_leaving_in_the_notation():
    for text, m in [("play Y1K leave", {"type": "play", "card": "Y1K", "leave": True}),
                    ("choose leave", {"type": "choose", "leave": True})]:
        assert KK.parse(text) == [m] and KK.format(m) == text
    assert KK.parse("y1k LEAVE") == [{"type": "play", "card": "Y1K", "leave": True}]
    for bad, field in [({"type": "play", "card": "Y1K", "leave": False}, "leave"),
                       ({"type": "play", "card": "Y1K", "leave": True, "take": "Y4K"}, "leave"),
                       ({"type": "choose", "leave": "yes"}, "leave")]:
        with pytest.raises(MalformedMove) as refused:
            KK.normalize(bad)
        assert refused.value.extra["field"] == field


def test_the_basic_bot_takes_a_match_it_may_leave():
    from referee import bots
    from referee.rng import Rng

    table = match_table("optional")
    view, legal = KK.view(table.state, 1), KK.legal(table.state, 1)
    assert {"type": "play", "card": "Y1K", "leave": True} in legal
    picks = [bots.choose_from("basic", "kings-keys", view, legal, Rng("bot", k)) for k in range(20)]
    assert not [m for m in picks if m.get("leave")]
