"""What signed receipts cost an accepted move: moves/s of the referee signing a
receipt in every answer against the same referee signing none. Goal: with /
without >= 0.9, on each store.

**Over HTTP** (the goal): two servers side by side, each the referee as `referee
serve` builds it (benchmarks/receipts_app.py: ``referee.system.build``, the API
app with the move lane, the access log on), one signing and one not
(``service.receipts = None``: then the service signs nothing), both under the
same gunicorn set-up (gthread, one process, 8 threads) on stores of their own, and
``benchmarks/run.py``'s eight keep-alive clients each playing their own Castle
Danger game. Interleaved rounds, each side once per round and the side going
first alternating; the figure is the median of the per-round ratios. Many short
rounds, so that a busy moment of a shared host spoils few of them; the servers'
CPU per move (read from /proc) is printed beside, the steadier figure. SQLite as
deployed (an fsync per commit), Redis without persistence, as in run.py.

**In process** (shown only, the stricter figure): one referee per store, its
moves handed as WSGI requests to the app's front (the lane, which answers the
usual accepted move), their environs made before the clock starts, so the socket,
the HTTP parsing and (SQLite without its fsync) the disk are left out and a
receipt's share of what remains is at its largest. The same referee with its
receipts taken away for the moment is the other side; each side of a round plays
the same moves (``run.peaceful_moves``) on a fresh game, the side going first
alternating.

    PYTHONPATH=. python benchmarks/receipts.py [--rounds 9] [--seconds 2] [--lane-rounds 41] [--moves 150]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = str(Path(__file__).resolve().parent.parent)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

GAME = "castle-danger"
SEED = "bench"
GOAL = 0.9


class Bench:
    """One referee on ``url`` behind its API app, and the moves to play."""

    def __init__(self, url: str, plan: list):
        from referee.api import create_app
        from referee.queue import InlineQueue
        from referee.store import open_store
        from referee.system import assemble

        self.service = assemble(open_store(url), InlineQueue())
        self.app = create_app(self.service)
        self.front = self.app.wsgi_app  # the lane, in front of the app
        self.receipts = self.service.receipts
        self.plan = plan

    def game(self) -> tuple[str, list[str]]:
        made = self.service.create(GAME, ["Ann", "Bob"], {"seed": SEED})
        self.service.settle(made["id"])
        return made["id"], [s["token"] for s in made["seats"]]

    def requests(self, gid: str, tokens: list[str]) -> list[dict]:
        from werkzeug.test import EnvironBuilder

        return [EnvironBuilder(path=f"/v1/games/{gid}/moves", method="POST", data=json.dumps({"move": move}),
                               content_type="application/json",
                               headers={"Authorization": f"Bearer {tokens[seat]}"}).get_environ()
                for seat, move in self.plan]

    def play(self, signed: bool) -> tuple[float, int]:
        """Seconds to have the plan's moves accepted, and how many answers held a receipt."""
        self.service.receipts = self.receipts if signed else None
        environs = self.requests(*self.game())
        statuses, receipted = [], 0

        def start_response(status, headers):
            statuses.append(status)

        start = time.perf_counter()
        for env in environs:
            body = b"".join(self.front(env, start_response))
            receipted += b'"receipt"' in body
        took = time.perf_counter() - start
        self.service.receipts = self.receipts
        assert all(s.startswith("201") for s in statuses), statuses[:3]
        return took, receipted


def compare(bench: Bench, rounds: int) -> dict:
    rates: dict[str, list[float]] = {"with": [], "without": []}
    ratios = []
    for signed in (True, False):  # warm: imports, caches, the file's first pages, the key
        bench.play(signed)
    for k in range(rounds):
        order = (True, False) if k % 2 == 0 else (False, True)
        got = {}
        for signed in order:
            took, receipted = bench.play(signed)
            assert receipted == (len(bench.plan) if signed else 0)
            got[signed] = len(bench.plan) / took
            rates["with" if signed else "without"].append(got[signed])
        ratios.append(got[True] / got[False])
    return {"rates": rates, "ratios": ratios}


def in_process(rounds: int, moves: int, redis_url: str) -> dict[str, float]:
    """Measure and print each store's ratio in process, through the lane; {store: ratio}."""
    from benchmarks.run import med, peaceful_moves

    saved = {k: os.environ.get(k) for k in ("REFEREE_MOVE_RATE", "REFEREE_SQLITE_SYNC")}
    os.environ["REFEREE_MOVE_RATE"] = "1000000/minute"  # no side meets the limit
    # SQLite without an fsync per commit: a shared host's fsync (milliseconds, and
    # varying) would hide the signing's microseconds; the ratio is the stricter so
    os.environ["REFEREE_SQLITE_SYNC"] = "normal"
    plan = peaceful_moves(2 * moves, SEED)[2][:moves]
    work = tempfile.mkdtemp(prefix="referee-receipts-bench-")
    out = {}
    try:
        print(f"  in process, through the move lane (the socket and HTTP left out; SQLite without its fsync), "
              f"median of {rounds} interleaved rounds of {len(plan)} moves, shown only:")
        for name, url in (("sqlite", f"sqlite:///{work}/receipts.db"), ("redis", redis_url.replace("/0", "/7"))):
            bench = Bench(url, plan)
            got = compare(bench, rounds)
            ratio = out[name] = med(got["ratios"])
            print(f"    {name:6} with {med(got['rates']['with']):7.1f}, without {med(got['rates']['without']):7.1f} "
                  f"moves/s: {ratio:5.3f}")
            bench.service.store.close()
    finally:
        for k, v in saved.items():
            os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)
    return out


def serve(store_url: str, workdir: str, signed: bool):
    """benchmarks/receipts_app.py under gunicorn as `referee serve` runs the referee
    (gthread, one process, 8 threads, the access log on), signing or not."""
    import subprocess

    from benchmarks.run import CHILD_ENV, SERVER_ENV, free_port, wait_healthy

    port = free_port()
    env = {**CHILD_ENV, **SERVER_ENV, "REFEREE_STORE": store_url, "REFEREE_BENCH_UNSIGNED": "0" if signed else "1"}
    proc = subprocess.Popen([sys.executable, "-m", "gunicorn", "--chdir", str(Path(__file__).resolve().parent),
                             "-k", "gthread", "--threads", "8", "-w", "1", "-b", f"127.0.0.1:{port}",
                             "receipts_app:app"], cwd=workdir, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=env, start_new_session=True)
    wait_healthy(port)
    return proc, port


def over_http(rounds: int, seconds: float, redis_url: str) -> dict[str, float]:
    """Each store's moves/s over HTTP, 8 keep-alive clients, signing against not, in
    interleaved rounds (benchmarks/run.py's clients), the side going first
    alternating; {store: ratio}. Also the servers' CPU per move (read from /proc, as
    benchmarks/compare.py reads it), the steadier figure on a shared host."""
    from benchmarks.compare import cpu_seconds
    from benchmarks.run import http_round, med, peaceful_moves, stop, verdict

    _, _, moves = peaceful_moves(4000)
    work = tempfile.mkdtemp(prefix="referee-receipts-http-")
    out = {}
    print(f"  over HTTP, 8 keep-alive clients, gunicorn gthread 8 threads; median of {rounds} interleaved "
          f"round(s) of {seconds:g} s")
    for name, url_for in (("sqlite", lambda side: f"sqlite:///{work}/{side}.db"),
                          ("redis", lambda side: redis_url.replace("/0", "/5" if side == "with" else "/6"))):
        servers = {"with": serve(url_for("with"), work, True), "without": serve(url_for("without"), work, False)}
        got: dict[str, list[dict]] = {"with": [], "without": []}
        try:
            for k in range(rounds):
                for side in (("with", "without") if k % 2 == 0 else ("without", "with")):
                    proc, port = servers[side]
                    before = cpu_seconds(proc.pid)
                    r = http_round(port, 8, seconds, moves)
                    r["cpu"] = (cpu_seconds(proc.pid) - before) / max(1, r["accepted"])
                    got[side].append(r)
        finally:
            for proc, _ in servers.values():
                stop(proc)
        for side, rs in got.items():
            print(f"  {name:6} {side:7} {med([r['rate'] for r in rs]):8.1f} moves/s  p50 "
                  f"{med([r['p50'] for r in rs]) * 1e3:6.2f} ms  p99 {med([r['p99'] for r in rs]) * 1e3:6.2f} ms  "
                  f"server CPU {med([r['cpu'] for r in rs]) * 1e6:6.0f} us a move  "
                  f"({sum(r['refused'] for r in rs)} refused)")
        pairs = list(zip(got["with"], got["without"], strict=True))
        ratio = out[name] = med([a["rate"] / b["rate"] for a, b in pairs])
        cpu = med([b["cpu"] / a["cpu"] for a, b in pairs])
        print(f"  GOAL {name:6} moves/s with receipts / without: {ratio:5.3f}   (goal >= {GOAL:.2f}: "
              f"{verdict(ratio, GOAL)}); moves per server CPU second, with / without: {cpu:5.3f} (shown)")
    return out


def signature_cost(n: int = 2000, repeat: int = 7) -> dict[str, float]:
    """CPU µs of one receipt's signature as the referee signs it (OpenSSL through
    ``cryptography``), beside libsodium's (PyNaCl, which the tests check receipts
    with) for comparison: same key, same message, best of ``repeat`` interleaved
    tries; printed, shown only."""
    import base64
    import json

    from nacl.signing import SigningKey

    from referee.trust.keys import _key, _new
    from referee.trust.receipts import message

    kid, record = _new("2026-01-01T00:00:00.000000Z")
    key = _key(kid, record, None)
    sodium = SigningKey(base64.b64decode(json.loads(record)["private"]))
    msg = message("g" * 12, 123, "a" * 64, "2026-01-01T00:00:00.000000Z")
    best = {"openssl": float("inf"), "libsodium": float("inf")}
    sign = {"openssl": key.sign, "libsodium": sodium.sign}
    for _ in range(repeat):
        for name, f in sign.items():
            start = time.process_time()
            for _ in range(n):
                f(msg)
            best[name] = min(best[name], (time.process_time() - start) / n * 1e6)
    print(f"  one signature, CPU: OpenSSL (the referee's) {best['openssl']:5.1f} us, libsodium "
          f"{best['libsodium']:5.1f} us (shown)")
    return best


def section(rounds: int, seconds: float, lane_rounds: int, moves: int, redis_url: str | None = None) -> dict:
    """Both measures, printed; returns {"http": {store: ratio}, "in process": {...}}."""
    from benchmarks.run import start_redis

    proc = None
    if redis_url is None:
        proc, redis_url = start_redis(tempfile.mkdtemp(prefix="referee-receipts-redis-"))
    try:
        print("receipts: accepted moves/s with a signed receipt in every answer / the same referee signing none")
        signature_cost()
        return {"http": over_http(rounds, seconds, redis_url) if rounds else {},
                "in process": in_process(lane_rounds, moves, redis_url) if lane_rounds else {}}
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(10)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=9, help="HTTP rounds (each side once per round; 0: none)")
    ap.add_argument("--seconds", type=float, default=2, help="seconds of each HTTP round")
    ap.add_argument("--lane-rounds", type=int, default=41, help="in-process rounds (0: none)")
    ap.add_argument("--moves", type=int, default=150, help="moves of each in-process side")
    args = ap.parse_args(argv)
    section(args.rounds, args.seconds, args.lane_rounds, args.moves)


if __name__ == "__main__":
    main()
