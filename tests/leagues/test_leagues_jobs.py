"""A league's rounds advance by themselves, exactly once: on a real Redis with two
real RQ workers racing each other, and through a crash between recording a round's
last result and pairing the next."""

from __future__ import annotations

import os
import signal
import time

import pytest

from referee.leagues import audit_league, running
from referee.leagues.keeping import leagues_of
from referee.players import accounts
from referee.queue import InlineQueue, RQQueue
from referee.store import open_store
from referee.system import assemble
from tests.leaguetools import started
from tests.test_workers import worker

KOD = {"target": 1}


def bots(service, n: int) -> list[str]:
    return [accounts.register(service, {"name": f"Bot{i}", "bot": "random"})["id"] for i in range(n)]


def types(service, league_id: str) -> list[str]:
    return [ev.type for ev in leagues_of(service).events(league_id)]


def once_each(service, league_id: str) -> None:
    """Every game recorded once, every round paired and closed once, one finish."""
    t = types(service, league_id)
    events = leagues_of(service).events(league_id)
    recorded = [ev.payload["game"] for ev in events if ev.type == "result-recorded"]
    paired = [tb["game"] for ev in events if ev.type == "round-paired" for tb in ev.payload["tables"]]
    assert sorted(recorded) == sorted(paired) and len(set(recorded)) == len(recorded)
    assert t.count("round-paired") == t.count("round-closed")
    assert t.count("league-finished") == 1 and t[-1] == "seed-revealed"
    report = audit_league(running.export(service, league_id))
    assert report["valid"], report["first_error"]


RQ_LEAGUES = {
    "swiss": ({"game": "king-of-danger", "options": KOD, "format": "swiss", "rounds": 4}, 9, 4),
    "round-robin": ({"game": "king-of-danger", "options": KOD, "format": "round-robin"}, 4, 3),
    "tables": ({"game": "king-of-the-castle", "options": {}, "format": "tables", "rounds": 2,
                "table_size": 4}, 7, 2),
}


@pytest.mark.parametrize("fmt", sorted(RQ_LEAGUES))
def test_a_league_played_out_by_two_real_rq_workers(redis_url, fmt):
    terms, n, rounds = RQ_LEAGUES[fmt]
    service = assemble(open_store(redis_url), RQQueue(redis_url))
    league = started(service, {"name": "RQ", **terms, "players": bots(service, n)})
    lid = league["id"]
    # the Redis league store: a league's keys under its own hash tag
    assert service.store.r.exists(f"{{l:{lid}}}:log") and service.store.r.exists(f"{{l:{lid}}}:meta")
    procs = [worker(redis_url, redis_url, burst=False) for _ in range(2)]
    try:
        deadline = time.time() + 180
        while leagues_of(service).meta(lid)["status"] != "finished" or types(service, lid)[-1] != "seed-revealed":
            assert time.time() < deadline, types(service, lid)
            time.sleep(0.2)
    finally:
        for proc in procs:
            os.killpg(proc.pid, signal.SIGTERM)
        for proc in procs:
            proc.wait(30)
    once_each(service, lid)
    assert types(service, lid).count("round-paired") == rounds


class Killed(Exception):
    pass


class Held(InlineQueue):
    """Embedded mode, but the league's jobs wait until the test runs them (as a
    worker would, one at a time)."""

    def __init__(self):
        self.held = []

    def enqueue(self, kind, game_id):
        if kind == running.RESULT.name:
            self.held.append(game_id)
        else:
            super().enqueue(kind, game_id)


@pytest.mark.parametrize("retry", ["heal", "jobs"])
def test_a_crash_while_pairing_pairs_once_on_the_retry_with_the_games_made(store_url, retry):
    """The process dies while it makes round 2's games, after the first: nothing of
    round 2 is in the league's log. Healed (as at a start) or by the results' jobs
    run again (as RQ retries them, one at a time: another log length, the same
    pairing), round 2 is paired once and names the game already made."""
    from referee.leagues import healing

    queue = Held()
    service = assemble(open_store(store_url), queue)
    create = service.create

    def dying(game, players, options=None, **kw):
        made = create(game, players, options, **kw)
        if "r2t0" in kw["game_id"]:
            raise Killed()  # the process dies here, one game of round 2 made
        return made

    service.create = dying
    with pytest.raises(Killed):
        started(service, {"name": "Crash", "game": "king-of-danger", "options": KOD,
                                 "format": "round-robin", "players": bots(service, 4)})
    lid = leagues_of(service).page()[0]["id"]
    assert types(service, lid) == ["league-created", "league-started", "round-paired"]  # round 2: nothing logged
    first = [g["game"] for g in running.view(service, lid)["rounds"][0]["games"]]
    made = [g for g in service.store.games() if "r2t0" in g["id"]]
    assert len(made) == 1 and lid in leagues_of(service).owing()
    service.create = create
    if retry == "heal":
        healing.heal(service)
    else:
        for gid in first + first:  # each job run twice
            running.game_ended(service, gid)
    assert types(service, lid).count("round-paired") == 3
    assert running.view(service, lid)["rounds"][1]["games"][0]["game"] == made[0]["id"]
    assert service.store.events(made[0]["id"])[0].type == "game-created"  # made once, kept
    assert [g["id"] for g in service.store.games() if "r2t0" in g["id"]] == [made[0]["id"]]
    once_each(service, lid)
    assert lid not in leagues_of(service).owing()


@pytest.mark.parametrize("step", ["result-recorded", "round-paired"])
def test_a_conflicting_append_is_read_again_never_written_twice(store_url, step):
    """Another worker's append lands between this job's read and its append."""
    service = assemble(open_store(store_url), InlineQueue())
    store = leagues_of(service)
    original = store.append
    raced = []

    def append(league_id, expected, events, status):
        if events[0].type == step and not raced:
            raced.append(True)
            original(league_id, expected, events, status)  # the other worker's, first
        return original(league_id, expected, events, status)

    store.append = append
    lid = started(service, {"name": "Race", "game": "king-of-danger", "options": KOD,
                                   "format": "round-robin", "players": bots(service, 4)})["id"]
    assert raced
    once_each(service, lid)


class Died(BaseException):
    """A process killed: nothing catches it."""


def test_a_crash_right_after_a_close_loses_no_standings_notice(store_url):
    from referee.caller import Caller
    from referee.leagues import healing
    from referee.mail import outbox

    queue = Held()
    service = assemble(open_store(store_url), queue)
    ann = accounts.register(service, {"name": "Ann", "webhook": "https://hooks.example/ann"})
    store = leagues_of(service)
    original = store.append

    def append(league_id, expected, events, status):
        original(league_id, expected, events, status)
        if "round-closed" in [ev.type for ev in events] and not getattr(store, "died", False):
            store.died = True  # the close is in the log; the process dies before its notices
            raise Died()

    store.append = append
    lid = started(service, {"name": "Notes", "game": "king-of-danger", "options": KOD,
                                   "format": "round-robin", "players": [ann["id"]] + bots(service, 3)})["id"]
    mine = next(g for g in running.view(service, lid)["rounds"][0]["games"] if ann["id"] in g["seats"])
    for _ in range(500):
        summary = service.summary(mine["game"])
        if summary["status"] != "active":
            break
        seat = Caller(summary["to_act"][0])
        service.submit(mine["game"], seat, {"move": service.legal(mine["game"], seat)["moves"][0]})
    seat = mine["seats"].index(ann["id"])

    def notes():
        return [f"Standings after round {n['body']['league']['round']}"
                for n in outbox.outbox_of(service).of_game(mine["game"])
                if n["seat"] == seat and n["reason"] == "standings"]

    held = list(dict.fromkeys(queue.held))
    queue.held.clear()
    with pytest.raises(Died):
        for gid in held:
            running.game_ended(service, gid)
    assert "round-closed" in types(service, lid) and notes() == []
    healing.heal(service)  # as the next process's start: the close's notices queued
    assert notes() == ["Standings after round 1"]
    healing.heal(service)
    running.game_ended(service, held[-1])
    assert notes() == ["Standings after round 1"]  # once
