"""A deadline survives anything: every process of the referee killed with -9
before a seat's deadline and started again after it, the timeout fires exactly
once and the game audits valid. Real processes (`referee serve`, `referee
worker`, redis-server) and a real five-second clock, so each test takes about
fifteen seconds."""

from __future__ import annotations

import os
import signal
import time

from tests.conftest import free_port
from tests.test_redis_faults import DurableRedis, call, spawn

CLOCK = {"move_seconds": 5, "remind_seconds": 0, "on_timeout": "forfeit"}


def kill(procs) -> None:
    for p in procs:
        try:
            os.killpg(p.pid, signal.SIGKILL)  # gunicorn's workers too
        except ProcessLookupError:
            pass
        p.wait(10)


# Seconds `referee serve` may take to answer: on a machine running the whole suite
# on two cores beside other work, starting a process is many times slower than alone.
START = 180


def wait_up(base: str, proc=None) -> bool:
    """Until ``base`` answers /healthz (True), or ``proc`` exits first (False)."""
    deadline = time.time() + START
    while True:
        try:
            if call(base, "GET", "/healthz")[0] == 200:
                return True
        except OSError:
            pass
        if proc is not None and proc.poll() is not None:
            return False
        assert time.time() < deadline, f"referee serve did not answer within {START} s"
        time.sleep(0.1)


def serve(env: dict):
    """`referee serve` on a free port, answering: (the process, its base URL). A
    server that exits before it answers (its port taken meanwhile by another test's
    server: ports are free when picked, not kept) is started again on another."""
    exits = []
    for _ in range(3):
        port = free_port()
        proc = spawn("serve", "--port", str(port), "--threads", "4", env=env)
        if wait_up(f"http://127.0.0.1:{port}", proc):
            return proc, f"http://127.0.0.1:{port}"
        exits.append(proc.returncode)
    raise AssertionError(f"referee serve exited before answering, three times: {exits}")


def export(base: str, gid: str, admin: str) -> str:
    import urllib.request

    req = urllib.request.Request(f"{base}/v1/games/{gid}/export", headers={"Authorization": f"Bearer {admin}"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return r.read().decode()


def run_around_a_deadline(env: dict, roles: list[list[str]]) -> None:
    env = {**env, "REFEREE_KEEPER_INTERVAL": "0.2"}

    def start() -> tuple[list, str]:
        server, base = serve(env)
        return [server] + [spawn(*args, env=env) for args in roles], base

    procs, base = start()
    try:
        status, created = call(base, "POST", "/v1/games", {
            "game": "castle-danger", "players": ["Ann", "Bob"], "options": {"clock": CLOCK}})
        assert status == 201, created
        gid, admin = created["id"], created["admin_token"]
        deadline = call(base, "GET", f"/v1/games/{gid}")[1]["deadline"]
        assert deadline is not None
        time.sleep(1)
        kill(procs)  # every process gone, four seconds before the deadline
        time.sleep(5)  # the deadline passes while nothing runs
        procs, base = start()
        finish = time.time() + 30
        while call(base, "GET", f"/v1/games/{gid}")[1]["status"] != "finished":
            assert time.time() < finish, "the timeout did not fire after the restart"
            time.sleep(0.2)
        kill(procs)  # and once more, right after it fired: it never fires again
        procs, base = start()
        time.sleep(2)  # several keeper rounds
        log = export(base, gid, admin)
    finally:
        kill(procs)
    import json

    from referee import audit

    events = [json.loads(line) for line in log.splitlines()]
    types = [e["type"] for e in events]
    assert types.count("seat-timed-out") == 1 and types.count("forfeited") == 1, types
    timed_out = next(e for e in events if e["type"] == "seat-timed-out")
    assert timed_out["payload"]["deadline"] == deadline and timed_out["at"] >= deadline
    report = audit.audit(log)
    assert report["valid"] and report["seed"] == "verified", report


def test_embedded_serve_killed_before_a_deadline_fires_it_once_after(tmp_path):
    run_around_a_deadline({**os.environ, "REFEREE_STORE": f"sqlite:///{tmp_path}/referee.db"}, [])


def test_serve_and_worker_killed_before_a_deadline_fire_it_once_after(tmp_path):
    store = DurableRedis(tmp_path)
    try:
        run_around_a_deadline({**os.environ, "REFEREE_STORE": store.url}, [["worker"]])
    finally:
        store.kill()


def test_a_worker_killed_again_and_again_across_a_deadline_fires_it_once(tmp_path):
    """The worker is killed with -9 every few tenths of a second from just before
    the deadline until just after it, so some kills land in the middle of the
    tick job or of the autoplayed move's settle job: one timeout, one move."""
    import json
    import random

    from referee import audit

    store = DurableRedis(tmp_path)
    env = {**os.environ, "REFEREE_STORE": store.url, "REFEREE_KEEPER_INTERVAL": "0.1"}
    server, base = serve(env)
    workers = [spawn("worker", env=env)]
    try:
        status, created = call(base, "POST", "/v1/games", {
            "game": "castle-danger", "players": ["Ann", "Bob"],
            "options": {"clock": {**CLOCK, "on_timeout": "autoplay"}}})
        assert status == 201, created
        gid, admin = created["id"], created["admin_token"]
        version = call(base, "GET", f"/v1/games/{gid}")[1]["version"]
        rnd = random.Random(5)
        time.sleep(3.5)  # 1.5 s before the deadline
        until = time.time() + 4
        while time.time() < until:
            time.sleep(rnd.uniform(0.1, 0.5))
            kill(workers)
            workers = [spawn("worker", env=env)]
        finish = time.time() + 30
        while call(base, "GET", f"/v1/games/{gid}")[1]["version"] < version + 2:
            assert time.time() < finish, "the timeout or its move did not happen"
            time.sleep(0.2)
        time.sleep(1.5)
        log = export(base, gid, admin)
    finally:
        kill(workers + [server])
        store.kill()
    events = [json.loads(line) for line in log.splitlines()]
    after = events[version:]
    assert [e["type"] for e in after][:1] == ["seat-timed-out"]
    assert sum(e["type"] == "seat-timed-out" for e in events) == 1
    seat = after[0]["payload"]["seat"]
    assert after[1]["actor"] == seat and "move" in after[1]["payload"]  # the one autoplayed move
    assert len([e for e in after if e["actor"] == seat and "move" in e["payload"]]) == 1
    report = audit.audit(log)
    assert report["valid"], report
