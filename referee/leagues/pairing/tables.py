"""Seating players at tables of three or more.

**Sizes.** The players are split into tables of the sizes the game allows,
as close to ``table_size`` as can be: fewest byes first (none unless no split
exists, as five players at a game for 3 or 4), then the least total distance of
the sizes from ``table_size``, then the fewest tables of another size, then the
fewest tables. Bigger tables are listed first.

**Seating.** Round 1 seats the players in lot order, table after table: the lots
are drawn from the league's seed, so this is a random seating. Later rounds
start from the standings, table after table (the leaders together), and then
improve that seating by swapping two players of tables at most ``REACH`` tables
apart: of all swaps between two such tables, the one that lowers (repeat
meetings, displacement), compared in that order, the most is made. The repeat
meetings of a seating are, over every pair at a table, how often that pair sat
together before; the displacement of a player is how many places of the
standings lie between theirs and the stretch of the standings their table was
cut from. The pairs of tables are tried in a fixed
order (top tables first), pass after pass, until a pass changes nothing (at most
``PASSES`` passes).

Why a local search and not an exact method: seating at tables of n >= 3 to
minimise repeat meetings is a hypergraph partitioning problem (NP-hard, unlike
pairing, which matching solves exactly), and what matters here is a seating
close to the standings with no repeats when that is easy, found quickly for a
thousand players, and re-derived identically by anyone. A swap only ever trades
repeat meetings for displacement, never the other way, and no swap takes a player
more than ``REACH`` tables from the table the standings gave them, so nobody
plays far from the players they rank beside.
Where every player has already met every possible table-mate nearby, repeats
stay: that is then the fewest this search finds, not a proven minimum.

Within a table, the seat order: the player who has sat first (seat 0) least
often sits first, and so on, ties by standings.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations

REACH = 2
PASSES = 50


def split(players: int, size: int, allowed: list[int]) -> tuple[list[int], int]:
    """The table sizes (biggest first) for ``players`` and how many sit out."""
    allowed = sorted(set(n for n in allowed if n >= 2))
    best: list[tuple | None] = [None] * (players + 1)
    best[0] = (0, 0, 0)
    choice = [0] * (players + 1)
    for k in range(1, players + 1):
        for s in sorted(allowed, reverse=True):
            if s <= k and best[k - s] is not None:
                d, off, count = best[k - s]
                cand = (d + abs(s - size), off + (s != size), count + 1)
                if best[k] is None or cand < best[k]:
                    best[k], choice[k] = cand, s
    for out in range(players + 1):
        k = players - out
        if best[k] is not None:
            sizes = []
            while k:
                sizes.append(choice[k])
                k -= choice[k]
            return sorted(sizes, reverse=True), out
    return [], players  # pragma: no cover - best[0] always exists


def seat(ranked: list[str], sizes: list[int], met: Counter, firsts: Counter,
         search: bool = True) -> list[list[str]]:
    """The tables, each in seat order, for ``ranked`` (best first; in round 1 the
    lot order), cut into ``sizes``; ``search`` improves on repeat meetings."""
    tables, bounds, lo = [], [], 0
    for s in sizes:
        tables.append(list(ranked[lo:lo + s]))
        bounds.append((lo, lo + s))
        lo += s
    if search:
        _improve(tables, bounds, {p: i for i, p in enumerate(ranked)}, met)
    at = {p: i for i, p in enumerate(ranked)}
    return [sorted(t, key=lambda p: (firsts[p], at[p])) for t in tables]


def _repeats(table: list[str], met: Counter) -> int:
    return sum(met[frozenset(pq)] for pq in combinations(table, 2))


def _displacement(table: list[str], bound: tuple[int, int], at: dict) -> int:
    lo, hi = bound
    return sum(lo - at[p] if at[p] < lo else at[p] - hi + 1 if at[p] >= hi else 0 for p in table)


def _improve(tables: list[list[str]], bounds: list[tuple[int, int]], at: dict,
             met: Counter) -> None:
    home = {p: i for i, t in enumerate(tables) for p in t}  # the table the standings gave
    cost = [(_repeats(t, met), _displacement(t, b, at)) for t, b in zip(tables, bounds,
                                                                        strict=True)]
    for _ in range(PASSES):
        changed = False
        for a in range(len(tables)):
            for b in range(a + 1, min(len(tables), a + 1 + REACH)):
                if cost[a] == (0, 0) and cost[b] == (0, 0):
                    continue
                # the best swap between these two tables, the first found among equals
                best = (cost[a][0] + cost[b][0], cost[a][1] + cost[b][1])
                found = None
                for i in range(len(tables[a])):
                    if home[tables[a][i]] + REACH < b:
                        continue
                    for j in range(len(tables[b])):
                        if home[tables[b][j]] - REACH > a:
                            continue
                        ta, tb = list(tables[a]), list(tables[b])
                        ta[i], tb[j] = tb[j], ta[i]
                        ca = (_repeats(ta, met), _displacement(ta, bounds[a], at))
                        cb = (_repeats(tb, met), _displacement(tb, bounds[b], at))
                        if (ca[0] + cb[0], ca[1] + cb[1]) < best:
                            best, found = (ca[0] + cb[0], ca[1] + cb[1]), (ta, tb, ca, cb)
                if found:
                    tables[a], tables[b], cost[a], cost[b] = found
                    changed = True
        if not changed:
            return
