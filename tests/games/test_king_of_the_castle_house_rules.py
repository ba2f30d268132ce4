"""The Lord's bonus at level 0, and the house rules on reactions (docs/games/
king-of-the-castle.md, rulings 3 and 7): games from stacked decks, worked out by
hand, each house rule played both ways."""

import json

import pytest

from referee.audit import audit
from referee.autoplay import new_table
from referee.events import Event
from referee.games import engine
from referee.games.base import IllegalMove, NotYourTurn
from referee.table import Table
from tests.games.king_of_the_castle_helpers import GAME, SEED, deck_from, kingdom, move, types

# ---- the Lord of the largest castle at level 0 ------------------------------------------

# Two players, squires chosen, personalities alphabetical: King A, castles B C D,
# E F G, H I J, then K L M ... Z to fill posts. Seat 0 deals, so seat 1 gets the
# event cards 0, 2, 4 and seat 0 the cards 1, 3, 5; then each turn's player draws
# one (seat 0 the cards 6, 8, 10..., seat 1 the cards 7, 9, 11...) and plays one.
# No level card is ever played: every castle stays at level 0.
LORD_TOP = [
    "mysterious-vanishings", "mysterious-vanishings", "plague", "plague", "peaceful-death",
    "plague", "unlucky-fall", "death-by-misadventure", "financial-scandal",
    "marauding-barbarians", "keep", "village", "keep", "village", "keep", "village",
]
LORD_PLAYS = [
    ("play mysterious-vanishings 3", ["A", ["B", "C", "D"], ["E", "F", "G"], ["K", "L", "M"]]),
    ("play mysterious-vanishings 2", ["A", ["B", "C", "D"], ["N", "O", "P"], ["K", "L", "M"]]),
    ("play plague 1 lord seneschal", ["A", ["D", "Q", "R"], ["N", "O", "P"], ["K", "L", "M"]]),
    ("play plague 3 seneschal master", ["A", ["D", "Q", "R"], ["N", "O", "P"], ["K", "S", "T"]]),
    ("play plague 2 lord master", ["A", ["D", "Q", "R"], ["O", "U", "V"], ["K", "S", "T"]]),
    # The King dies: the three castles tie at level 0, so the leftmost is the
    # largest and its Lord D is crowned; W fills castle 1's Master at Arms.
    ("play peaceful-death", ["D", ["Q", "R", "W"], ["O", "U", "V"], ["K", "S", "T"]]),
    ("play unlucky-fall 2", ["D", ["Q", "R", "W"], ["U", "V", "X"], ["K", "S", "T"]]),
    ("play death-by-misadventure 3 master", ["D", ["Q", "R", "W"], ["U", "V", "X"], ["K", "S", "Y"]]),
    ("play financial-scandal 2", ["D", ["Q", "R", "W"], ["U", "X", "Z"], ["K", "S", "Y"]]),
    # Y dies and the personality deck is empty: the post stays empty, and seat 1's
    # turn completes the round, so the game is scored at once.
    ("play marauding-barbarians 3", ["D", ["Q", "R", "W"], ["U", "X", "Z"], ["K", "S", None]]),
]


def lord_game(table, log):
    log += move(table, 0, "choose Q R S")
    log += move(table, 1, "choose K U X")
    log += move(table, 0, "standing pass")
    log += move(table, 1, "standing pass")
    for i, (text, after) in enumerate(LORD_PLAYS):
        log += move(table, i % 2, text)
        assert kingdom(table) == after, text
    assert [c["domain"] + c["prestige"] + c["defence"] for c in table.state.castles] == [[], [], []]
    return table.state.result


def lord_options() -> dict:
    return {"squires": "choose", "personality_order": "alphabetical", "event_deck": deck_from(LORD_TOP)}


def test_the_leftmost_lord_earns_the_largest_castles_bonus_at_level_0():
    table, log = new_table(GAME, 2, lord_options(), seed=SEED)
    result = lord_game(table, log)
    # King D 12 (no castle of level 6); Lords Q 6 + 3 (castle 1: the leftmost of
    # three at level 0 is the largest, as it was when D was crowned), U 6, K 6;
    # Seneschals 4 and Masters 2, no bonus: no castle has Prestige or Defences.
    assert [(line["man"], line["points"]) for line in result["table"]] == [
        ("D", 12), ("Q", 9), ("R", 4), ("W", 2), ("U", 6), ("X", 4), ("Z", 2), ("K", 6), ("S", 4)]
    # Seat 0 backs Q R S: 9 + 4 + 4; seat 1 K U X: 6 + 6 + 4.
    assert result["scores"] == [17, 16] and result["winners"] == [0]
    assert audit("".join(e.to_json() + "\n" for e in log))["valid"]


ENG = engine(GAME)


def created_by(version: int, options: dict) -> Event:
    """A first event as engine ``version`` wrote it: without the house rules added
    since, which that engine did not have."""
    created = Table.created_event(GAME, "g-old", ["p0", "p1"], options, SEED, True)
    d = created.to_dict()
    d["payload"]["engine_version"] = version
    for name, (since, _) in ENG.later_options.items():
        if version < since:
            del d["payload"]["options"][name]
    return Event.from_dict({**d, "hash": ""}).sealed()


def test_a_game_created_by_engine_version_2_keeps_the_scoring_it_was_played_under():
    created = created_by(2, lord_options())
    table = Table.from_created(created)
    log = [created] + table.settle_all(SEED)
    result = lord_game(table, log)
    # Then the Lord's bonus needed a castle above level 0: Q scores 6, and seat 1 wins.
    assert ("Q", 6) in [(line["man"], line["points"]) for line in result["table"]]
    assert result["scores"] == [14, 16] and result["winners"] == [1]
    text = "".join(e.to_json() + "\n" for e in log)
    report = audit(text)
    assert report["valid"] and report["seed"] == "verified" and report["result"] == result
    # The same log claiming to be engine version 3's is caught: its first event
    # lacks that version's options, and with them the scoring differs.
    lines = [json.loads(x) for x in text.splitlines()]
    lines[0]["payload"]["engine_version"] = 3
    from tests.test_audit import reseal

    assert audit(reseal(lines))["first_error"]["code"] == "bad-game"
    lines[0]["payload"]["options"].update(reactions="one-per-seat", react_to_own_card=False)
    report = audit(reseal(lines))
    assert report["first_error"]["code"] == "diverges"
    assert lines[report["first_error"]["seq"] - 1]["type"] == "game-ended"


# ---- reactions: one per seat, or one per card ----------------------------------------------

def two_escapes(options: dict):
    """Seat 1 holds two Lucky Escapes; seat 0 plays Plague on castle 1's Lord and
    Master at Arms."""
    top = ["lucky-escape", "plague", "lucky-escape", "keep", "village", "keep", "keep"]
    table, _ = new_table(GAME, 2, {"personality_order": "alphabetical", "event_deck": deck_from(top),
                                   **options}, seed=SEED)
    assert table.state.hands == [["plague", "keep", "keep", "keep"], ["lucky-escape", "lucky-escape",
                                                                        "village"]]
    move(table, 0, "play plague 1 lord master")
    assert table.state.window == {"kind": "death", "queue": [1]}
    evs = move(table, 1, "react lucky-escape B")
    assert evs[0].type == "reacted"
    return table, evs


def test_by_default_a_seat_answers_a_card_once():
    table, evs = two_escapes({})
    # B is saved; seat 1 is not asked again, so D dies and K fills his post.
    assert "died" in types(evs) and table.state.window is None
    assert kingdom(table) == ["A", ["B", "C", "K"], ["E", "F", "G"], ["H", "I", "J"]]
    # Seat 1 kept its second Lucky Escape; its turn began and it drew up to four
    # (the rest of the deck is in catalogue order: Peaceful Deaths first).
    assert table.state.hands[1] == ["lucky-escape", "village"] + ["peaceful-death"] * 2
    with pytest.raises(IllegalMove) as err:
        move(table, 1, "react lucky-escape D")
    assert err.value.rule == "no-window"


def test_with_the_house_rule_each_reaction_card_held_may_answer():
    table, evs = two_escapes({"reactions": "one-per-card"})
    # Seat 1 is asked again while D is still at stake.
    assert "died" not in types(evs) and table.state.window == {"kind": "death", "queue": [1]}
    assert table.engine.legal(table.state, 1)[:2] == [{"type": "pass"},
                                                      {"type": "react", "card": "lucky-escape"}]
    evs = move(table, 1, "react lucky-escape")
    assert evs[0].payload["save"] == "D" and "died" not in types(evs)
    assert kingdom(table) == ["A", ["B", "C", "D"], ["E", "F", "G"], ["H", "I", "J"]]
    assert table.state.hands[1] == ["village"] + ["peaceful-death"] * 3  # then drew three
    assert table.state.window is None
    assert table.state.event_discard == ["plague", "lucky-escape", "lucky-escape"]


def test_with_the_house_rule_a_seat_may_still_pass_after_one_reaction():
    table, _ = two_escapes({"reactions": "one-per-card"})
    evs = move(table, 1, "pass")
    assert [m["man"] for m in evs[types(evs).index("died")].payload["men"]] == ["D"]
    assert table.state.hands[1] == ["lucky-escape", "village"] + ["peaceful-death"] * 2


# ---- reacting to one's own card ------------------------------------------------------------

def own_escape(options: dict):
    """Seat 0 holds Plague and a Lucky Escape; seat 1 holds no reaction card."""
    top = ["village", "plague", "village", "lucky-escape", "village", "keep", "keep"]
    table, _ = new_table(GAME, 2, {"personality_order": "alphabetical", "event_deck": deck_from(top),
                                   **options}, seed=SEED)
    assert table.state.hands[0] == ["plague", "lucky-escape", "keep", "keep"]
    move(table, 0, "play plague 1 lord master")
    assert table.state.window["queue"][0] == 1
    with pytest.raises(NotYourTurn):
        move(table, 0, "react lucky-escape B")  # seat 1 is asked first
    return table, move(table, 1, "pass")


def test_by_default_nobody_answers_their_own_card():
    table, evs = own_escape({})
    # Nobody else is asked: B and D die, C rises, K and L fill the posts.
    assert [m["man"] for m in evs[types(evs).index("died")].payload["men"]] == ["B", "D"]
    assert kingdom(table) == ["A", ["C", "K", "L"], ["E", "F", "G"], ["H", "I", "J"]]
    assert table.to_act() == [1]  # seat 0's turn ended with three cards in hand


def test_with_the_house_rule_the_player_is_asked_last_about_its_own_card():
    table, evs = own_escape({"react_to_own_card": True})
    assert "died" not in types(evs) and table.state.window == {"kind": "death", "queue": [0]}
    assert table.to_act() == [0]
    evs = move(table, 0, "react lucky-escape B")
    # Only D dies: K becomes Master at Arms; the Lucky Escape is spent.
    assert [m["man"] for m in evs[types(evs).index("died")].payload["men"]] == ["D"]
    assert kingdom(table) == ["A", ["B", "C", "K"], ["E", "F", "G"], ["H", "I", "J"]]
    assert table.state.hands[0] == ["keep", "keep"]


def test_the_basic_bot_does_not_save_the_men_its_own_card_kills():
    from referee.bots import choose_from
    from referee.rng import Rng

    table, _ = own_escape({"react_to_own_card": True})
    view = table.engine.view(table.state, 0)
    legal = table.engine.legal(table.state, 0)
    assert any(m["type"] == "react" for m in legal)
    for n in range(20):  # whatever its seeded randomness, it declines
        assert choose_from("basic", GAME, view, legal, Rng("s", n))["type"] != "react"
