"""Placings, points and standings; the worked example of docs/leagues.md, computed
there by hand, pinned here."""

from __future__ import annotations

from fractions import Fraction

import pytest

from referee.autoplay import random_game
from referee.leagues import League, crosstable, placings, standings
from referee.leagues.scoring import points_table, share

from .helpers import force_results

DEFAULT = points_table({"win": 1, "draw": 0.5, "loss": 0})


def test_placings_from_a_result():
    assert placings({"winners": [1], "scores": [3, 5]}, 2) == [2, 1]
    assert placings({"winners": [0, 1], "scores": [3, 3]}, 2) == [1, 1]
    # the winners first, the others by score, ties sharing the best place
    assert placings({"winners": [2], "scores": [10, 20, 30, 20]}, 4) == [4, 2, 1, 2]
    # who resigned (or ran out of time) is last whatever their score
    assert placings({"winners": [2], "scores": [50, 10, 20]}, 3, losers={0}) == [3, 2, 1]
    # an aborted game has no winner: every seat level
    assert placings({"winners": [], "scores": [1, 2, 3]}, 3) == [1, 1, 1]


@pytest.mark.parametrize("game,players", [("king-of-danger", 3), ("king-of-danger", 5),
                                          ("kings-keys", 4), ("king-of-the-castle", 4)])
def test_the_winners_of_a_real_game_are_placed_first(game, players):
    table, _ = random_game(game, players, {}, seed=f"placings-{game}")
    result = table.state.result
    placed = placings(result, players)
    assert [s for s in range(players) if placed[s] == 1] == sorted(result["winners"])
    # the others follow their scores, higher first
    rest = sorted((s for s in range(players) if placed[s] > 1), key=placed.__getitem__)
    assert [result["scores"][s] for s in rest] == sorted((result["scores"][s] for s in rest),
                                                         reverse=True)


def test_points_by_placing():
    assert [share([1, 2], s, DEFAULT) for s in (0, 1)] == [1, 0]
    assert [share([1, 1], s, DEFAULT) for s in (0, 1)] == [Fraction(1, 2)] * 2
    F = Fraction
    assert [share([1, 2, 3, 4], s, DEFAULT) for s in range(4)] == [1, F(2, 3), F(1, 3), 0]
    # tied places share the mean of the places they take
    assert [share([1, 1, 3, 4], s, DEFAULT) for s in range(4)] == [F(5, 6), F(5, 6), F(1, 3), 0]
    assert [share([1, 2, 3, 3], s, DEFAULT) for s in range(4)] == [1, F(2, 3), F(1, 6), F(1, 6)]
    three = points_table({"win": 3, "draw": 1, "loss": 0})
    assert share([1, 1], 0, three) == 1  # a draw is what points.draw says
    assert share([2, 1, 3], 0, three) == F(3, 2)  # at a table: loss + (win - loss) * 1/2


# The worked example of docs/leagues.md: five players, one cycle, each pair's game.
NAMES = {"a": "Ann", "b": "Bob", "c": "Cid", "d": "Dee", "e": "Eve"}
WINNER = {"ab": "a", "ac": None, "ad": None, "ae": "e", "bc": None, "bd": "b", "be": "b",
          "cd": "c", "ce": None, "de": "d"}


def example() -> League:
    league, _ = League.create("worked", "worked-seed", name="Worked example",
                              game="castle-danger", format="round-robin",
                              players=[{"player": p, "name": n} for p, n in NAMES.items()])

    def placed(seats):
        won = WINNER["".join(sorted(seats))]
        return [1 if won in (None, p) else 2 for p in seats]

    league.apply(league.propose_pairing("worked-seed", lambda r, t: f"w{r}.{t}"))
    while not league.state.finished:
        force_results(league, placed)
        if league.due() == "pair-round":
            league.apply(league.propose_pairing("worked-seed", lambda r, t: f"w{r}.{t}"))
        elif league.due() == "finish":
            league.apply(league.propose_step())
    return league


def test_the_worked_example_by_hand():
    league = example()
    assert len(league.state.rounds) == 5
    assert all(len(r.byes) == 1 for r in league.state.rounds)  # each sits out once
    rows = [(r["rank"], r["name"], r["points"], r["tiebreaks"]["head_to_head"],
             r["tiebreaks"]["sonneborn_berger"], r["played"], r["won"])
            for r in standings(league.state)]
    assert rows == [
        (1, "Cid", 2.5, 0.5, 4.5, 4, 1),  # level with Bob, and head to head (a draw);
        (2, "Bob", 2.5, 0.5, 4.25, 4, 2),  # Sonneborn-Berger puts Cid first
        (3, "Ann", 2, 0, 4.5, 4, 1),
        (4, "Dee", 1.5, 1, 2.5, 4, 1),  # level with Eve: Dee beat her
        (5, "Eve", 1.5, 0, 3.25, 4, 1),
    ]
    assert "buchholz" not in standings(league.state)[0]["tiebreaks"]  # swiss only
    assert [(r["name"], r["results"]) for r in crosstable(league.state)] == [
        ("Cid", [None, [0.5], [0.5], [1], [0.5]]),
        ("Bob", [[0.5], None, [0], [1], [1]]),
        ("Ann", [[0.5], [1], None, [0.5], [0]]),
        ("Dee", [[0], [0], [0.5], None, [1]]),
        ("Eve", [[0.5], [0], [1], [0], None]),
    ]
    # the league's last event but its seed's reveal holds the same table
    assert league.state.standings == standings(league.state)


def test_players_level_on_everything_share_a_rank_in_lot_order():
    league, _ = League.create("L", "s", name="L", game="castle-danger", format="round-robin",
                              players=[{"player": p, "name": p.upper()} for p in "wxyz"])
    league.apply(league.propose_pairing("s", lambda r, t: f"g{r}.{t}"))
    force_results(league, lambda seats: [1, 1])  # two draws
    rows = standings(league.state)
    assert [r["rank"] for r in rows] == [1, 1, 1, 1]
    assert [r["player"] for r in rows] == league.state.lots


def test_buchholz_in_swiss():
    league, _ = League.create("L", "s", name="L", game="castle-danger", format="swiss",
                              players=[{"player": p, "name": p} for p in "wxyz"], rounds=2)
    league.apply(league.propose_pairing("s", lambda r, t: f"g{r}.{t}"))
    first = [t["seats"][0] for t in league.state.open_round().tables]
    force_results(league, lambda seats: [1, 2])  # seat 0 wins
    rows = {r["player"]: r for r in standings(league.state)}
    for t in league.state.rounds[0].tables:
        w, loser = t["seats"]
        assert rows[w]["tiebreaks"]["buchholz"] == 0 and rows[loser]["tiebreaks"]["buchholz"] == 1
        assert rows[w]["tiebreaks"]["sonneborn_berger"] == 0
    assert [r["player"] for r in standings(league.state)][:2] == [
        p for p in league.state.lots if p in first]
