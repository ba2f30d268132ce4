"""A league's log: sealed and chained like a game's, replayed to the same state,
and every event refused when the league does not allow it then."""

from __future__ import annotations

import copy

import pytest

from referee.events import GENESIS, REFEREE, Draft, chain
from referee.games.base import MalformedMove
from referee.leagues import League, LeagueConflict, NoSuchPlayer, replay
from referee.leagues.state import RECORDED
from referee.rng import commitment

from .helpers import Run, force_results, players


def new(n=4, **over) -> League:
    terms = {"name": "L", "game": "castle-danger", "format": "swiss", "players": players(n),
             "rounds": 2, **over}
    return League.create("L", "seed", **terms)[0]


def test_a_played_league_is_a_sealed_chain_replayed_to_the_same_state():
    run = Run(name="Chain", game="castle-danger", options={"turn_limit": 3}, format="swiss",
              players=players(5), rounds=2).play_all(withdraw={2: "p1"})
    prev = GENESIS
    for i, ev in enumerate(run.events, start=1):
        assert (ev.seq, ev.prev, ev.actor, ev.salt) == (i, prev, REFEREE, "")
        assert ev.hash == ev.compute_hash()
        prev = ev.hash
    assert [ev.type for ev in run.events][-2:] == ["league-finished", "seed-revealed"]
    assert run.events[0].payload["seed_commitment"] == commitment("league-seed")
    assert "league-seed" not in "".join(ev.to_json() for ev in run.events[:-1])
    assert replay(run.events) == run.state
    assert League.replay(run.events).last_hash == run.events[-1].hash


def test_what_is_due_step_by_step():
    league = new()
    assert league.due() is None  # the first round waits for its start
    league.apply(league.propose_pairing("seed", ["g1", "g2"]))
    assert league.due() is None  # games running
    force_results(league, lambda seats: [1, 2])  # records, then closes the round
    assert league.state.rounds[0].closed and league.due() == "pair-round"
    league.apply(league.propose_pairing("seed", ["g3", "g4"]))
    force_results(league, lambda seats: [1, 2])
    assert league.due() == "finish"
    league.apply(league.propose_step())
    assert league.due() == "reveal-seed"
    with pytest.raises(LeagueConflict):
        league.propose_step("not-the-seed")
    league.apply(league.propose_step("seed"))
    assert league.due() is None and league.propose_step("seed") == []
    assert league.state.seed == "seed"


def test_a_round_does_not_close_before_its_last_result():
    league = new(n=6)  # three games a round
    league.apply(league.propose_pairing("seed", ["g1", "g2", "g3"]))
    tables = league.state.open_round().tables
    for t in tables:
        assert league.due() is None and league.propose_step("seed") == []  # a game still running
        league.apply(chain([Draft(RECORDED, {"round": 1, "game": t["game"], "placings": [1, 2],
                                             "last_hash": "0" * 64})],
                           REFEREE, league.seq + 1, league.last_hash))
    assert league.due() == "close-round"
    [closed] = league.propose_step("seed")
    assert closed.type == "round-closed" and closed.payload == {"round": 1}


def test_too_few_players_left_finish_the_league_early():
    league = new(n=3, rounds=5)
    league.apply(league.propose_pairing("seed", ["g1"]))
    force_results(league, lambda seats: [1, 2])
    for p in ["p0", "p1"]:
        league.apply(league.propose_withdraw(p, "player"))
    assert league.due() == "finish"


def test_a_proposal_changes_nothing():
    league = new()
    before = copy.deepcopy(league.state)
    league.propose_join({"player": "x", "name": "X"})
    league.propose_withdraw("p0", "admin")
    league.propose_pairing("seed", ["g1", "g2"])
    assert league.state == before and league.seq == 1


def test_joining():
    league = new()
    league.apply(league.propose_join({"player": "x", "name": "X"}))
    assert league.state.players["x"] == "X"
    with pytest.raises(LeagueConflict):
        league.propose_join({"player": "x", "name": "Again"})
    with pytest.raises(MalformedMove) as err:
        league.propose_join({"player": "y"})
    assert err.value.extra["field"] == "player"
    league.apply(league.propose_pairing("seed", ["g1", "g2"]))  # five: two games, a bye
    assert "x" in league.state.lots
    with pytest.raises(LeagueConflict):
        league.propose_join({"player": "z", "name": "Z"})  # the league has started


def test_withdrawing():
    league = new()
    with pytest.raises(NoSuchPlayer):
        league.propose_withdraw("nobody", "admin")
    with pytest.raises(MalformedMove) as err:
        league.propose_withdraw("p0", "someone")
    assert err.value.extra["field"] == "by"
    league.apply(league.propose_withdraw("p0", "player"))
    with pytest.raises(LeagueConflict):
        league.propose_withdraw("p0", "admin")


def test_pairing_needs_its_moment_its_seed_and_new_game_ids():
    league = new()
    with pytest.raises(LeagueConflict):
        league.propose_pairing("other-seed", ["g1", "g2"])
    for ids in (["g1"], ["g1", "g1"], ["g1", ""], "g1g2"):
        with pytest.raises(LeagueConflict):
            league.propose_pairing("seed", ids)
    league.apply(league.propose_pairing("seed", ["g1", "g2"]))
    with pytest.raises(LeagueConflict):  # a round is open
        league.propose_pairing("seed", ["g3", "g4"])
    force_results(league, lambda seats: [1, 1])
    with pytest.raises(LeagueConflict):  # ids already used
        league.propose_pairing("seed", ["g1", "g3"])


def test_too_few_players_cannot_start():
    league = new(n=2)
    league.apply(league.propose_withdraw("p0", "admin"))
    with pytest.raises(LeagueConflict):
        league.propose_pairing("seed", ["g1"])


def test_a_result_needs_a_game_of_the_round_that_has_ended():
    run = Run(name="R", game="castle-danger", options={"turn_limit": 2}, format="swiss",
              players=players(2), rounds=1)
    run.pair()
    game_id = run.state.rounds[0].tables[0]["game"]
    from .helpers import play_game

    names = [run.state.players[p] for p in run.state.rounds[0].tables[0]["seats"]]
    _, running = play_game("castle-danger", game_id, names, {"turn_limit": 2}, "g", stop_after=1)
    with pytest.raises(LeagueConflict):
        run.league.propose_result(game_id, running)
    _, done = play_game("castle-danger", game_id, names, {"turn_limit": 2}, "g")
    with pytest.raises(LeagueConflict):
        run.league.propose_result("another-game", done)
    run.commit(run.league.propose_result(game_id, done))
    with pytest.raises(LeagueConflict):
        run.league.propose_result(game_id, done)
    assert run.events[-1].payload["last_hash"] == done[-1].hash
