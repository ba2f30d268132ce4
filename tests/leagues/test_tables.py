"""Tables: sizes the game allows as close to table_size as can be, round 1 from
the lots, later rounds by standings with as few repeat opponents as the search
finds, byes only where no split exists."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import pytest

from referee.leagues import League, standings
from referee.leagues.pairing import history, tables

from .helpers import force_results, players, random_placings


@pytest.mark.parametrize("n,size,allowed,want", [
    (12, 4, [3, 4], ([4, 4, 4], 0)),
    (7, 4, [3, 4], ([4, 3], 0)),
    (6, 4, [3, 4], ([3, 3], 0)),  # two tables of 3 rather than one of 4 and two byes
    (5, 4, [3, 4], ([4], 1)),  # no split: one sits out
    (2, 3, [3, 4], ([], 2)),
    (9, 4, [3, 4, 5], ([5, 4], 0)),  # distance 1, not 3 + 3 + 3 (distance 3)
    (10, 4, [3, 4, 5], ([5, 5], 0)),  # as far as 4 + 3 + 3, in fewer tables
    (8, 3, [3, 4, 5], ([5, 3], 0)),  # one table of the size asked beats none (4 + 4)
    (1000, 4, [3, 4, 5, 6, 7, 8], ([4] * 250, 0)),
])
def test_split(n, size, allowed, want):
    assert tables.split(n, size, allowed) == want


def test_a_seating_avoids_repeat_opponents_and_keeps_the_leader_on_top():
    ranked = list("abcdefghijkl")
    met = Counter(frozenset(pq) for pq in combinations("abc", 2))
    seated = tables.seat(ranked, [3, 3, 3, 3], met, Counter())
    assert sum(tables._repeats(t, met) for t in seated) == 0
    assert "a" in seated[0]
    where = {p: i for i, t in enumerate(seated) for p in t}
    assert all(abs(where[p] - ranked.index(p) // 3) <= tables.REACH for p in ranked)
    # nothing to avoid: the standings cut table after table
    assert tables.seat(ranked, [3, 3, 3, 3], Counter(), Counter()) == [
        list("abc"), list("def"), list("ghi"), list("jkl")]


def test_seat_zero_goes_to_who_sat_first_least():
    seated = tables.seat(list("abcd"), [4], Counter(), Counter({"a": 2, "b": 1, "d": 1}))
    assert seated == [list("cbda")]


def league_of(n: int, rounds: int, seed: str, game="king-of-the-castle", size=4) -> League:
    league, _ = League.create(seed, seed, name="Tables", game=game, format="tables",
                              players=players(n), rounds=rounds, table_size=size)
    return league


def pair(league: League):
    league.apply(league.propose_pairing(league.state.id, lambda r, t: f"g{r}.{t}"))
    return league.state.open_round()


def test_round_one_seats_the_lots_table_after_table():
    league = league_of(11, 3, "t1")
    rnd = pair(league)
    lots = league.state.lots
    assert [t["seats"] for t in rnd.tables] == [lots[0:4], lots[4:8], lots[8:11]]
    assert rnd.byes == []


@pytest.mark.parametrize("n,seed", [(12, "a"), (17, "b"), (40, "c")])
def test_later_rounds_follow_the_standings_with_few_repeats(n, seed):
    rnd_ = random.Random(seed)
    league = league_of(n, 4, seed)
    pair(league)
    force_results(league, random_placings(rnd_))
    for _ in range(3):
        before = history(league.state)
        ranked = [r["player"] for r in standings(league.state)]
        rnd = pair(league)
        seated = [t["seats"] for t in rnd.tables]
        assert sorted(p for t in seated for p in t) == sorted(ranked)
        sizes, _ = tables.split(n, 4, league.state.terms["seat_counts"])
        plain = [ranked[sum(sizes[:i]):sum(sizes[:i + 1])] for i in range(len(sizes))]
        # never more repeats than seating the standings as they come
        assert (sum(tables._repeats(t, before.met) for t in seated)
                <= sum(tables._repeats(t, before.met) for t in plain))
        # nobody moved further than REACH tables from where the standings put them
        home = {p: i for i, t in enumerate(plain) for p in t}
        assert all(abs(home[p] - i) <= tables.REACH for i, t in enumerate(seated) for p in t)
        force_results(league, random_placings(rnd_))


def test_the_bye_falls_to_the_lowest_ranked_without_one():
    league = league_of(5, 3, "bye", game="kings-keys")  # 3 or 4 seats: five cannot all sit
    seen, ranked_before = [], []
    for _ in range(3):
        rnd = pair(league)
        assert len(rnd.byes) == 1 and [len(t["seats"]) for t in rnd.tables] == [4]
        if seen:  # ranked before the round: lowest first among those without a bye
            before = [p for p in reversed(ranked_before) if p not in seen]
            assert rnd.byes[0] == before[0]
        seen += rnd.byes
        force_results(league, random_placings(random.Random(len(seen))))
        ranked_before = [r["player"] for r in standings(league.state)]
    assert len(set(seen)) == 3


def test_a_bye_at_tables_is_half_a_win():
    league = league_of(5, 1, "half", game="kings-keys")
    rnd = pair(league)
    row = next(r for r in standings(league.state) if r["player"] == rnd.byes[0])
    assert row["points"] == 0.5
