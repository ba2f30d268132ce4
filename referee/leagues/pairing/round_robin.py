"""Round-robin by the circle method: every pair meets once a cycle.

The players, in lot order, stand on a circle: all of them when their count is
odd (n' = n), all but the last lot when it is even (n' = n - 1; the last is the
"fixed" player, in the circle's middle). Round r (from 0) leaves the player at
position r without a partner on the circle: with an odd count that is their bye,
with an even count they play the fixed player. Every other player pairs with the
one mirrored across them: positions r - k and r + k (mod n') for k = 1, 2, ...
Over n' rounds every pair meets exactly once (the pair at positions a and b
meets in the round halfway between them).

Who sits first (seat 0): of the pair r - k and r + k, the player at r - k when k
is odd, the other when k is even; the fixed player sits first in odd rounds. A
player's k changes by one from a round to the next, so the players on the circle
alternate first and second seats every game they play; with an even count the
game against the fixed player breaks that once (two in a row at most), and the
fixed player alternates too. So over a cycle each player's first seats differ
from their second seats by at most one (by none when the count is odd), and
nobody sits in the same seat three games running
(``tests/leagues/test_round_robin.py`` checks both up to 30 players).

A second cycle repeats the first with every pair's seats swapped (home and away);
a third is the first again, and so on.
"""

from __future__ import annotations


def rounds_for(players: int, cycles: int) -> int:
    """How many rounds a round-robin of this many players plays."""
    return (players + players % 2 - 1) * cycles


def round_pairs(lots: list[str], cycles: int, index: int) -> list[tuple[str | None, str | None]]:
    """The pairs ``(first, second)`` of round ``index`` (from 0); None is nobody
    (the other player's bye)."""
    n = len(lots)
    circle = n if n % 2 else n - 1
    cycle, r = divmod(index, max(circle, 1))
    if cycle >= cycles:
        raise IndexError(f"a round-robin of {n} in {cycles} cycle(s) has no round {index + 1}")
    alone = lots[r]
    if n % 2:
        pairs: list[tuple] = [(alone, None)]
    else:
        fixed = lots[-1]
        pairs = [(fixed, alone) if r % 2 else (alone, fixed)]
    for k in range(1, (circle + 1) // 2):
        a, b = lots[(r - k) % circle], lots[(r + k) % circle]
        pairs.append((a, b) if k % 2 else (b, a))
    return pairs if cycle % 2 == 0 else [(b, a) for a, b in pairs]


def schedule(lots: list[str], cycles: int = 1) -> list[list[tuple[str | None, str | None]]]:
    """Every round's pairs, in order."""
    return [round_pairs(lots, cycles, r) for r in range(rounds_for(len(lots), cycles))]
