"""A round's pairing: a function of the league's seed and its log.

The only randomness is the **lots**: when round 1 is paired, the players still
in (in the order they entered) are shuffled by ``referee.rng.Rng(seed, seq)``
(from league version 2 ``seed`` is derived from the league's secret part and
its players' contributions, as a game's is: referee/entropy.py),
``seq`` being the ``round-paired`` event's own, and the order drawn is logged in
that event. Everything after is decided by the log: round-robin follows the
circle of the lots, swiss and tables follow the standings (level players in lot
order). So the pairings of rounds 2 on can be re-derived from the log alone; the
lots, once the seed is revealed.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from referee import entropy
from referee import rng as rngmod
from referee.leagues import scoring, setup
from referee.leagues.pairing import round_robin, swiss, tables
from referee.leagues.state import LeagueState


@dataclass
class Pairing:
    tables: list[list[str]]  # each table's players in seat order
    byes: list[str]
    lots: list[str] | None = None  # drawn for round 1


def draw_lots(players: list[str], seed: str | None, seq: int) -> list[str]:
    return rngmod.Rng(seed, seq).shuffle(players)


def planned_rounds(state: LeagueState) -> int | None:
    """How many rounds the league plays (a round-robin's once its lots are drawn)."""
    if state.format == "round-robin":
        if state.lots is None:
            return None
        return round_robin.rounds_for(len(state.lots), state.terms["cycles"])
    if state.terms["rounds"] is None:  # a version 2 swiss asked for none: from its players
        return None if state.lots is None else setup.swiss_rounds(len(state.lots))
    return state.terms["rounds"]


def fewest(state: LeagueState) -> int:
    """The fewest players still in for whom a round can be paired."""
    return 2 if state.format != "tables" else min(state.terms["seat_counts"])


@dataclass
class History:
    met: Counter  # frozenset pair -> meetings
    byes: Counter
    firsts: Counter  # times in seat 0
    seconds: Counter  # times in another seat
    last_first: dict  # player -> sat first in their last game


def history(state: LeagueState) -> History:
    h = History(Counter(), Counter(), Counter(), Counter(), {})
    for rnd in state.rounds:
        h.byes.update(rnd.byes)
        for t in rnd.tables:
            seats = t["seats"]
            for i, p in enumerate(seats):
                (h.firsts if i == 0 else h.seconds)[p] += 1
                h.last_first[p] = i == 0
                for q in seats[i + 1:]:
                    h.met[frozenset((p, q))] += 1
    return h


def pair_round(state: LeagueState, seed: str | None, seq: int) -> Pairing:
    """The next round's pairing; ``seq`` is the number its ``round-paired`` event
    will have (the lots of round 1 are drawn from it). Raises ``SeedUnavailable``
    for round 1 without the seed."""
    lots = state.lots
    drawn = None
    if lots is None:  # from version 2, the seed derived from the secret part and the players' entropy
        if state.contributions is not None:
            seed = entropy.dealing(seed, [c["entropy"] for c in state.contributions])
        lots = drawn = draw_lots(state.active(), seed, seq)
    gone = set(state.withdrawn)
    if state.format == "round-robin":
        pairs = round_robin.round_pairs(lots, state.terms["cycles"], len(state.rounds))
        seated, byes = [], []
        for a, b in pairs:
            if a is None or b is None or a in gone or b in gone:
                byes += [p for p in (a, b) if p is not None and p not in gone]
            else:
                seated.append([a, b])
        at = {p: i for i, p in enumerate(lots)}
        return Pairing(seated, sorted(byes, key=at.__getitem__), drawn)
    rows = scoring.table(state) if state.rounds else [{"player": p, "points": 0} for p in lots]
    ranked = [row["player"] for row in rows if row["player"] not in gone]
    h = history(state)
    if state.format == "swiss":
        points = {row["player"]: row["points"] for row in rows}
        at = {p: i for i, p in enumerate(ranked)}

        def seat_key(p):
            return (h.firsts[p] - h.seconds[p], h.last_first.get(p, False), at[p])

        pairs, bye = swiss.pair(ranked, points, h.met, h.byes, seat_key)
        return Pairing([list(ab) for ab in pairs], [bye] if bye else [], drawn)
    sizes, out = tables.split(len(ranked), state.terms["table_size"], state.terms["seat_counts"])
    byes = _byes(ranked, out, h.byes)
    seated = [p for p in ranked if p not in byes]
    at = {p: i for i, p in enumerate(ranked)}
    return Pairing(tables.seat(seated, sizes, h.met, h.firsts, search=bool(state.rounds)),
                   sorted(byes, key=at.__getitem__), drawn)


def _byes(ranked: list[str], count: int, had: Counter) -> list[str]:
    """The ``count`` lowest-ranked players with the fewest byes so far."""
    if not count:
        return []
    bottom_up = list(reversed(ranked))
    return sorted(bottom_up, key=lambda p: had[p])[:count]
