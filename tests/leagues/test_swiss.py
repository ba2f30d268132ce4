"""Swiss: score groups, no pair twice while avoidable, the bye to the lowest-ranked
player without one, the least bad pairing when a rematch cannot be avoided."""

from __future__ import annotations

import random
from collections import Counter

import networkx as nx
import pytest

from referee.leagues import League, standings
from referee.leagues.pairing import history, swiss

from .helpers import by_rank, force_results, players, random_placings


def league_of(n: int, rounds: int, seed: str = "swiss") -> League:
    league, _ = League.create(seed, seed, name="Swiss", game="castle-danger", format="swiss",
                              players=players(n), rounds=rounds)
    return league


def pair(league: League) -> list[list[str]]:
    seed = league.state.id  # league_of names a league after its seed
    league.apply(league.propose_pairing(seed, lambda r, t: f"g{r}.{t}"))
    return [t["seats"] for t in league.state.open_round().tables]


def test_round_one_pairs_the_lots_two_by_two_and_gives_the_last_lot_the_bye():
    league = league_of(7, 3)
    tables = pair(league)
    lots = league.state.lots
    assert sorted(lots) == sorted(league.state.players) and lots != sorted(lots)
    assert [sorted(t) for t in tables] == [sorted(lots[i:i + 2]) for i in (0, 2, 4)]
    assert league.state.rounds[0].byes == [lots[6]]


def key(points, met=(), byes=()):
    """A hand-made position: ranked players with their points."""
    ranked = list(points)
    return ranked, points, Counter(frozenset(p) for p in met), Counter(byes)


def test_equal_points_pair_together_and_the_nearest_float_when_they_cannot():
    ranked, points, met, byes = key({"A": 2, "B": 2, "C": 1, "D": 1, "E": 0, "F": 0})
    pairs, bye = swiss.pair(ranked, points, met, byes, ranked.index)
    assert pairs == [("A", "B"), ("C", "D"), ("E", "F")] and bye is None
    # A and B met: each floats one group down; A-C + B-D beats A-D + B-C on
    # standings closeness (2² + 2² < 3² + 1²)
    met = Counter({frozenset("AB"): 1})
    pairs, _ = swiss.pair(ranked, points, met, byes, ranked.index)
    assert pairs == [("A", "C"), ("B", "D"), ("E", "F")]


def test_two_small_floats_are_preferred_to_one_large_one():
    # A 3, B 2, C 2, D 1: A-B and C-D float by one group each (1 + 1); A-D and
    # B-C would float one pair by two groups (4)
    ranked, points, met, byes = key({"A": 3, "B": 2, "C": 2, "D": 1})
    pairs, _ = swiss.pair(ranked, points, met, byes, ranked.index)
    assert pairs == [("A", "B"), ("C", "D")]
    # C-D and A-E met: A-C, B-D, E-F floats 2 + 1 + 0 groups; A-B, C-E, D-F floats
    # 1 + 1 + 1, as many groups in all but no float of two (2² + 1² > 3 × 1²)
    ranked, points, met, byes = key({"A": 3, "B": 2, "C": 1, "D": 1, "E": 0, "F": 0},
                                    met=["CD", "AE"])
    pairs, _ = swiss.pair(ranked, points, met, byes, ranked.index)
    assert pairs == [("A", "B"), ("C", "E"), ("D", "F")]


def test_the_bye_goes_to_the_lowest_ranked_player_without_one():
    ranked, points, met, byes = key({"A": 1, "B": 1, "C": 1, "D": 0, "E": 0}, byes=["E"])
    pairs, bye = swiss.pair(ranked, points, met, byes, ranked.index)
    assert bye == "D" and sorted(map(sorted, pairs)) == [["A", "B"], ["C", "E"]]
    # everyone has had one: the lowest-ranked gets a second
    _, _, _, byes = key({}, byes=list("ABCDE"))
    assert swiss.pair(ranked, points, met, byes, ranked.index)[1] == "E"


def test_a_bye_counts_as_a_win():
    league = league_of(3, 2)
    pair(league)
    bye = league.state.rounds[0].byes[0]
    rows = {r["player"]: r for r in standings(league.state)}
    assert rows[bye]["points"] == 1 and rows[bye]["played"] == 0 and rows[bye]["won"] == 0


def test_a_rematch_is_the_least_bad_when_none_can_be_avoided():
    league = league_of(4, 4)
    for _ in range(3):
        pair(league)
        force_results(league, by_rank(sorted(league.state.players)))
    tables = pair(league)  # all three pairings of four are used up
    assert sorted(p for t in tables for p in t) == sorted(league.state.players)
    met = history(league.state).met
    assert sum(met.values()) == 8 and all(v <= 2 for v in met.values())


def rematch_free_exists(active: list[str], met: Counter, byes: Counter) -> bool:
    """Whether some pairing of ``active`` (with a bye if odd) has no rematch and
    no second bye: a perfect matching of the graph of allowed pairs."""
    g = nx.Graph()
    g.add_nodes_from(active)
    g.add_edges_from((a, b) for i, a in enumerate(active) for b in active[i + 1:]
                     if not met[frozenset((a, b))])
    if len(active) % 2:
        g.add_edges_from(("bye", p) for p in active if not byes[p])
    return len(nx.max_weight_matching(g, maxcardinality=True)) * 2 == len(g)


@pytest.mark.parametrize("n,rounds,seed", [(6, 5, 1), (7, 6, 2), (8, 7, 3), (9, 8, 4),
                                           (12, 6, 5), (33, 7, 6)])
def test_no_pair_twice_and_no_second_bye_while_avoidable(n, rounds, seed):
    rnd = random.Random(seed)
    league = league_of(n, rounds, seed=f"s{seed}")
    for _ in range(rounds):
        before = history(league.state)
        active = league.state.active()
        avoidable = league.state.rounds == [] or rematch_free_exists(active, before.met,
                                                                     before.byes)
        tables = pair(league)
        rnd_ = league.state.open_round()
        seated = [p for t in tables for p in t] + rnd_.byes
        assert sorted(seated) == sorted(active) and len(rnd_.byes) == n % 2
        if avoidable:
            assert all(not before.met[frozenset(t)] for t in tables), tables
            assert all(not before.byes[p] for p in rnd_.byes)
        force_results(league, random_placings(rnd))


def test_a_large_field_is_paired_in_segments_without_rematches():
    rnd = random.Random(7)
    league = league_of(301, 5, seed="big")
    for r in range(5):
        before = history(league.state)
        at = {row["player"]: i for i, row in enumerate(standings(league.state))}
        tables = pair(league)
        assert all(not before.met[frozenset(t)] for t in tables)
        assert len(tables) == 150 and len(league.state.open_round().byes) == 1
        if r:  # nobody floats far: a pair's players stood within 10 places of each other
            assert max(abs(at[a] - at[b]) for a, b in tables) <= 10
        force_results(league, random_placings(rnd))
    assert max(history(league.state).byes.values()) == 1


def test_first_seats_alternate():
    league = league_of(8, 5)
    for _ in range(5):
        pair(league)
        force_results(league, random_placings(random.Random(len(league.state.rounds))))
    h = history(league.state)
    for p in league.state.players:
        assert abs(h.firsts[p] - h.seconds[p]) <= 1, (p, h.firsts[p], h.seconds[p])


def test_the_pairing_is_the_same_every_time():
    def play(seed):
        rnd = random.Random(1)
        league = league_of(20, 4, seed=seed)
        out = []
        for _ in range(4):
            out.append(pair(league))
            force_results(league, random_placings(rnd))
        return out
    assert play("a") == play("a") and play("a") != play("b")


def test_a_segment_that_cannot_avoid_a_rematch_is_merged_with_the_next(monkeypatch):
    monkeypatch.setattr(swiss, "SEGMENT", 4)
    monkeypatch.setattr(swiss, "WINDOW", 1)
    ranked = list("ABCDEFGHIJ")
    points = dict.fromkeys(ranked, 0)
    met = Counter(frozenset(pq) for pq in ("AB", "AC", "AD", "BC", "BD", "CD"))
    assert swiss._segments(ranked, points) == [(0, 4), (4, 10)]
    pairs, bye = swiss.pair(ranked, points, met, Counter(), ranked.index)
    assert bye is None and sorted(p for ab in pairs for p in ab) == ranked
    assert not any(met[frozenset(ab)] for ab in pairs)
    # the window (1: neighbours only) was widened inside the merged segment
    assert any(abs(ranked.index(a) - ranked.index(b)) > 1 for a, b in pairs)
