"""Shared helpers for the Castle Danger tests: tables from the start or from a set
position, and playing moves written in the game's text notation."""

from __future__ import annotations

import pytest

from referee.autoplay import new_table, play
from referee.games.base import RefereeError
from referee.games.castle_danger import board
from referee.games.castle_danger.state import moves_for

SEED = "castle-seed"


def table(options: dict | None = None):
    return new_table("castle-danger", 2, options or {}, SEED)[0]


def position(pieces: dict, walls=(), fire=None, turn: int = 0, moves: int | None = None,
             options: dict | None = None, actions: int = 0):
    """A table whose board is exactly ``pieces`` ({square: "0K", "1?C" (hidden),
    "0C'" (fired)...}), ``walls`` and ``fire`` ({square: seat}); supplies are what
    is left off the board. ``moves`` defaults to the turn's full count."""
    t = table(options)
    s = t.state
    s.pieces = {}
    for sq, code in pieces.items():
        owner, rest = int(code[0]), code[1:]
        hidden = rest.startswith("?")
        kind = rest.lstrip("?")[0]
        s.pieces[sq] = {"owner": owner, "kind": kind, "hidden": hidden, "fired": rest.endswith("'")}
    s.supply = [{k: n - sum(1 for p in s.pieces.values() if p["owner"] == seat and p["kind"] == k)
                 for k, n in board.SUPPLY.items()} for seat in (0, 1)]
    s.walls = sorted(walls)
    s.wall_pile = board.WALLS - len(s.walls)
    s.fire = dict(fire or {})
    s.turn, s.actions = turn, actions
    s.moves_left = moves_for(s, turn) if moves is None else moves
    return t


def act(t, seat: int, text: str) -> list:
    """Play the moves of ``text`` (one batch) and return the events written."""
    return play(t, seat, t.engine.parse(text), SEED)


def types(events) -> list[str]:
    return [e.type for e in events]


def refused(t, seat: int, text: str, kind=RefereeError):
    """The refusal of ``text``; the table must be left exactly as it was."""
    before = (t.seq, t.last_hash, repr(t.state))
    with pytest.raises(kind) as err:
        act(t, seat, text)
    assert (t.seq, t.last_hash, repr(t.state)) == before
    return err.value


def board_of(t) -> dict:
    """{square: code} of the pieces, in the notation ``position`` takes."""
    out = {}
    for sq, p in t.state.pieces.items():
        mark, fired = ("?" if p["hidden"] else ""), ("'" if p["fired"] else "")
        out[sq] = f"{p['owner']}{mark}{p['kind']}{fired}"
    return out
