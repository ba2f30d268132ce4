"""Swiss pairing as a maximum-weight matching.

Each round is a matching of a graph whose nodes are the players still in (and,
with an odd count, one "bye" node) and whose edges are the pairs allowed. It is
solved by networkx's ``max_weight_matching`` (Edmonds' blossom algorithm): a
well-kept, widely used implementation of a subtle algorithm that would be easy to
get subtly wrong by hand, exact with integer weights, and deterministic for a
given graph built in a given order (the audit builds the same graph in the same
order, so it re-derives the same pairs; networkx is pinned to one major version).

What a pairing weighs, most important first (each level outweighs everything
below it, the weights being integers built for that):

1. rematches and second byes: none while avoidable (their edges are left out;
   only when no matching without one exists are they put back, each costing by
   how often the pair met before or the player had a bye);
2. the bye to the lowest-ranked player who has not had one;
3. score closeness: the squared distance between the two players' score groups
   (the groups are the distinct point totals, best first), so that two small
   floats are preferred to one large one;
4. standings closeness: the squared distance of the two players' places.

Edges join players at most ``WINDOW`` places apart in the standings (a pair
further apart is seldom the closest on score, unless rematches force it);
the window is doubled while someone cannot be paired without a rematch, up to
every pair. For large fields the matching is solved in segments of the
standings, each of at least ``SEGMENT`` players and an even count, cut where the
score changes when it does close to that size; a segment that cannot be paired
without a rematch at all is merged with the next (the last with the one before)
and solved again. A league of up to 2 * SEGMENT - 1 players is one segment.
"""

from __future__ import annotations

from collections import Counter

import networkx as nx

SEGMENT = 64
WINDOW = 16
BYE = -1  # the bye's node


def pair(ranked: list[str], points: dict, met: Counter, byes_had: Counter,
         seat_key) -> tuple[list[tuple[str, str]], str | None]:
    """The pairs ``(first, second)``, best-ranked pair first, and the player with
    the bye (or None). ``ranked``: the players to pair, best first; ``points``:
    their totals; ``met``: how often each pair (a frozenset) met; ``byes_had``:
    byes so far; ``seat_key(player)``: who sits first, the lower key."""
    values = sorted(set(points[p] for p in ranked), reverse=True)
    group = {p: values.index(points[p]) for p in ranked}
    segments = _segments(ranked, points)
    while True:
        found, failed = [], None
        for s, (lo, hi) in enumerate(segments):
            got = _match(ranked[lo:hi], group, met, byes_had, with_bye=hi == len(ranked)
                         and len(ranked) % 2 == 1, strict=True)
            if got is None:
                failed = s
                break
            found.append(got)
        if failed is None:
            break
        if len(segments) == 1:  # no pairing without a rematch: the least bad one
            found = [_match(ranked, group, met, byes_had, len(ranked) % 2 == 1, strict=False)]
            break
        s = failed if failed + 1 < len(segments) else failed - 1
        segments[s:s + 2] = [(segments[s][0], segments[s + 1][1])]
    pairs, bye = [], None
    at = {p: i for i, p in enumerate(ranked)}
    for got in found:
        for a, b in got:
            if BYE in (a, b):
                bye = a if b == BYE else b
            else:
                pairs.append((a, b) if seat_key(a) <= seat_key(b) else (b, a))
    pairs.sort(key=lambda ab: min(at[ab[0]], at[ab[1]]))
    return pairs, bye


def _segments(ranked: list[str], points: dict) -> list[tuple[int, int]]:
    n, lo, out = len(ranked), 0, []
    while n - lo >= 2 * SEGMENT:
        cut = lo + SEGMENT
        for c in range(lo + SEGMENT, lo + SEGMENT + SEGMENT // 2 + 1, 2):
            if points[ranked[c - 1]] != points[ranked[c]]:
                cut = c
                break
        out.append((lo, cut))
        lo = cut
    out.append((lo, n))
    return out


def _match(members: list[str], group: dict, met: Counter, byes_had: Counter, with_bye: bool,
           strict: bool) -> list[tuple] | None:
    """The best matching of ``members`` (and the bye), as pairs of players (BYE for
    the bye's node); None when ``strict`` and no matching avoids every rematch."""
    k = len(members)
    size = (k + with_bye) // 2
    window = k if not strict else WINDOW
    while True:
        costs = {}
        for a in range(k):
            for b in range(a + 1, min(k, a + 1 + window)):
                again = met[frozenset((members[a], members[b]))]
                if strict and again:
                    continue
                costs[(a, b)] = (again, 0, (group[members[a]] - group[members[b]]) ** 2,
                                 (b - a) ** 2)
        if with_bye:
            for a in range(k):
                again = byes_had[members[a]]
                if strict and again:
                    continue
                costs[(a, k)] = (again, k - 1 - a, 0, 0)
        matching = _solve(costs, k + with_bye, size)
        if len(matching) == size:
            return [(members[a], BYE if b == k else members[b]) for a, b in matching]
        if window >= k:
            return None
        window *= 2


def _solve(costs: dict, nodes: int, size: int) -> list[tuple[int, int]]:
    """The maximum-cardinality matching of least cost (costs compared level by
    level), as sorted pairs of node numbers."""
    if not costs:
        return []
    levels = len(next(iter(costs.values())))
    scale, total = [0] * levels, 0
    for level in reversed(range(levels)):  # the last level is the least important
        scale[level] = total + 1
        top = max(c[level] for c in costs.values())
        total += size * top * scale[level]
    graph = nx.Graph()
    graph.add_nodes_from(range(nodes))
    for (a, b), c in costs.items():
        graph.add_edge(a, b, weight=total + 1 - sum(x * s for x, s in zip(c, scale, strict=True)))
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    return sorted(tuple(sorted(e)) for e in matching)
