"""What following games costs moves: accepted moves/s with the player layer's
reactions subscribed (each player's index of current games, the ratings reaction)
against the same referee without them.

Two referees side by side, each on a SQLite file of its own, as `referee serve`
assembles them (``referee.system.assemble``; the other with ``players=False``).
Each round plays the same moves of a fresh Castle Danger game between two
registered players (seats ``{"player": ID}``) through ``GameService.submit`` on
each referee in turn (the side that goes first alternates); the figure is the
median of the per-round ratios. Goal: ≥ 0.97.

    PYTHONPATH=. python benchmarks/players_follow.py [--rounds 31] [--moves 400]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time

GAME = "castle-danger"
SEED = "bench"


def moves(n: int) -> list:
    from benchmarks.run import peaceful_moves

    return peaceful_moves(n, SEED)[2]


def referee(players: bool):
    from referee.players import accounts
    from referee.queue import InlineQueue
    from referee.store import open_store
    from referee.system import assemble

    url = f"sqlite:///{tempfile.mkdtemp(prefix='referee-follow-bench-')}/referee.db"
    service = assemble(open_store(url), InlineQueue(), players=players)
    ids = [accounts.register(service, {"name": n})["id"] for n in ("Ann", "Bob")]
    return service, ids


def play(service, ids, plan) -> float:
    """Seconds to have every move of ``plan`` accepted on a fresh game."""
    from referee.caller import Caller

    gid = service.create(GAME, [{"player": p} for p in ids], {"seed": SEED})["id"]
    service.settle(gid)
    start = time.perf_counter()
    for seat, move in plan:
        service.submit(gid, Caller(seat), {"move": move})
    return time.perf_counter() - start


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=31)
    ap.add_argument("--moves", type=int, default=400)
    args = ap.parse_args(argv)
    plan = moves(args.moves)
    sides = {"with": referee(True), "without": referee(False)}
    assert "ratings" in sides["with"][0].followers.names
    assert "ratings" not in sides["without"][0].followers.names
    for service, ids in sides.values():  # warm both: imports, caches, the file's first pages
        play(service, ids, plan[:50])
    rates: dict[str, list[float]] = {"with": [], "without": []}
    ratios = []
    for k in range(args.rounds):
        order = ("with", "without") if k % 2 == 0 else ("without", "with")
        got = {}
        for name in order:
            got[name] = len(plan) / play(*sides[name], plan)
            rates[name].append(got[name])
        ratios.append(got["with"] / got["without"])
    ratio = statistics.median(ratios)
    print(f"accepted moves/s, median of {args.rounds} interleaved rounds of {len(plan)} moves (sqlite, inline):")
    print(f"  with the player layer {statistics.median(rates['with']):7.1f}   "
          f"without {statistics.median(rates['without']):7.1f}")
    print(f"ratio {ratio:.3f} (goal ≥ 0.97): {'met' if ratio >= 0.97 else 'NOT met'}")


if __name__ == "__main__":
    main()
