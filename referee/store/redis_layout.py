"""Stores written before the shared indexes were split by hash (referee/store/
buckets.py): their single listing and deadline index are moved into the buckets
when a process starts.

Each entry is moved on its own, from the game's own record (the truth: status,
version, timer), then removed from the old key, so the move is idempotent and safe
with several processes starting at once: two processes moving the same entry put
the same thing twice (the buckets' writes are tagged with the game's version and
never go back), and each removes it once. A process of the version before, still
running during an upgrade, may write the old keys again: the next start moves
what it wrote. With nothing left in the old keys a start costs one round trip.
"""

from __future__ import annotations

OLD_GAMES = "referee:games"  # before 0.2.0: every game id, scored by creation time
OLD_GAMES_DONE = "{referee:list}:migrated"
OLD_LIST = "{referee:list}:"  # 0.2.0's listing: one set for all, one per status, in one slot
OLD_STATUSES = ("active", "settling", "finished", "aborted")
OLD_TIMERS = "{referee:timers}:"  # 0.2.0's deadline index: one set, one hash of versions
BATCH = 500


def move_old_layout(store) -> int:
    """Move every entry of the old listing and deadline index into the buckets.
    Returns how many entries were moved."""
    r = store.r
    pipe = r.pipeline(transaction=False)
    for key in (OLD_GAMES, OLD_LIST + "all", OLD_TIMERS + "at"):
        pipe.exists(key)
    games, listing, timers = pipe.execute()
    n = 0
    if games and r.set(OLD_GAMES_DONE, 1, nx=True):
        n += _list_old_games(store)
    if listing:
        n += _move_listing(store)
    if timers:
        n += _move_timers(store)
    return n


def _meta(store, game_id: str) -> list:
    return store.r.hmget(f"{{g:{game_id}}}:meta", "created_at", "status", "version", "timer")


def _list_old_games(store) -> int:
    """Games stored before the listing had its sets get into it, once."""
    n = 0
    for gid in store.r.zrange(OLD_GAMES, 0, -1):
        created, status, version, _ = _meta(store, gid.decode())
        if created is not None:
            store.listing.put(gid.decode(), created.decode(), status.decode(), int(version))
            n += 1
    return n


def _move_listing(store) -> int:
    r, n = store.r, 0
    while batch := r.zrange(OLD_LIST + "all", 0, BATCH - 1):
        for member in batch:
            gid = member.decode().rpartition("|")[2]
            created, status, version, _ = _meta(store, gid)
            if created is not None:
                store.listing.put(gid, created.decode(), status.decode(), int(version))
                n += 1
            pipe = r.pipeline(transaction=False)  # one slot: the old listing's
            for key in ["all"] + list(OLD_STATUSES):
                pipe.zrem(OLD_LIST + key, member)
            pipe.hdel(OLD_LIST + "version", gid)
            pipe.execute()
    return n


def _move_timers(store) -> int:
    r, n = store.r, 0
    while batch := r.zrange(OLD_TIMERS + "at", 0, BATCH - 1):
        for member in batch:
            gid = member.decode()
            _, _, version, timer = _meta(store, gid)
            if version is not None and timer is not None:
                store.timers.put(gid, int(version), timer.decode())
                n += 1
            pipe = r.pipeline(transaction=False)
            pipe.zrem(OLD_TIMERS + "at", member)
            pipe.hdel(OLD_TIMERS + "version", gid)
            pipe.execute()
    return n
