"""Referee jobs on real RQ workers against a real Redis: settling, duplicates,
and a worker killed in the middle of a job."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from referee.games.base import ADMIN, RefereeError
from referee.queue import InlineQueue, RQQueue
from referee.service import Caller
from referee.store import open_store
from referee.system import assemble


def worker(store: str, queue: str, burst: bool = True, **kw) -> subprocess.Popen:
    env = {**os.environ, "REFEREE_STORE": store, "REFEREE_QUEUE": queue}
    args = [sys.executable, "-m", "referee.cli", "worker"] + (["--burst"] if burst else [])
    return subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True, **kw)


def run_burst(store: str, queue: str) -> str:
    proc = worker(store, queue)
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 0, out.decode()
    return out.decode()


def types(svc, gid) -> list[str]:
    return [json.loads(ln)["type"] for ln in svc.export(gid, Caller(ADMIN)).splitlines()]


def play_until_settling(svc, gid, rnd, limit=200):
    answer = None
    for _ in range(limit):
        s = svc.summary(gid)
        if s["status"] != "active":
            # the move that set the step off says so, at the version before the step
            assert answer is not None and (answer["status"], answer["version"]) == (s["status"], s["version"])
            return s
        seat = s["to_act"][0]
        legal = [m for m in svc.legal(gid, Caller(seat))["moves"] if m["type"] != "resign"]
        answer = svc.submit(gid, Caller(seat), {"move": rnd.choice(legal)})
    raise AssertionError("no referee step came due")


def children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    stat = fh.read()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry))
    return out


def wait_gone(pid: int) -> None:
    deadline = time.time() + 10
    while os.path.exists(f"/proc/{pid}") and time.time() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as fh:
                if fh.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return
        except OSError:
            return
        time.sleep(0.02)


@pytest.fixture
def rq_service(redis_url):
    return assemble(open_store(redis_url), RQQueue(redis_url)), redis_url


def test_a_game_settles_on_a_real_worker(rq_service):
    svc, url = rq_service
    created = svc.create("king-of-danger", ["a", "b"], {"seed": "w1"})
    gid = created["id"]
    # the deal is the worker's: the answer says so, and names the version before it
    assert (created["version"], created["status"]) == (1, "settling")
    s = svc.summary(gid)
    assert s["status"] == "settling" and s["to_act"] == [] and s["version"] == 1
    with pytest.raises(RefereeError) as refused:
        svc.submit(gid, Caller(0), {"move": {"type": "play", "card": "W1"}})
    assert refused.value.code == "settling" and refused.value.status == 409
    assert svc.legal(gid, Caller(1))["moves"] == []
    run_burst(url, url)
    s = svc.summary(gid)
    assert s["status"] == "active" and types(svc, gid) == ["game-created", "hand-dealt"]
    # a whole hand, then its scoring and the next deal, by the worker again
    s = play_until_settling(svc, gid, random.Random(7))
    assert s["status"] == "settling"
    run_burst(url, url)
    t = types(svc, gid)
    assert t.count("hand-dealt") == 2 and "hand-scored" in t
    assert svc.summary(gid)["status"] == "active"


def test_duplicated_and_retried_jobs_append_once(rq_service):
    svc, url = rq_service
    gid = svc.create("king-of-danger", ["a", "b", "c"], {"seed": "w2"})["id"]
    for _ in range(3):
        svc.queue.enqueue_settle(gid, 1)  # the same job id again
        svc.queue.enqueue_settle(gid, 1, force=True)  # fresh ids: true duplicates
    run_burst(url, url)
    assert types(svc, gid) == ["game-created", "hand-dealt"]
    assert svc.settle(gid) == 0  # and once more in-process: nothing is due


def test_a_worker_killed_mid_job_loses_nothing_and_writes_nothing_twice(redis_url, tmp_path):
    """The store is SQLite, the queue Redis. The test holds SQLite's write lock so
    the job blocks on its append; the worker is killed -9 right there; the lock is
    released; a new worker finds the game still settling and finishes the step."""
    store = f"sqlite:///{tmp_path}/kill.db"
    svc = assemble(open_store(store), RQQueue(redis_url))
    gid = svc.create("king-of-danger", ["a", "b"], {"seed": "w3"})["id"]
    assert svc.summary(gid)["status"] == "settling"

    blocker = sqlite3.connect(f"{tmp_path}/kill.db", isolation_level=None)
    blocker.execute("BEGIN EXCLUSIVE")
    proc = worker(store, redis_url, burst=False)
    from rq import Queue
    from rq.registry import StartedJobRegistry

    started = StartedJobRegistry(queue=Queue("referee", connection=svc.queue.redis))
    deadline = time.time() + 60
    while not started.get_job_ids():
        assert time.time() < deadline, "the worker never started the job"
        time.sleep(0.05)
    time.sleep(0.5)  # the job has read the log and waits for the write lock
    # The job runs in the worker process itself (no fork per job); should a work
    # horse be there (a forking worker class), it has a session of its own: kill each.
    horses = children(proc.pid)
    for pid in [proc.pid] + horses:
        os.kill(pid, signal.SIGKILL)
    proc.wait(10)
    for pid in horses:
        wait_gone(pid)
    blocker.execute("ROLLBACK")
    blocker.close()

    svc.forget()
    assert types(svc, gid) == ["game-created"]
    assert svc.summary(gid)["status"] == "settling"
    out = run_burst(store, redis_url)
    assert "queued again" in out, out
    assert types(svc, gid) == ["game-created", "hand-dealt"]
    assert svc.summary(gid)["status"] == "active"
    assert svc.audit(svc.export(gid, Caller(ADMIN)))["valid"]


def test_a_lost_inline_step_is_done_on_the_next_read(store_url):
    """Embedded mode: if the process died between a move's append and its step,
    the next request for the game does the step."""

    class Dropped(InlineQueue):  # the process "died" before the job ran
        def enqueue_settle(self, *a, **kw):
            pass

    dead = assemble(open_store(store_url), Dropped())
    gid = dead.create("king-of-danger", ["a", "b"], {"seed": "w4"})["id"]
    assert dead.summary(gid)["status"] == "settling"
    alive = assemble(open_store(store_url), InlineQueue())
    s = alive.summary(gid)
    assert alive.summary(gid)["status"] == "active", s
    assert types(alive, gid) == ["game-created", "hand-dealt"]


def test_a_lost_inline_step_is_done_before_the_next_move(store_url):
    """Same fault, and the first request after it is a move: the step is done
    first, then the move is judged on the dealt game (no 409 settling)."""

    class Dropped(InlineQueue):
        def enqueue_settle(self, *a, **kw):
            pass

    dead = assemble(open_store(store_url), Dropped())
    gid = dead.create("king-of-danger", ["a", "b"], {"seed": "w5"})["id"]
    alive = assemble(open_store(store_url), InlineQueue())
    answer = alive.submit(gid, Caller(1), {"move": {"type": "resign"}})
    # the resignation is event 3; the answer's version counts the seed's reveal after it
    assert [e["seq"] for e in answer["events"]] == [3]
    assert (answer["version"], answer["status"]) == (4, "finished")
    assert types(alive, gid)[:3] == ["game-created", "hand-dealt", "resigned"]


def test_a_live_games_step_goes_ahead_of_a_start_up_sweep(rq_service):
    """Many games left settling by a crash are queued again by a worker's sweep;
    a game created after that is played live, and its deal is taken before any of
    the sweep's jobs (they wait on the low queue, `referee-sweep`)."""
    from rq.job import Job
    from rq.registry import FinishedJobRegistry

    svc, url = rq_service

    class Lost(RQQueue):  # the process died before these steps were queued
        def enqueue_settle(self, *a, **kw):
            pass

    dead = assemble(open_store(url), Lost(url))
    left = [dead.create("king-of-danger", ["a", "b"], {"seed": f"s{i}"})["id"] for i in range(25)]
    assert svc.sweep() == 25

    def steps(rq_queue):  # the referee's steps (the live queue holds other reactions' jobs too)
        return [j for j in rq_queue.jobs if j.func_name == "workers.jobs.settle"]

    assert len(steps(svc.queue.sweep_rq)) == 25 and steps(svc.queue.rq) == []
    live = svc.create("king-of-danger", ["a", "b"], {"seed": "live"})["id"]
    assert [j.args for j in steps(svc.queue.rq)] == [(live,)]
    run_burst(url, url)  # its own start-up sweep queues all 26 once more, behind the live job
    for gid in left + [live]:
        assert svc.summary(gid)["status"] == "active"
    conn = svc.queue.redis
    finished = {name: [j for j in Job.fetch_many(FinishedJobRegistry(name, connection=conn).get_job_ids(),
                                                 connection=conn) if j.func_name == "workers.jobs.settle"]
                for name in ("referee", "referee-sweep")}
    [live_job] = finished["referee"]
    assert live_job.args == (live,)
    swept = finished["referee-sweep"]
    assert len(swept) == 25 + 26 and {j.origin for j in swept} == {"referee-sweep"}
    assert all(live_job.ended_at <= j.started_at for j in swept)
