"""What the transparency log costs, and how its proofs scale.

1. **Moves with integration running.** Accepted moves/s of one referee in this
   process with its transparency reaction following every append and a sequencer
   integrating the events as they come, against the same referee with the
   reaction taken out of its followers (nothing noted, nothing integrated).
   Goal: with / without >= 0.95, on each store. SQLite: the embedded queue, whose
   sequencer is a thread of this process, woken by the reaction. Redis: the RQ
   queue, as deployed (the reaction notes the game in Redis and queues the
   ``transparency`` job at most once every two seconds), and the sequencer a
   thread of this process too (as ``referee worker`` runs it), so its work
   competes with the moves for this process's time: the stricter figure. Each
   side of a round plays the same moves (``benchmarks/run.py``'s
   ``peaceful_moves``) on a fresh Castle Danger game, as the API does a move
   (the caller from the seat's token, then ``submit``); interleaved rounds, the
   side going first alternating, the figure the median of the per-round ratios.
2. **Inclusion proofs at a million leaves.** The time of an inclusion proof
   asked of the API app in process (``GET /v1/transparency/proof/inclusion``
   handed to the app's WSGI front, no socket: the leaf's index looked up, the
   proof's hashes read from the stored subtrees and folded, the answer made) in a
   tree of 1,000,000 leaves against one of 1,000, random leaves, interleaved.
   Goal: <= 2. Shown beside it, not a goal: the proof alone
   (``TransparencyLog.inclusion``), where SQLite's figure is about 2: a proof
   reads about 25 stored subtrees at a million leaves against 14 at a thousand,
   and the small tree's pages all sit in SQLite's cache, the big one's not.

    PYTHONPATH=. python benchmarks/transparency.py [--rounds 81] [--moves 150] [--leaves 1000000] [--samples 2000] [--store sqlite|redis]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = str(Path(__file__).resolve().parent.parent)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

GAME = "castle-danger"
SEED = "bench"
MOVES_GOAL = 0.95
PROOF_GOAL = 2.0


# ---- 1. moves with integration running ---------------------------------------------------

class Bench:
    def __init__(self, url: str, plan: list, rq: bool):
        from referee.queue import InlineQueue, RQQueue
        from referee.store import open_store
        from referee.system import assemble

        self.service = assemble(open_store(url), RQQueue(url) if rq else InlineQueue())
        self.tlog = self.service.transparency
        if rq:
            self.tlog.sequencer(sweep_every=5.0)  # as `referee worker` runs it, here
        self.plan = plan
        self.followers = self.service.followers._reactions
        self.assembled = list(self.followers)
        self.bare = [(n, r) for n, r in self.assembled if n != "transparency"]
        assert len(self.bare) == len(self.assembled) - 1

    def game(self) -> tuple[str, list[str]]:
        made = self.service.create(GAME, ["Ann", "Bob"], {"seed": SEED})
        self.service.settle(made["id"])
        return made["id"], [s["token"] for s in made["seats"]]

    def play(self, integrated: bool) -> float:
        self.followers[:] = self.assembled if integrated else self.bare
        try:
            gid, tokens = self.game()
            service = self.service
            start = time.perf_counter()
            for seat, move in self.plan:
                service.submit(gid, service.caller(gid, tokens[seat], kept=True), {"move": move})
            return time.perf_counter() - start
        finally:
            self.followers[:] = self.assembled


STORES = ("sqlite", "redis")


def moves_section(rounds: int, moves: int, redis_url: str, stores=STORES) -> dict[str, float]:
    from benchmarks.run import med, peaceful_moves

    plan = peaceful_moves(2 * moves, SEED)[2][:moves]
    work = tempfile.mkdtemp(prefix="referee-tlog-bench-")
    out = {}
    print(f"  moves/s with the transparency log integrating / without it, in process, "
          f"median of {rounds} interleaved rounds of {len(plan)} moves (goal >= {MOVES_GOAL}):")
    for name, url, rq in (("sqlite", f"sqlite:///{work}/tlog.db", False),
                          ("redis", redis_url.replace("/0", "/8"), True)):
        if name not in stores:
            continue
        bench = Bench(url, plan, rq)
        for side in (True, False):
            bench.play(side)  # warm
        ratios, rates = [], {True: [], False: []}
        for k in range(rounds):
            got = {}
            for side in ((True, False) if k % 2 == 0 else (False, True)):
                got[side] = len(plan) / bench.play(side)
                rates[side].append(got[side])
            ratios.append(got[True] / got[False])
        tree = bench.tlog.tree
        bench.tlog.integrate()
        integrated = tree.size()
        ratio = out[name] = med(ratios)
        print(f"    {name:6} with {med(rates[True]):7.1f}, without {med(rates[False]):7.1f} moves/s: "
              f"{ratio:5.3f} ({'met' if ratio >= MOVES_GOAL else 'NOT met'}); {integrated} leaves integrated")
        thread = bench.tlog._thread
        if thread is not None:
            thread.stop()
    return out


# ---- 2. inclusion proofs at a million leaves ---------------------------------------------

def grown(tree, leaves: int, batch: int) -> None:
    """``leaves`` leaves of one log "g" (seq 1, 2, ...) written straight into ``tree``."""
    from referee.transparency import merkle

    size = tree.size()
    while size < leaves:
        n = min(batch, leaves - size)
        rows = [("g", size + i + 1, f"g\n{size + i + 1}\n{'%064x' % (size + i)}") for i in range(n)]
        nodes = merkle.appended(size, [merkle.leaf_hash(d.encode()) for _, _, d in rows], tree)
        assert tree.integrate(size, rows, nodes, {"g": size + n}, {})
        size += n


def _recorder(statuses: list[str]):
    def start_response(status, headers, exc_info=None):
        statuses.append(status)
    return start_response


def proofs_section(leaves: int, samples: int, redis_url: str, stores=STORES) -> dict[str, float]:
    from werkzeug.test import EnvironBuilder

    from benchmarks.run import med
    from referee.api import create_app
    from referee.store import open_store
    from referee.system import assemble

    work = tempfile.mkdtemp(prefix="referee-tlog-proofs-")
    out = {}
    print(f"  inclusion proof time, {leaves:,} leaves / 1,000 leaves, median of {samples} random leaves each, "
          f"interleaved (goal <= {PROOF_GOAL}, asked of the API app in process):")
    for name, urls in (("sqlite", (f"sqlite:///{work}/small.db", f"sqlite:///{work}/big.db")),
                       ("redis", (redis_url.replace("/0", "/9"), redis_url.replace("/0", "/10")))):
        if name not in stores:
            continue
        trees = []
        for url, n in zip(urls, (1000, leaves), strict=True):
            service = assemble(open_store(url))
            tlog = service.transparency
            start = time.perf_counter()
            grown(tlog.tree, n, 20_000 if name == "redis" else 100_000)
            built = time.perf_counter() - start
            tlog.publish()
            trees.append((n, tlog, create_app(service).wsgi_app, built))
        rnd = random.Random(1)
        api: dict[int, list[float]] = {1000: [], leaves: []}
        bare: dict[int, list[float]] = {1000: [], leaves: []}
        statuses: list[str] = []
        start_response = _recorder(statuses)

        for _ in range(samples):
            for n, tlog, front, _ in (trees if rnd.random() < 0.5 else trees[::-1]):
                seq = rnd.randint(1, n)
                env = EnvironBuilder(path="/v1/transparency/proof/inclusion",
                                     query_string={"game": "g", "seq": seq, "size": n}).get_environ()
                t = time.perf_counter()
                b"".join(front(env, start_response))
                api[n].append(time.perf_counter() - t)
                t = time.perf_counter()
                tlog.inclusion("g", rnd.randint(1, n), n)
                bare[n].append(time.perf_counter() - t)
        assert all(st.startswith("200") for st in statuses), statuses[:3]
        ratio = out[name] = med(api[leaves]) / med(api[1000])
        shown = med(bare[leaves]) / med(bare[1000])
        print(f"    {name:6} {med(api[1000]) * 1e6:7.1f} us at 1,000, {med(api[leaves]) * 1e6:7.1f} us at "
              f"{leaves:,}: {ratio:4.2f} ({'met' if ratio <= PROOF_GOAL else 'NOT met'}); the proof alone "
              f"(TransparencyLog.inclusion, no HTTP): {med(bare[1000]) * 1e6:.1f} and {med(bare[leaves]) * 1e6:.1f} us, "
              f"{shown:4.2f}, shown only; the big tree built in {trees[1][3]:.0f} s")
    return out


def section(rounds: int, moves: int, leaves: int, samples: int, redis_url: str | None = None,
            stores=STORES) -> dict:
    from benchmarks.run import start_redis

    proc = None
    if redis_url is None:
        proc, redis_url = start_redis(tempfile.mkdtemp(prefix="referee-tlog-redis-"))
    try:
        return {"moves": moves_section(rounds, moves, redis_url, stores) if rounds else {},
                "proofs": proofs_section(leaves, samples, redis_url, stores) if samples else {}}
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(20)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=81, help="interleaved rounds of moves (0: none)")
    ap.add_argument("--moves", type=int, default=150, help="moves of each side of a round")
    ap.add_argument("--leaves", type=int, default=1_000_000, help="the big tree's leaves")
    ap.add_argument("--samples", type=int, default=2000, help="proofs timed in each tree (0: none)")
    ap.add_argument("--store", choices=STORES, action="append", help="only this store (may be given again)")
    args = ap.parse_args(argv)
    print("transparency log")
    section(args.rounds, args.moves, args.leaves, args.samples, stores=args.store or STORES)


if __name__ == "__main__":
    main()
