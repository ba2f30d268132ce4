"""A player's profile read when seated in 2,000 running games against one seated in 10.

Two stores side by side: on one, a player holds a seat in 2,000 games that have not
ended (half of them with a clock, about half waiting on the player's move); on the
other, a player holds a seat in 10 such games. Each round reads, on each store in
turn, the profile (`GET /v1/players/{id}`) and the player's own (`GET
/v1/players/me`, with the games waiting on them) through the app, as a client
would; the figures are the medians of the per-round ratios. Shown only, no goal:
a profile pages its current games (50 a page) and `me` shows at most 50 waiting,
so what grows with the games is one read of the player's index and of the games'
listing columns for all of them (a few µs a game), never a game's log, record or
summary beyond the page's; before the page, both read every game (ratios of 270
and 57 on the same machine).

    PYTHONPATH=. python benchmarks/current_games.py [--games 2000] [--store sqlite|redis://...]

The games are created through the service (dealt, indexed as any game is), not played.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

GAME = "king-of-danger"


def build(url: str | None, games: int):
    """A service on a fresh store whose player holds a seat in ``games`` running games;
    returns (app's test client, the player's id, the player's token)."""
    from referee.api import create_app
    from referee.players import accounts
    from referee.queue import InlineQueue
    from referee.store import open_store
    from referee.system import assemble

    if url is None:
        url = f"sqlite:///{tempfile.mkdtemp(prefix='referee-current-bench-')}/games.db"
    service = assemble(open_store(url), InlineQueue())
    star = accounts.register(service, {"name": "Star"})
    for g in range(games):
        options = {"clock": {"move_seconds": 86400 + g}} if g % 2 else {}
        seats = [{"player": star["id"]}, f"Opponent {g}"]  # seat 1 leads: every other pair waits on the star
        service.create(GAME, seats[::-1] if g // 2 % 2 else seats, options)
    app = create_app(service)
    app.testing = True
    return app.test_client(), star["id"], star["token"]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=21)
    ap.add_argument("--reads", type=int, default=20, help="reads per round, store and path")
    ap.add_argument("--store", default="sqlite", help="sqlite (a temporary file) or a redis:// URL "
                                                     "(two databases of it are flushed: DB and DB+1)")
    args = ap.parse_args(argv)
    os.environ.setdefault("REFEREE_SQLITE_SYNC", "normal")  # filling the store, not measuring its fsync
    big_url = small_url = None
    if args.store != "sqlite":
        import redis

        base, _, db = args.store.rpartition("/")
        big_url, small_url = args.store, f"{base}/{int(db or 0) + 1}"
        for u in (big_url, small_url):
            redis.Redis.from_url(u).flushdb()
    start = time.perf_counter()
    big = build(big_url, args.games)
    small = build(small_url, 10)
    print(f"filled in {time.perf_counter() - start:.0f} s: {args.games} current games against 10", flush=True)
    for client, pid, token in (big, small):
        profile = client.get(f"/v1/players/{pid}")
        me = client.get("/v1/players/me", headers={"Authorization": f"Bearer {token}"})
        assert profile.status_code == 200 and me.status_code == 200, (profile.json, me.json)
        print(f"{len(profile.data) / 1024:.1f} KiB profile ({len(profile.json['current_games'])} games shown), "
              f"{len(me.data) / 1024:.1f} KiB me ({len(me.json['waiting'])} waiting shown)", flush=True)

    def timed(side, path) -> float:
        client, pid, token = side
        url, headers = (f"/v1/players/{pid}", {}) if path == "profile" else \
            ("/v1/players/me", {"Authorization": f"Bearer {token}"})
        t = time.perf_counter()
        for _ in range(args.reads):
            client.get(url, headers=headers)
        return (time.perf_counter() - t) / args.reads

    for path in ("profile", "me"):
        ratios, longs, shorts = [], [], []
        for k in range(args.rounds):
            if k % 2:  # each side goes first in every other round
                short_read, long_read = timed(small, path), timed(big, path)
            else:
                long_read, short_read = timed(big, path), timed(small, path)
            longs.append(long_read)
            shorts.append(short_read)
            ratios.append(long_read / short_read)
        ratio = statistics.median(ratios)
        print(f"{path} read: {statistics.median(longs) * 1e3:.2f} ms with {args.games} current games, "
              f"{statistics.median(shorts) * 1e3:.2f} ms with 10")
        print(f"{path} ratio {ratio:.2f} (shown only)", flush=True)


if __name__ == "__main__":
    main()
