"""The position: plain dicts and lists, so it copies, pickles and compares."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from referee.games.base import GameState
from referee.games.castle_danger import board


@dataclass(kw_only=True)
class CastleState(GameState):
    # square -> {"owner": seat, "kind": "K"|"Z"|"B"|"C", "hidden": bool, "fired": bool}
    pieces: dict = field(default_factory=dict)
    walls: list = field(default_factory=list)  # squares, sorted
    fire: dict = field(default_factory=dict)  # square -> seat whose cannon left it
    supply: list = field(default_factory=list)  # per seat {"Z": n, "B": n, "C": n}
    wall_pile: int = board.WALLS
    turn: int = 0  # the seat whose turn it is
    moves_left: int = 0
    actions: int = 0  # actions taken so far this turn (an add must be the first)
    reveals: int = 0  # opposing hidden pieces revealed so far this turn
    turns: list = field(default_factory=lambda: [0, 0])  # turns finished, by seat
    # Between a turn's end and the next turn's beginning (both written by one move,
    # but a replay or `?at=` can stop between them): the turn shown has ended.
    turn_over: bool = False
    # A draw offer or take-back request awaiting the opponent's answer:
    # {"kind": "draw" | "take-back", "by": seat, and for a take-back "turn"}.
    pending: dict | None = None
    offered: list = field(default_factory=list)  # kinds the mover asked for this turn
    # The position at the start of each turn played since the game began or the last
    # take-back, newest last, at most the three a take-back can need (the
    # requester's last turn, the opponent's since, the one being played).
    starts: list = field(default_factory=list)

    def fork(self) -> CastleState:
        """The copy a move is proposed on (referee/table.py): the position copied
        field by field, as a take-back's snapshot copies it; every other field
        (the kept starts, what is pending, the options...) is only ever replaced
        by a new value, never edited in place, so the copy shares it. A test
        proposes every legal move of random games and checks the position it
        was proposed on stays as it was."""
        return with_own_position(self)


# What a take-back puts back: the position at a turn's start, every field of it.
POSITION = ("pieces", "walls", "fire", "supply", "wall_pile", "turn", "moves_left", "actions",
            "reveals", "turns", "turn_over")
KEPT_STARTS = 3


def snapshot(state: CastleState) -> dict:
    """The position (every field of ``POSITION``), sharing no mutable object with
    ``state``: every mutable level copied anew (a piece's dict holds scalars only),
    as deepcopy would, at a tenth of its cost. A snapshot is taken at every turn's
    start, so a replay or an audit takes thousands; a field added to the position
    must be added here, which a test checks."""
    return {"pieces": {sq: piece.copy() for sq, piece in state.pieces.items()},
            "walls": state.walls.copy(), "fire": state.fire.copy(),
            "supply": [counts.copy() for counts in state.supply], "wall_pile": state.wall_pile,
            "turn": state.turn, "moves_left": state.moves_left, "actions": state.actions,
            "reveals": state.reveals, "turns": state.turns.copy(), "turn_over": state.turn_over}


def with_own_position(state: CastleState) -> CastleState:
    """A copy of ``state`` whose position is its own (copied as ``snapshot``
    copies it), for a look at the position after an action: the other fields
    (options, names, kept starts, what is pending) are shared, to be read only."""
    other = copy.copy(state)
    other.__dict__.update(snapshot(state))
    return other


def initial(players: int, options: dict, names: list[str]) -> CastleState:
    state = CastleState(players=players, options=options, names=names)
    for seat, placed in enumerate(board.START_PIECES):
        supply = dict(board.SUPPLY)
        for sq, kind in placed:
            state.pieces[sq] = {"owner": seat, "kind": kind, "hidden": False, "fired": False}
            if kind in supply:
                supply[kind] -= 1
        state.supply.append(supply)
    state.walls = sorted(board.START_WALLS)
    state.wall_pile = board.WALLS - len(state.walls)
    state.moves_left = moves_for(state, state.turn)
    if options["variant"] != "hidden-danger":  # no take-backs there: nothing to keep
        state.starts = [snapshot(state)]
    return state


def opponent(seat: int) -> int:
    return 1 - seat


def wizards(state: CastleState, seat: int) -> int:
    """Revealed Wizards of ``seat`` on the board (a hidden one uses no ability)."""
    # (a list counted, twice as fast as a sum over a generator: asked at every turn's end)
    return len([p for p in state.pieces.values()
                if p["kind"] == "Z" and p["owner"] == seat and not p["hidden"]])


def moves_for(state: CastleState, seat: int) -> int:
    return 3 + 3 * wizards(state, seat)


def material(state: CastleState, seat: int) -> int:
    """Wizards, Builders and Cannons of ``seat`` on the board, hidden ones included
    (the King is left out: each side always has exactly one while play goes on)."""
    return len([p for p in state.pieces.values() if p["owner"] == seat and p["kind"] != "K"])


def add_cost(state: CastleState, seat: int) -> int:
    return 0 if material(state, seat) < material(state, opponent(seat)) else 2


def on_board(state: CastleState, seat: int) -> int:
    return len([p for p in state.pieces.values() if p["owner"] == seat])


def is_empty(state: CastleState, sq: str) -> bool:
    """No piece, no wall, no fire."""
    return sq not in state.pieces and sq not in state.walls and sq not in state.fire
