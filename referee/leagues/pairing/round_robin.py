"""Round-robin by the circle method: every pair meets once a cycle.

The players, in lot order, take the positions 0..m-1 of a circle (m even: with
an odd count a "nobody" takes the last position, and meeting nobody is a bye).
Round r pairs position i with position m-1-i; between rounds position 0 stays and
the others turn one step. Who sits first (seat 0) in the pair at position i:
for i = 0 (the player who stays) the first in even rounds (0, 2, ...) and the
second in odd ones; for i > 0 the player at position i when i is even, the other
when it is odd. That gives each player first seats that differ by at most one
from their second seats over a cycle, and never the same seat three rounds
running (``tests/leagues/test_round_robin.py`` checks both up to 30 players).
A second cycle repeats the first with every pair's seats swapped (home and away);
a third is the first again, and so on.
"""

from __future__ import annotations


def schedule(lots: list[str], cycles: int = 1) -> list[list[tuple[str | None, str | None]]]:
    """Every round's pairs ``(first, second)``; None is nobody (the other's bye)."""
    return [round_pairs(lots, cycles, r) for r in range(rounds_for(len(lots), cycles))]


def round_pairs(lots: list[str], cycles: int, index: int) -> list[tuple[str | None, str | None]]:
    """The pairs of round ``index`` (from 0) alone, without the rounds before it."""
    ids: list[str | None] = list(lots) + ([None] if len(lots) % 2 else [])
    m = len(ids)
    cycle, r = divmod(index, m - 1)
    if cycle >= cycles:
        raise IndexError(f"a round-robin of {len(lots)} in {cycles} cycle(s) has no round {index + 1}")
    # After r turns position 0 holds the player who stays, and positions 1..m-1 the
    # others turned r steps: the last r of them come first.
    others = list(range(1, m))
    shift = r % (m - 1)
    spots = [0] + others[len(others) - shift:] + others[:len(others) - shift]
    pairs = []
    for i in range(m // 2):
        a, b = ids[spots[i]], ids[spots[m - 1 - i]]
        top_first = (r % 2 == 0) if i == 0 else (i % 2 == 0)
        pairs.append((a, b) if top_first else (b, a))
    return pairs if cycle % 2 == 0 else [(b, a) for a, b in pairs]


def rounds_for(players: int, cycles: int) -> int:
    """How many rounds a round-robin of this many players plays."""
    return (players + players % 2 - 1) * cycles
