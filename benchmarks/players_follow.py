"""What following games costs moves: accepted moves/s with the player layer's
reactions subscribed (each player's index of current games, the ratings reaction)
against the same referee without them.

One referee on a SQLite file, as `referee serve` assembles it
(``referee.system.assemble``), measured with its followers as assembled and with
the player layer's two reactions taken out of them (the same store, caches and
process: only the subscription differs; two referees side by side differed by up
to 20 % either way with nothing different in them, on a shared host). Each round
plays the same moves of a fresh Castle Danger game between two registered players
(seats ``{"player": ID}``) through ``GameService.submit``, once each way (the side
that goes first alternates); the figure is the median of the per-round ratios.
Goal: ≥ 0.97.

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


def referee():
    from referee.players import accounts
    from referee.queue import InlineQueue
    from referee.store import open_store
    from referee.system import assemble

    url = f"sqlite:///{tempfile.mkdtemp(prefix='referee-follow-bench-')}/referee.db"
    service = assemble(open_store(url), InlineQueue())
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
    service, ids = referee()
    followers = service.followers._reactions  # the followers as assembled, in order
    spent = [0.0]  # seconds inside the player layer's reactions, in the rounds with them

    def timed(reaction):
        def inner(appended):
            t = time.perf_counter()
            reaction(appended)
            spent[0] += time.perf_counter() - t
        return inner

    followers[:] = [(n, timed(r) if n in ("player-seats", "ratings") else r) for n, r in followers]
    sides = {"with": list(followers),
             "without": [(n, r) for n, r in followers if n not in ("player-seats", "ratings")]}
    assert len(sides["without"]) == len(sides["with"]) - 2
    play(service, ids, plan[:50])  # warm: imports, caches, the file's first pages
    rates: dict[str, list[float]] = {"with": [], "without": []}
    ratios = []
    for k in range(args.rounds):
        order = ("with", "without") if k % 2 == 0 else ("without", "with")
        got = {}
        for name in order:
            followers[:] = sides[name]
            got[name] = len(plan) / play(service, ids, plan)
            rates[name].append(got[name])
        ratios.append(got["with"] / got["without"])
    followers[:] = sides["with"]
    ratio = statistics.median(ratios)
    per_move = spent[0] / (args.rounds * len(plan))
    print(f"accepted moves/s, median of {args.rounds} interleaved rounds of {len(plan)} moves (sqlite, inline):")
    print(f"  with the player layer {statistics.median(rates['with']):7.1f}   "
          f"without {statistics.median(rates['without']):7.1f}")
    print(f"  the player layer's reactions: {per_move * 1e6:.1f} µs a move "
          f"({per_move * statistics.median(rates['with']) * 100:.2f} % of a move's time)")
    print(f"ratio {ratio:.3f} (goal ≥ 0.97): {'met' if ratio >= 0.97 else 'NOT met'}")


if __name__ == "__main__":
    main()
