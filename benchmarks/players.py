"""A player's profile read with a long history against one with a short one.

Two stores side by side: one holding 10,000 players and 100,000 recorded rated
games (the profile read belongs to a player who played a tenth of them), and one
holding 10 games. Each round reads the profile (`GET /v1/players/{id}` through the
app, as a client would) on each store, in turn; the figure is the median of the
per-round ratios. Goal: ≤ 1.1, since a profile reads per-player aggregates, never
the history (which is paged).

    PYTHONPATH=. python benchmarks/players.py [--players 10000] [--games 100000] [--store sqlite|redis://...]

The games are recorded straight into the player store (the plan a rated game
writes, OpenSkill's numbers included), not played: playing 100,000 games would
measure the games, not the profile.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
import time

GAME = "king-of-danger"


def build(url: str | None, players: int, games: int, rnd: random.Random):
    """A service on a fresh store with ``players`` players and ``games`` recorded
    games; returns (app's test client, the id of the player whose profile is read)."""
    from referee.api import create_app
    from referee.players import ratings
    from referee.players.store import players_of
    from referee.service import GameService, token_hash
    from referee.store import open_store

    if url is None:
        url = f"sqlite:///{tempfile.mkdtemp(prefix='referee-players-bench-')}/players.db"
    service = GameService(open_store(url))
    store = players_of(service)
    ids = [f"p{i:06d}" for i in range(players)]
    for pid in ids:
        store.create({"id": pid, "name": pid, "bot": None, "created": "2026-01-01T00:00:00Z"},
                     token_hash(pid), {}, None)
    star = ids[0]
    current: dict[str, dict] = {}
    for g in range(games):
        seats = rnd.sample(ids[1:], 2)
        if g % 10 == 0:  # the star plays a tenth of the games
            seats[0] = star
        out = {"id": f"g{g:07d}", "game": GAME, "players": seats, "stacked": False, "rated": True,
               "aborted": False, "ended_at": f"2026-01-01T00:00:00.{g:07d}Z",
               "result": {"winners": [rnd.randrange(2)], "reason": "bench", "scores": [0, 0]}}
        made = ratings.plan(out, {p: current.get(p) for p in seats})
        for entry in made["players"]:
            current[entry["player"]] = entry["after"]
        store.record(made, g)
    app = create_app(service)
    app.testing = True
    return app.test_client(), star


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, default=10_000)
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=21)
    ap.add_argument("--reads", type=int, default=200, help="profile reads per round and store")
    ap.add_argument("--store", default="sqlite", help="sqlite (a temporary file) or a redis:// URL "
                                                     "(two databases of it are flushed: DB and DB+1)")
    args = ap.parse_args(argv)
    os.environ.setdefault("REFEREE_SQLITE_SYNC", "normal")  # filling the store, not measuring its fsync
    rnd = random.Random(7)
    big_url = small_url = None
    if args.store != "sqlite":
        import redis

        base, _, db = args.store.rpartition("/")
        big_url, small_url = args.store, f"{base}/{int(db or 0) + 1}"
        for u in (big_url, small_url):
            redis.Redis.from_url(u).flushdb()
    start = time.perf_counter()
    big, big_id = build(big_url, args.players, args.games, rnd)
    small, small_id = build(small_url, 10, 10, rnd)
    print(f"filled in {time.perf_counter() - start:.0f} s: {args.players} players, {args.games} games "
          f"against 10 players, 10 games", flush=True)
    for client, pid in ((big, big_id), (small, small_id)):
        r = client.get(f"/v1/players/{pid}")
        assert r.status_code == 200, r.json
    print(f"the long history's player: {big.get(f'/v1/players/{big_id}').json['played']} games", flush=True)

    def timed(client, pid) -> float:
        path = f"/v1/players/{pid}"
        t = time.perf_counter()
        for _ in range(args.reads):
            client.get(path)
        return (time.perf_counter() - t) / args.reads

    ratios, longs, shorts = [], [], []
    for k in range(args.rounds):
        if k % 2:  # each side goes first in every other round
            short_read, long_read = timed(small, small_id), timed(big, big_id)
        else:
            long_read, short_read = timed(big, big_id), timed(small, small_id)
        longs.append(long_read)
        shorts.append(short_read)
        ratios.append(long_read / short_read)
    ratio = statistics.median(ratios)
    print(f"profile read: {statistics.median(longs) * 1e6:.0f} µs with {args.games} games, "
          f"{statistics.median(shorts) * 1e6:.0f} µs with 10")
    print(f"ratio {ratio:.2f} (goal ≤ 1.1): {'met' if ratio <= 1.1 else 'NOT met'}")


if __name__ == "__main__":
    main()
