"""The 7 x 9 board: squares, terrain, portals and the standard start.

Squares are named as the contract names them: files ``a``-``g`` left to right as
the first player (seat 0) sees the board, ranks ``1``-``9`` from seat 0's back
row. Seat 0 holds ranks 1-4 and shoots toward rank 9; seat 1 holds ranks 6-9
and shoots toward rank 1. Rank 5 is the river, ranks 4 and 6 are sand.
"""

from __future__ import annotations

FILES = "abcdefg"
RANKS = range(1, 10)
RIVER = 5
SAND = (4, 6)
PORTALS = ("d1", "d9")  # by seat
FORWARD = (1, -1)  # the rank step toward the opponent's edge, by seat

KINDS = ("K", "Z", "B", "C")
ADDABLE = ("Z", "B", "C")
NAMES = {"K": "King", "Z": "Wizard", "B": "Builder", "C": "Cannon"}
SUPPLY = {"Z": 8, "B": 3, "C": 5}  # per player, the King aside
WALLS = 20  # shared by both players

# seat -> [(square, kind)], walls apart
START_PIECES = ([("c1", "K"), ("e1", "Z")], [("c9", "K"), ("e9", "Z")])
START_WALLS = ("c2", "c8", "e2", "e8")


def is_square(text) -> bool:
    # the rank is an ASCII digit 1-9: str.isdigit() takes "²" and other digits too
    return isinstance(text, str) and len(text) == 2 and text[0] in FILES and text[1] in "123456789"


def coords(sq: str) -> tuple[int, int]:
    """(file index 0-6, rank 1-9)."""
    return FILES.index(sq[0]), int(sq[1])


def square(file: int, rank: int) -> str | None:
    if 0 <= file < len(FILES) and 1 <= rank <= 9:
        return f"{FILES[file]}{rank}"
    return None


def terrain(sq: str) -> str:
    return _TERRAIN[sq]


def _terrain(sq: str) -> str:
    rank = coords(sq)[1]
    if rank == RIVER:
        return "river"
    return "sand" if rank in SAND else "grass"


def side(sq: str) -> int | None:
    """The seat whose half of the board holds ``sq`` (None for the river)."""
    rank = coords(sq)[1]
    return None if rank == RIVER else (0 if rank < RIVER else 1)


def neighbours(sq: str) -> tuple[str, ...]:
    """The squares orthogonally next to ``sq``, river squares included."""
    return _NEIGHBOURS[sq]


def _neighbours(sq: str) -> tuple[str, ...]:
    f, r = coords(sq)
    out = [square(f + df, r + dr) for df, dr in ((0, 1), (1, 0), (0, -1), (-1, 0))]
    return tuple(s for s in out if s)


def adjacent(a: str, b: str) -> bool:
    return b in _NEXT_TO[a]


def line_of_fire(sq: str, seat: int) -> list[str]:
    """The squares in front of a cannon of ``seat`` on ``sq``, nearest first, up to
    and including the opponent's edge."""
    f, r = coords(sq)
    out = []
    while True:
        r += FORWARD[seat]
        nxt = square(f, r)
        if nxt is None:
            return out
        out.append(nxt)


def all_squares() -> list[str]:
    return [f"{f}{r}" for r in RANKS for f in FILES]


# Looked up, not worked out, for each of the 63 squares: every action a referee
# judges asks them (an audit asks them for every move of a log).
_TERRAIN = {sq: _terrain(sq) for sq in all_squares()}
_NEIGHBOURS = {sq: _neighbours(sq) for sq in all_squares()}
_NEXT_TO = {sq: frozenset(n) for sq, n in _NEIGHBOURS.items()}
