"""The text of a view, as posted to a forum or sent by e-mail: players by name,
the last move and what followed it, what is pending; never what its reader may
not see."""

from __future__ import annotations

import random
import re

import pytest

from referee.games.base import ADMIN
from referee.table import Table
from tests.helpers import Game

NAMES = ["Ann", "Bob", "Cy"]
CONFIGS = [("king-of-danger", 3, {}), ("castle-danger", 2, {"variant": "hidden-danger", "turn_limit": 6}),
           ("king-of-the-castle", 3, {}), ("kings-keys", 3, {"wild_cards": True})]
# card codes and squares (W6 KD R3S *A d4): what a hand or a hidden piece hides
CODE = re.compile(r"^(?:[A-Za-z0-9]*[0-9*][A-Za-z0-9*]*|[A-Z]{2})$")


def values(obj) -> set[str]:
    """Every string value in a JSON value (keys left out: they name, not hide)."""
    if isinstance(obj, str):
        return {obj}
    if isinstance(obj, dict):
        return set().union(*(values(v) for v in obj.values())) if obj else set()
    if isinstance(obj, list):
        return set().union(*(values(v) for v in obj)) if obj else set()
    return set()


# A receipt's signature (88 characters of base64), the transparency log's hashes and
# checkpoint a receipt may carry, and a page link's token (32 of base64url) are long
# runs of letters, digits and "+/-_" that may set off two letters as if they were a
# card ("/KZ+", "-W1_"). They tell nothing of the game (anyone may fetch a receipt:
# tests/test_receipts_elsewhere.py; a token is random), so the scans leave every such
# run of 24 or more out. A card is never written inside one: views, events and texts
# set each card apart with spaces, quotes or commas.
OPAQUE = re.compile(r"[A-Za-z0-9+/_-]{24,}={0,2}")


def unsigned(text: str) -> str:
    """``text`` with every signature, hash and token blanked, for the scans for hidden codes."""
    return OPAQUE.sub("", text)


def hidden_codes(admin_view: dict, seat_view: dict) -> set[str]:
    """Codes the admin sees and the seat does not (another hand's cards...)."""
    return {s for s in values(admin_view) - values(seat_view) if len(s) <= 4 and CODE.match(s)}


@pytest.mark.parametrize(("game", "players", "options"), CONFIGS, ids=[c[0] for c in CONFIGS])
def test_texts_name_players_show_the_last_move_and_hide_what_they_must(client, game, players, options):
    g = Game(client, game, NAMES[:players], {**options, "seed": f"posts-{game}"})
    rnd = random.Random(game)
    checked = 0
    for step in range(120):
        s = g.summary()
        if s["status"] != "active":
            break
        if step % 4 == 0:
            admin = g.get("/view", "admin").json["view"]
            for seat in range(players):
                answer = g.get("/view", seat).json
                text = answer["text"]
                if step:
                    assert "\nLast: [" in text
                    last = text.split("\nLast: ", 1)[1]
                    assert not re.search(r"\bseat \d\b", last, re.I), last  # names, not numbers
                    assert any(name in last for name in NAMES[:players]) or "referee" in last, last
                board, _, last = text.partition("\nLast: ")
                for code in hidden_codes(admin, answer["view"]):
                    assert not re.search(rf"(?<![A-Za-z0-9*]){re.escape(code)}(?![A-Za-z0-9*])", board), \
                        f"{NAMES[seat]}'s text shows {code}, hidden from them:\n{text}"
                # the last move in words is exactly what the events this seat is
                # shown say, told with names: nothing the redaction hides
                from referee import narration
                from referee.events import Event
                from referee.games import engine as engine_by_name

                shown = g.get("/events", seat, after=max(1, answer["version"] - narration.LOOK_BACK)).json["events"]
                told = narration.last_move(engine_by_name(game), [Event.from_dict(e) for e in shown],
                                           NAMES[:players], lambda ev: ev.payload)
                if told:
                    assert text.endswith("Last: " + "\n      ".join(told) + "\n"), text
                else:
                    assert "\nLast: " not in text
                checked += 1
        seat = rnd.choice(s["to_act"])
        moves = [m for m in g.legal(seat) if m["type"] != "resign"]
        assert g.post(seat, {"move": rnd.choice(moves)}).status_code == 201
    assert checked >= 6


def test_king_of_the_castle_says_who_is_threatened_and_who_must_answer():
    from tests.games.king_of_the_castle_helpers import move, prepared

    t = prepared(3, hands=[["plague", "keep", "keep", "keep"], ["lucky-escape"] * 3, ["keep"] * 3])
    t.state.names = NAMES
    move(t, 0, "play plague 1 lord master")
    text = t.engine.render(t.state, 1)
    assert "Ann's card threatens Bartholemew (B), David (D): waiting for Bob to answer" in text
    assert "react lucky-escape or pass" in text


def test_a_replay_stopped_between_two_turns_says_the_turn_ended():
    """replay --boards and view?at=N can stop after a turn's end and before the
    next turn's beginning: the board says the turn ended, not a turn to play."""
    from referee.autoplay import new_table, play

    t, log = new_table("castle-danger", NAMES[:2], {}, seed="between")
    play(t, 0, [{"type": "move", "from": "c1", "to": "b1"}, {"type": "end"}], "between", log)
    ended = next(i for i, ev in enumerate(log) if ev.type == "turn-ended")
    r = Table.replay(log[:ended + 1])
    title = r.engine.render(r.state, ADMIN).splitlines()[1]
    assert title == "Turn 1 of Blue (seat 0, Ann) has ended; Bob plays next"
    r = Table.replay(log[:ended + 2])
    assert r.engine.render(r.state, ADMIN).splitlines()[1].startswith("Turn 1 of Red (seat 1, Bob)")


def test_narrate_puts_names_for_seats():
    from referee.events import Event
    from referee.games import engine as engine_by_name

    eng = engine_by_name("king-of-danger")
    ev = Event(5, "card-played", 1, "2026-01-01T00:00:00.000000Z", {"move": {"type": "play", "card": "W6"},
                                                                   "card": "W6", "seat": 1})
    assert eng.narrate(ev, NAMES) == eng.describe(ev).replace("seat 1", "Bob")
    assert "Bob" in eng.narrate(ev, NAMES)


def test_the_last_move_in_words_keeps_a_smuggled_piece_hidden(client):
    g = Game(client, "castle-danger", NAMES[:2], {"variant": "hidden-danger", "seed": "smuggled"})
    assert g.post(0, {"move": {"type": "smuggle", "piece": "C"}}).status_code == 201
    mine = g.get("/view", 0).json["text"].split("\nLast: ", 1)[1]
    theirs = g.get("/view", 1).json["text"].split("\nLast: ", 1)[1]
    onlooker = g.get("/view").json["text"].split("\nLast: ", 1)[1]
    assert "Ann" in theirs and "Cannon" in mine
    assert "Cannon" not in theirs and "Cannon" not in onlooker and "hidden piece" in theirs
