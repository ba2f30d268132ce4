"""Helpers for the King of Danger tests: stacked games and scripted tricks."""

from __future__ import annotations

from referee.autoplay import new_table
from referee.autoplay import play as autoplay_play

GAME = "king-of-danger"
SEED = "king-of-danger-tests"
NAMES = ["Ann", "Bob", "Cy", "Dee", "Eve"]


def start(players: int, deck=None, seed: str = SEED, **options):
    """A table with the first hand dealt (from ``deck`` when given)."""
    opts = dict(options)
    if deck is not None:
        opts["deck"] = deck
    return new_table(GAME, NAMES[:players], opts, seed=seed)


def play(table, seat: int, text: str, log: list | None = None) -> list:
    """Play one move written in the notation; returns the events written (the
    referee steps that fall due included)."""
    return autoplay_play(table, seat, table.engine.parse(text), SEED, log)


def play_trick(table, plays: list[tuple[int, str]], log: list | None = None) -> list:
    """Play a whole trick, checking each seat is the one awaited; returns the
    events of the trick's last move."""
    events = []
    for seat, text in plays:
        assert table.to_act() == [seat], f"expected seat {seat} to play, not {table.to_act()}"
        events = play(table, seat, text, log)
    return events


def event(events: list, type_: str):
    found = [e for e in events if e.type == type_]
    assert len(found) == 1, f"expected one {type_} in {[e.type for e in events]}"
    return found[0].payload


def check_tricks(table, script, log: list | None = None) -> list:
    """Play scripted tricks: each is (plays, suit, winner, by, trackers after), or
    (plays, None, leader, "set-aside", trackers) for a trick of Kings only.
    Returns the events of the last trick."""
    events = []
    for number, (plays, suit, winner, by, trackers) in enumerate(script, start=1):
        events = play_trick(table, plays, log)
        if by == "set-aside":
            got = event(events, "trick-set-aside")
            assert got["leader"] == winner, f"trick {number}"
        else:
            got = event(events, "trick-won")
            assert (got["suit"], got["winner"], got["by"]) == (suit, winner, by), f"trick {number}: {got}"
            assert got["trackers"] == trackers, f"trick {number}: {got}"
        assert table.state.trackers == trackers, f"trick {number}"
    return events
