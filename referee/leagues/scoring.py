"""Placings, points and standings: functions of the recorded results alone.

A game's **placings** list each seat's place, 1 for first; tied seats share the
best of the places they take (1, 1, 3). **Points** for a placing: at a table of
two, ``points.win``, ``points.draw`` (both placed first) or ``points.loss``; at a
table of n >= 3, ``loss + (win - loss) * (n - place) / (n - 1)``, tied seats
sharing the mean of the places they take. Byes: in ``swiss`` a win; in
``tables`` half a win (the mean share of a table); in ``round-robin`` nothing
(every player sits out once where the count is odd).

Ties on points are broken, in order, by:

1. **head-to-head**: among the players tied on points, what each scored against
   the others: for each game and each other tied player at it, the points of a
   two-seat game won, drawn or lost by placing better, equal or worse;
2. **Sonneborn-Berger**: for each game and each opponent at it, the opponent's
   points, whole when placed better than them, half when level, none when worse;
3. **Buchholz** (``swiss`` only): for each game and each opponent at it, the
   opponent's points;
4. **games won**: games placed first alone.

Players still level on all of these share a rank, listed in lot order. All sums
are exact fractions; a number leaves here as an integer when it is whole, else
as the nearest float.
"""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction

from referee.leagues.setup import number
from referee.leagues.state import LeagueState

HALF = Fraction(1, 2)


def placings(result: dict, seats: int, losers=()) -> list[int]:
    """Each seat's place in a game that ended with ``result`` (``{winners, scores}``):
    the winners first, the seats in ``losers`` (who resigned or ran out of time, in
    the order they did) last, the later of them above the earlier, the others by
    their scores, higher first. A game ended with no winner (aborted) places every
    seat level."""
    winners = set(result.get("winners") or [])
    if not winners:
        return [1] * seats
    scores = result.get("scores")
    losers = list(dict.fromkeys(losers))  # in order, each once

    def key(seat: int):
        if seat in losers and seat not in winners:
            return (2, -losers.index(seat))  # left later: placed higher
        score = scores[seat] if isinstance(scores, list) and seat < len(scores) else 0
        if isinstance(score, bool) or not isinstance(score, int | float):
            score = 0
        return (0 if seat in winners else 1, -score)

    keys = [key(s) for s in range(seats)]
    return [1 + sum(k < mine for k in keys) for mine in keys]


def forfeit_placings(seats: list[str], withdrawn) -> list[int]:
    """A game lost by forfeit: the withdrawn players last, the others level first."""
    gone = [p in withdrawn for p in seats]
    stayed = len(seats) - sum(gone)
    return [stayed + 1 if g else 1 for g in gone]


def points_table(points: dict) -> dict:
    return {k: number(v) for k, v in points.items()}


def share(placings_: list[int], seat: int, points: dict) -> Fraction:
    """The points ``seat`` earns by its placing (``points`` as exact fractions)."""
    n = len(placings_)
    place = placings_[seat]
    level = placings_.count(place)
    if n == 2:
        return points["draw"] if level == 2 else points["win"] if place == 1 else points["loss"]
    mean = sum(Fraction(n - q, n - 1) for q in range(place, place + level)) / level
    return points["loss"] + (points["win"] - points["loss"]) * mean


def versus(mine: int, theirs: int) -> Fraction:
    """1, 1/2 or 0: placed better than, level with or worse than the other."""
    return Fraction(1) if mine < theirs else HALF if mine == theirs else Fraction(0)


def bye_points(state: LeagueState, points: dict) -> Fraction:
    fmt = state.format
    if fmt == "swiss":
        return points["win"]
    if fmt == "tables":
        return points["loss"] + (points["win"] - points["loss"]) / 2
    return Fraction(0)


def as_number(x: Fraction) -> int | float:
    return int(x) if x.denominator == 1 else float(x)


def games_of(state: LeagueState):
    """Every game with a recorded result: (seats, placings), in the order played."""
    for rnd in state.rounds:
        for t in rnd.tables:
            placed = rnd.results.get(t["game"])
            if placed is not None:
                yield t["seats"], placed


def table(state: LeagueState) -> list[dict]:
    """The standings as exact fractions: ``[{rank, player, points, head_to_head,
    sonneborn_berger, buchholz, won, played}]``, best first (what ``standings`` shows)."""
    pts = points_table(state.terms["points"])
    total = defaultdict(Fraction)
    played, won = defaultdict(int), defaultdict(int)
    games = list(games_of(state))
    for seats, placed in games:
        for i, p in enumerate(seats):
            total[p] += share(placed, i, pts)
            played[p] += 1
            if placed[i] == 1 and placed.count(1) == 1:
                won[p] += 1
    bye = bye_points(state, pts)
    for rnd in state.rounds:
        for p in rnd.byes:
            total[p] += bye
    two = {Fraction(1): pts["win"], HALF: pts["draw"], Fraction(0): pts["loss"]}
    h2h, sb, buchholz = defaultdict(Fraction), defaultdict(Fraction), defaultdict(Fraction)
    for seats, placed in games:
        for i, p in enumerate(seats):
            for j, q in enumerate(seats):
                if i != j:
                    score = versus(placed[i], placed[j])
                    sb[p] += score * total[q]
                    buchholz[p] += total[q]
                    if total[p] == total[q]:
                        h2h[p] += two[score]
    swiss = state.format == "swiss"
    rows = [{"player": p, "points": total[p], "head_to_head": h2h[p],
             "sonneborn_berger": sb[p], "buchholz": buchholz[p] if swiss else Fraction(0),
             "won": won[p], "played": played[p]} for p in state.order()]

    def key(row):
        return (-row["points"], -row["head_to_head"], -row["sonneborn_berger"],
                -row["buchholz"], -row["won"])

    rows.sort(key=key)  # stable: level players stay in lot order
    for i, row in enumerate(rows):
        row["rank"] = i + 1 if i == 0 or key(row) != key(rows[i - 1]) else rows[i - 1]["rank"]
    return rows


def standings(state: LeagueState) -> list[dict]:
    """``[{rank, player, name, points, tiebreaks, played, won, withdrawn}]``, best
    first; ``tiebreaks`` is ``{head_to_head, sonneborn_berger}``, and ``buchholz``
    in a swiss league."""
    gone = set(state.withdrawn)
    out = []
    for row in table(state):
        breaks = {"head_to_head": as_number(row["head_to_head"]),
                  "sonneborn_berger": as_number(row["sonneborn_berger"])}
        if state.format == "swiss":
            breaks["buchholz"] = as_number(row["buchholz"])
        p = row["player"]
        out.append({"rank": row["rank"], "player": p, "name": state.players[p],
                    "points": as_number(row["points"]), "tiebreaks": breaks,
                    "played": row["played"], "won": row["won"], "withdrawn": p in gone})
    return out


def crosstable(state: LeagueState) -> list[dict]:
    """For a round-robin: ``[{player, name, results}]`` in standings order, where
    ``results[j]`` lists the points this player scored against the j-th player of
    the same order, one entry per game played between them (None on the diagonal)."""
    pts = points_table(state.terms["points"])
    order = [row["player"] for row in table(state)]
    at = {p: i for i, p in enumerate(order)}
    cells = [[[] for _ in order] for _ in order]
    for seats, placed in games_of(state):
        for i, p in enumerate(seats):
            for j, q in enumerate(seats):
                if i != j:
                    cells[at[p]][at[q]].append(as_number(share(placed, i, pts)))
    return [{"player": p, "name": state.players[p],
             "results": [None if i == j else cells[i][j] for j in range(len(order))]}
            for i, p in enumerate(order)]
