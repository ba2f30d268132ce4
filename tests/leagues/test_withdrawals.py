"""Withdrawals: the withdrawn player is not paired again and loses their unfinished
games by forfeit."""

from __future__ import annotations

import random

from referee.leagues import League, standings, withdrawal_forfeits

from .helpers import Run, force_results, play_game, players, random_placings


def test_the_forfeits_a_withdrawal_implies():
    league, _ = League.create("L", "s", name="L", game="king-of-danger", format="tables",
                              players=players(7), rounds=3, table_size=4)
    league.apply(league.propose_pairing("s", ["t1", "t2"]))
    four, three = [t["seats"] for t in league.state.open_round().tables]
    gone = four[2]
    assert withdrawal_forfeits(league.state, gone) == [{"game": "t1", "placings": [1, 1, 4, 1]}]
    assert withdrawal_forfeits(league.state, three[0]) == [{"game": "t2",
                                                            "placings": [3, 1, 1]}]


def test_a_withdrawal_after_a_recorded_result_changes_it_not():
    league, _ = League.create("L", "s", name="L", game="castle-danger", format="swiss",
                              players=players(4), rounds=3)
    league.apply(league.propose_pairing("s", ["g1", "g2"]))
    force_results(league, lambda seats: [1, 2])
    assert withdrawal_forfeits(league.state, "p0") == []


def test_a_withdrawn_player_is_paired_no_more():
    for fmt, game, n in (("swiss", "castle-danger", 6), ("tables", "king-of-the-castle", 9)):
        rnd = random.Random(fmt)
        league, _ = League.create("L", "s", name="L", game=game, format=fmt,
                                  players=players(n), rounds=4)
        league.apply(league.propose_pairing("s", lambda r, t: f"g{r}.{t}"))
        force_results(league, random_placings(rnd))
        league.apply(league.propose_withdraw("p3", "player"))
        for _ in range(3):
            league.apply(league.propose_pairing("s", lambda r, t: f"g{r}.{t}"))
            rnd_ = league.state.open_round()
            assert all("p3" not in t["seats"] for t in rnd_.tables) and "p3" not in rnd_.byes
            force_results(league, random_placings(rnd))
        row = next(r for r in standings(league.state) if r["player"] == "p3")
        assert row["withdrawn"] and row["played"] == 1


def test_an_unfinished_game_is_lost_by_forfeit_whatever_its_log_says():
    run = Run(name="W", game="castle-danger", options={"turn_limit": 4}, format="swiss",
              players=players(2), rounds=2)
    run.pair()
    table = run.state.open_round().tables[0]
    first, second = table["seats"]
    names = [run.state.players[p] for p in table["seats"]]
    # the game ends (the first player wins by the second resigning), but the first
    # player withdraws before its result is recorded: the first player loses it
    t, log = play_game("castle-danger", table["game"], names, {"turn_limit": 4}, "w", stop_after=2)
    events, fork = t.propose(1, [{"type": "resign"}], seed="w")
    t.commit(fork)
    log += events + t.settle_all("w")
    assert t.state.result["winners"] == [0]
    run.commit(run.league.propose_withdraw(first, "player"))
    assert withdrawal_forfeits(run.state, first) == [{"game": table["game"], "placings": [2, 1]}]
    recorded = run.commit(run.league.propose_result(table["game"], log))[0]
    assert recorded.payload["placings"] == [2, 1] and recorded.payload["forfeited"] == [first]
    run.games[table["game"]] = log
    run.settle()  # the round closes; one player left: the league finishes
    assert run.state.finished
    rows = {r["player"]: r for r in standings(run.state)}
    assert rows[second]["points"] == 1 and rows[first]["points"] == 0
    from referee.leagues import audit_league

    assert audit_league(run.bundle())["valid"]
