"""Ratings: placings worked out by hand, OpenSkill's numbers, which games are rated,
and recording a finished game exactly once on both stores, through crashes."""

from __future__ import annotations

import pytest
from freezegun import freeze_time

from referee.players import ratings, results
from referee.players.store import open_players
from referee.store.base import GameRecord
from tests.playertools import export, finished_game, finished_log

GAME = "king-of-danger"


@pytest.fixture
def players(store):
    return open_players(store)


@pytest.mark.parametrize(("result", "seats", "places"), [
    ({"winners": [1], "scores": [3, 10, 5]}, 3, [3, 1, 2]),
    # two winners share first; the rest by score, equal scores sharing a place
    ({"winners": [0, 2], "scores": [3, 10, 3, 7, 7]}, 5, [1, 3, 1, 4, 4]),
    ({"winners": [0, 1], "reason": "a draw", "scores": [4, 4]}, 2, [1, 1]),
    ({"winners": [], "scores": [1, 9, 5]}, 3, [3, 1, 2]),
    # a score that is no number ties with the others like it, below every number
    ({"winners": [2], "scores": [{"x": 1}, 2, 0]}, 3, [3, 2, 1]),
])
def test_placings(result, seats, places):
    assert ratings.placings(result, seats) == places


def test_rate_is_openskill_plackett_luce_with_ordinal_and_games():
    from openskill.models import PlackettLuce

    before = [None, {"mu": 30.0, "sigma": 5.0, "ordinal": 15.0, "games": 7}, None]
    after = ratings.rate(before, [2, 1, 2])
    model = PlackettLuce()
    want = model.rate([[model.rating()], [model.rating(mu=30.0, sigma=5.0)], [model.rating()]], ranks=[2, 1, 2])
    for got, team, games in zip(after, want, [1, 8, 1], strict=True):
        assert (got["mu"], got["sigma"], got["games"]) == (team[0].mu, team[0].sigma, games)
        assert got["ordinal"] == got["mu"] - 3 * got["sigma"]
    assert after[1]["mu"] > 30.0 and after[0]["mu"] < 25.0  # the winner rises, the others fall
    assert after[0] == after[2]  # a shared place moves both alike


def test_ratings_eligibility_refuses_one_player_in_two_seats_and_an_aborted_game():
    """Each on its own: both games ended with a result, by real players, neither
    stacked nor opted out, so only the rule keeps each from being rated (also when
    every rating is worked out again from the logs, ``referee ratings --check``)."""
    twice_log, _ = finished_log("twice", ["a", "a"])
    aborted_log, status = finished_log("aborted", ["a", "b"], abort=True)
    assert status == "aborted"
    played = ratings.outcome(finished_log("played", ["a", "b"])[0])
    twice, aborted = ratings.outcome(twice_log), ratings.outcome(aborted_log)
    assert ratings.eligible(played)
    for out in (twice, aborted):
        assert out["result"] is not None and not out["stacked"] and out["rated"]
    assert twice["players"] == ["a", "a"] and not twice["aborted"]
    assert aborted["aborted"] and aborted["players"] == ["a", "b"]
    assert not ratings.eligible(twice) and not ratings.eligible(aborted)
    assert ratings.recompute([twice_log, aborted_log]) == {}


def test_which_games_are_rated(store, players):
    rated = finished_game(store, ["a", "b"])
    stacked = finished_game(store, ["a", "b"], stacked=True)
    opted_out = finished_game(store, ["a", "b"], rated=False)
    a_name = finished_game(store, ["a", None])
    aborted = finished_game(store, ["a", "b"], abort=True)
    assert store.record(aborted).status == "aborted"
    assert results.rate_game(store, players, rated)["rated"] is True
    for gid in (stacked, opted_out, a_name):  # played and won count, no rating moves
        made = results.rate_game(store, players, gid)
        assert made["rated"] is False and all("after" not in p for p in made["players"])
    assert results.rate_game(store, players, aborted) is None  # aborted: never recorded
    assert players.recorded(aborted) is None
    assert players.ratings("a")[GAME]["games"] == 1
    assert players.stats("a")[GAME]["played"] == 4 and players.stats("b")[GAME]["played"] == 3
    assert len(players.history("a", GAME)) == 1


def test_a_game_rated_twice_changes_nothing_the_second_time(store, players):
    gid = finished_game(store, ["a", "b", "c"], resigns=0)
    first = results.rate_game(store, players, gid)
    assert first is not None and [p["place"] for p in first["players"]] == [3, 1, 1]
    kept = (players.ratings("a"), players.stats("b"), players.history("c", GAME), players.recorded_games())
    assert results.rate_game(store, players, gid) is None
    assert (players.ratings("a"), players.stats("b"), players.history("c", GAME), players.recorded_games()) == kept


@pytest.mark.parametrize("where", ["before commit", "between players"])
def test_a_crash_before_the_commit_leaves_nothing_and_the_retry_records_once(store, players, monkeypatch, where):
    other = finished_game(store, ["a", "b"])
    gid = finished_game(store, ["a", "b", "c"], resigns=2)
    results.rate_game(store, players, other)
    before = (players.ratings("a"), players.ratings("c"), players.stats("a"), players.recorded_games())

    def crash(self, at):
        if at == where:
            raise KeyboardInterrupt("killed")  # not an Exception: as a kill, nothing catches it

    monkeypatch.setattr(type(players), "_commit_point", crash)
    with pytest.raises(KeyboardInterrupt):
        results.rate_game(store, players, gid)
    monkeypatch.undo()
    if where == "before commit" or not hasattr(players, "_carry_out"):
        # SQLite's transaction is undone whole; Redis wrote nothing before its script
        assert (players.ratings("a"), players.ratings("c"), players.stats("a"), players.recorded_games()) == before
    made = results.rate_game(store, players, gid)  # the job retried
    results.rate_game(store, players, gid)
    assert players.stats("a")[GAME]["played"] == 2 and players.stats("c")[GAME]["played"] == 1
    assert len(players.history("a", GAME)) == 2 and len(players.history("c", GAME)) == 1
    assert results.check(store, players) == []
    if made is None:  # Redis: the plan was kept, and finished by the retry
        assert where == "between players" and hasattr(players, "_carry_out")


def test_the_check_recomputes_every_rating_and_finds_a_difference(store, players, tmp_path):
    from referee.cli import main

    games = [finished_game(store, ids, resigns=k % len(ids)) for k, ids in
             enumerate([["a", "b"], ["b", "c", "d"], ["a", "c"], ["d", "a", "b"], ["c", "d"]])]
    for gid in games:
        results.rate_game(store, players, gid)
    assert results.check(store, players) == []
    # recomputing from the exports alone, in the order they ended, gives the same numbers
    assert ratings.recompute([export(store, gid) for gid in games]) == players.all_ratings()
    url = f"sqlite:///{store.path}" if hasattr(store, "path") else store.url
    assert main(["ratings", "--check", "--store", url]) == 0
    # a stored rating changed behind the referee's back is found, and the exit is not 0
    tampered = {**players.ratings("c")[GAME], "mu": 40.0}
    _put_rating(players, "c", tampered)
    found = results.check(store, players)
    assert len(found) == 1 and "player c" in found[0]
    assert main(["ratings", "--check", "--store", url]) == 1


def _put_rating(players, pid, rating):
    import json

    if hasattr(players, "_carry_out"):
        players.r.hset(f"{{p:{pid}}}:ratings", GAME, json.dumps(rating))
    else:
        with players._tx() as conn:
            conn.execute("UPDATE player_ratings SET rating = ? WHERE player = ? AND game = ?",
                         (json.dumps(rating), pid, GAME))


def test_a_finished_game_left_unrecorded_is_named_by_the_check_and_caught_up(store, players):
    gid = finished_game(store, ["a", "b"])
    assert any(gid in d for d in results.check(store, players))
    assert results.catch_up(store, players) == 1
    assert results.check(store, players) == []


def test_history_pages_and_the_newest(store, players):
    for k in range(5):
        results.rate_game(store, players, finished_game(store, ["a", "b"], resigns=k % 2))
    whole = players.history("a", GAME)
    assert [e["n"] for e in whole] == [1, 2, 3, 4, 5]
    assert [e["order"] for e in whole] == [1, 2, 3, 4, 5]
    assert players.history("a", GAME, after=2, limit=2) == whole[2:4]
    assert players.history("a", GAME, limit=2, newest=True) == whole[3:]
    assert whole[-1]["after"] == players.ratings("a")[GAME]
    assert all(e["after"] == f["before"] for e, f in zip(whole, whole[1:], strict=False))


def test_a_game_recorded_between_the_read_and_the_write_sends_the_job_back_to_read(store, players):
    """Two jobs sharing a player: B records while A holds ratings it read before;
    A's write is refused and A reads again, so no update is lost (another store
    object on the same file or Redis stands for another process)."""
    a_game = finished_game(store, ["a", "b"])
    b_game = finished_game(store, ["a", "c"], resigns=1)
    other = open_players(store)
    read = players.rating_read
    calls = []

    def read_then_let_b_in(ids, game):
        got = read(ids, game)
        if not calls:
            assert results.rate_game(store, other, b_game) is not None
        calls.append(ids)
        return got

    players.rating_read = read_then_let_b_in
    results.rate_game(store, players, a_game)
    assert len(calls) == 2  # read again after the refusal
    assert players.ratings("a")[GAME]["games"] == 2
    assert [e["game_id"] for e in players.history("a", GAME)] == [b_game, a_game]
    assert results.check(store, players) == []


def test_the_catch_up_reads_only_games_created_since_its_mark(store, players):
    """The start-up catch-up keeps a mark: the oldest running game's creation (less
    an hour for the machines' clocks); the next one reads no finished game created
    before it. ``referee ratings --catch-up`` reads them all."""
    with freeze_time("2026-03-01 12:00:00"):  # a game still being played since then
        log, _ = finished_log("running", ["a", "b"])
        store.create(GameRecord("running", GAME, log[0].at, ["n0", "n1"], {}, "seed-running",
                                status="settling", version=1), log[0])
    assert players.caught_up() is None
    assert results.catch_up(store, players) == 0
    assert players.caught_up() == "2026-03-01T11:00:00.000000Z"
    with freeze_time("2026-03-02 12:00:00"):  # created after the running game; its job lost
        late = finished_game(store, ["a", "b"])
    assert results.catch_up(store, players) == 1 and players.recorded(late) is not None
    with freeze_time("2026-02-27 12:00:00"):  # before the mark: the catch-up no longer reads it
        old = finished_game(store, ["c", "d"])
    assert results.catch_up(store, players) == 0 and players.recorded(old) is None
    assert results.catch_up(store, players, everything=True) == 1 and players.recorded(old) is not None
