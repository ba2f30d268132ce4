"""Round-robin: the circle method, byes where the count is odd, first seats
alternating, home and away in a second cycle, withdrawn players not paired."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest

from referee.leagues import League
from referee.leagues.pairing.round_robin import round_pairs, rounds_for, schedule

from .helpers import force_results, players


def test_the_circle_method_by_hand():
    # d stays in the middle; a, b, c on the circle: round r pairs the one at r
    # with d (d first in odd rounds) and the two either side of it (the one
    # before it first, k = 1 being odd)
    assert schedule(["a", "b", "c", "d"]) == [
        [("a", "d"), ("c", "b")],
        [("d", "b"), ("a", "c")],
        [("c", "d"), ("b", "a")],
    ]
    # five on the circle: the one at r sits out, k = 1 then k = 2 (the one after first)
    assert schedule(["a", "b", "c", "d", "e"])[0] == [("a", None), ("e", "b"), ("c", "d")]


@pytest.mark.parametrize("n", range(2, 31))
def test_every_pair_meets_once_and_seats_alternate(n):
    lots = [f"p{i}" for i in range(n)]
    rounds = schedule(lots)
    assert len(rounds) == rounds_for(n, 1) == (n - 1 if n % 2 == 0 else n)
    games = [pair for pairs in rounds for pair in pairs if None not in pair]
    assert sorted(tuple(sorted(g)) for g in games) == sorted(combinations(sorted(lots), 2))
    byes = Counter(a or b for pairs in rounds for a, b in pairs if None in (a, b))
    assert byes == (Counter(lots) if n % 2 else Counter())  # one bye each where odd
    for p in lots:
        seats = [0 if a == p else 1 for pairs in rounds for a, b in pairs
                 if p in (a, b) and None not in (a, b)]
        assert abs(seats.count(0) - seats.count(1)) <= (1 if n % 2 == 0 else 0), (p, seats)
        assert all(seats[i:i + 3] not in ([0, 0, 0], [1, 1, 1]) for i in range(len(seats))), seats


def test_each_round_alone_is_the_schedules():
    lots = [f"p{i}" for i in range(9)]
    assert [round_pairs(lots, 3, r) for r in range(rounds_for(9, 3))] == schedule(lots, 3)
    with pytest.raises(IndexError):
        round_pairs(lots, 1, 9)


def test_a_second_cycle_is_home_and_away():
    lots = [f"p{i}" for i in range(6)]
    rounds = schedule(lots, 2)
    assert len(rounds) == 10
    for first, second in zip(rounds[:5], rounds[5:], strict=True):
        assert second == [(b, a) for a, b in first]
    for p in lots:
        assert sum(a == p for pairs in rounds for a, _ in pairs) == 5  # first in 5 of 10


def test_a_league_pairs_round_by_round_from_its_lots():
    league, _ = League.create("L", "s", name="RR", game="castle-danger", format="round-robin",
                              players=players(5), cycles=2)
    league.apply(league.propose_pairing("s", lambda r, t: f"g{r}.{t}"))
    lots = league.state.lots
    assert sorted(lots) == [f"p{i}" for i in range(5)] and lots != sorted(lots)
    rnd = league.state.rounds[0]
    want = schedule(lots, 2)[0]
    assert [t["seats"] for t in rnd.tables] == [list(p) for p in want if None not in p]
    assert rnd.byes == [a or b for a, b in want if None in (a, b)]
    assert [t["game"] for t in rnd.tables] == ["g1.0", "g1.1"]


def test_a_withdrawn_player_is_paired_no_more_and_their_opponents_sit_out():
    league, _ = League.create("L", "s", name="RR", game="castle-danger", format="round-robin",
                              players=players(4))
    league.apply(league.propose_withdraw("p2", "player"))  # before the start: no lot at all
    league.apply(league.propose_withdraw("p3", "admin"))
    league.apply(league.propose_pairing("s", ["g1"]))
    assert sorted(league.state.lots) == ["p0", "p1"]
    assert [sorted(t["seats"]) for t in league.state.rounds[0].tables] == [["p0", "p1"]]

    league, _ = League.create("L", "s", name="RR", game="castle-danger", format="round-robin",
                              players=players(4))
    league.apply(league.propose_pairing("s", ["g1", "g2"]))
    lots = league.state.lots
    gone = lots[1]
    league.apply(league.propose_withdraw(gone, "admin"))
    for r in range(1, 3):
        force_results(league, lambda seats: [1, 2])
        league.apply(league.propose_pairing("s", lambda n, t: f"g{n}.{t}"))
        rnd = league.state.open_round()
        opponent = next(a if b == gone else b for a, b in round_pairs(lots, 1, r) if gone in (a, b))
        assert all(gone not in t["seats"] for t in rnd.tables)
        assert rnd.byes == [opponent] and len(rnd.tables) == 1
