"""A notice tells each seat what happened since its last one from the events as
that seat may see them (``narrate`` of a redacted event). Over random games of
every game: the words for a seat never name a card or piece that the redaction
withheld from it, and the seat's text view never shows what its view hides."""

from __future__ import annotations

import random
import re

import pytest

from referee.autoplay import new_table, play
from referee.events import Event
from tests.test_text_for_posts import CODE, NAMES, values

CONFIGS = [("king-of-danger", 3, {}), ("castle-danger", 2, {"variant": "hidden-danger", "turn_limit": 6}),
           ("king-of-the-castle", 3, {}), ("kings-keys", 3, {"wild_cards": True})]


def secret(code: str) -> bool:
    """A card code, a square, or a piece's letter (Hidden Danger hides kinds)."""
    return len(code) <= 4 and (CODE.match(code) is not None or re.fullmatch("[A-Z]", code) is not None)


def named(code: str, text: str) -> bool:
    return re.search(rf"(?<![A-Za-z0-9*]){re.escape(code)}(?![A-Za-z0-9*])", text) is not None


@pytest.mark.parametrize(("game", "players", "options"), CONFIGS, ids=[c[0] for c in CONFIGS])
def test_narrated_redacted_events_never_say_more_than_the_seat_may_see(game, players, options):
    names = NAMES[:players]
    table, log = new_table(game, names, options, seed=f"leaks-{game}")
    rnd = random.Random(game)
    eng = table.engine
    withheld_somewhere = 0
    for step in range(160):
        if table.over:
            break
        if step % 10 == 0:
            admin = eng.view(table.state, "admin")
            for seat in range(players):
                view = eng.view(table.state, seat)
                text = eng.render(table.state, seat)
                for code in values(admin) - values(view):
                    if secret(code):
                        assert not named(code, text), f"{names[seat]}'s text shows {code}:\n{text}"
        seat = rnd.choice(table.to_act())
        legal = [m for m in eng.legal(table.state, seat) if m["type"] != "resign"]
        play(table, seat, rnd.choice(legal), f"leaks-{game}", log)
    for ev in log[1:]:
        for seat in range(players):
            payload = eng.redact(ev, seat)
            shown = Event(ev.seq, ev.type, ev.actor, ev.at, payload, ev.prev, "", ev.hash)
            said = eng.narrate(shown, names)
            assert not re.search(r"\bseat \d\b", said, re.I), said
            hidden = {c for c in values(ev.payload) - values(payload) if secret(c)}
            withheld_somewhere += bool(hidden)
            for code in hidden:
                assert not named(code, said), f"{names[seat]} is told {code}, withheld from them: {said}"
    assert withheld_somewhere, "the game never hid anything: the test would prove nothing"
