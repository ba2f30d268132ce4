"""Where the rate limits' counters live (referee/api/limits.py): in a process's
memory, in a Redis shared by every API process (the store's own, or the queue's
beside a cluster or SQLite store), or, for a move on a Redis Cluster, in its game's
own hash slot, stepped by the append itself."""

from __future__ import annotations

import threading
import time


class MemoryCounters:
    """One process's counters: enough where one process serves (embedded mode)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._counts: dict[str, tuple[int, float]] = {}  # key -> (count, expires)
        self._sweep_at = 0.0

    def step(self, read: list, hit: list, now: float, record_of: str | None = None) -> tuple:
        """The counts of ``read``'s keys, and of ``hit``'s keys after adding one (and
        no prefetched record: the store is no Redis of these counters')."""
        with self._lock:
            if now >= self._sweep_at:  # drop ended windows now and then, not per request
                self._counts = {k: v for k, v in self._counts.items() if v[1] > now}
                self._sweep_at = now + 10
            got = [self._counts.get(key, (0, 0))[0] for key, _ in read]
            counted = []
            for key, ttl in hit:
                n = self._counts.get(key, (0, 0))[0] + 1
                self._counts[key] = (n, now + ttl)
                counted.append(n)
            return got, counted, None

    def add(self, keys: list, by: int, now: float) -> None:
        with self._lock:
            for key, ttl in keys:
                n, expires = self._counts.get(key, (0, now + ttl))
                self._counts[key] = (n + by, expires)


# Counters in a Redis apart from the store's (the queue's, beside a cluster or
# SQLite store) may be out of reach while play goes on: each try waits at most
# APART_TIMEOUT seconds, and after a failure none is made for APART_PAUSE seconds,
# the requests let through meanwhile (Limiter._count), so that no request waits on
# a Redis known to be down.
APART_TIMEOUT = 0.5
APART_PAUSE = 1.0


class Paused(Exception):
    """The counters' Redis failed lately: not tried again yet."""


class RedisCounters:
    """Counters in Redis, shared by every API process: one pipelined round trip
    per request."""

    def __init__(self, url: str, store=None):
        import redis

        self.errors = (redis.RedisError, Paused)
        self._dropped = redis.ConnectionError
        # The store's own Redis: its client, and the game's record read in the
        # same round trip as the counters (a move then waits for two, not three).
        self.store = store if getattr(store, "url", None) == url and hasattr(store, "record_read") else None
        self.apart = self.store is None
        self._paused_until = 0.0
        self.r = self.store.r if self.store is not None else redis.Redis.from_url(
            url, socket_connect_timeout=APART_TIMEOUT, socket_timeout=APART_TIMEOUT)
        # Each request thread keeps a connection of its own for the counters' round
        # trip (the store's, when the counters are in the store's Redis), and
        # writes the commands on it itself (referee/store/redis.py ThreadConnections).
        # (Always one Redis server here: storage_uri never gives a cluster's address.)
        from referee.store.redis import ThreadConnections

        self.threads = self.store.threads if self.store is not None else ThreadConnections(self.r.connection_pool)

    def _round_trip(self, commands: list[tuple]) -> list:
        """Send ``commands`` at once on this thread's connection; their replies.
        A connection the server dropped (a restart, an idle timeout) shows only
        when it is used: the commands then go once more on a new one. (A hit
        counted twice, when the first try did reach the server, only makes that
        window one step stricter.)"""
        return self._reach(self._send, commands)

    def _send(self, commands: list[tuple]) -> list:
        try:
            return self.threads.send(commands)
        except self._dropped:
            return self.threads.send(commands)

    def _reach(self, call, *args):
        """``call(*args)``, unless a Redis apart from the store's failed in the last
        APART_PAUSE seconds (Paused); its failure starts such a pause."""
        if self.apart and time.monotonic() < self._paused_until:
            raise Paused("not tried again yet after a failure")
        try:
            return call(*args)
        except self.errors:
            if self.apart:
                self._paused_until = time.monotonic() + APART_PAUSE
            raise

    def step(self, read: list, hit: list, now: float, record_of: str | None = None) -> tuple:
        """The counts of ``read``'s keys, of ``hit``'s keys after adding one, and
        the record of game ``record_of`` as the store reads it (None: not read)."""
        commands = [("GET", key) for key, _ in read]
        for key, ttl in hit:  # the window's expiry set once, with the key
            commands += [("SET", key, 0, "EX", ttl, "NX"), ("INCR", key)]
        fetch = record_of is not None and self.store is not None
        if fetch:
            commands.append(("HMGET", *self.store.record_read(record_of)))
        got = self._round_trip(commands)
        counts = got[:len(read) + 2 * len(hit)]
        record = self.store.record_from(got[-1]) if fetch else None
        return [int(v or 0) for v in counts[:len(read)]], [int(v) for v in counts[len(read) + 1::2]], record

    def add(self, keys: list, by: int, now: float) -> None:
        pipe = self.r.pipeline(transaction=False)
        for key, ttl in keys:
            pipe.set(key, 0, ex=ttl, nx=True)
            pipe.incrby(key, by)
        self._reach(pipe.execute)


class SlotCounters:
    """A move's counters on a Redis Cluster store: in its game's own hash slot
    (``{g:ID}:...``), beside its log, so the append's script steps them on the
    game's node and a move needs no Redis but the one holding its game. Used
    directly only for a move whose append never came (``Limiter.settle``)."""

    def __init__(self, cluster):
        import redis

        self.errors = (redis.RedisError,)
        self.r = cluster

    def step(self, read: list, hit: list, now: float, record_of: str | None = None) -> tuple:
        pipe = self.r.pipeline(transaction=False)  # every key in one slot: one node's round trip
        for key, _ in read:
            pipe.get(key)
        for key, ttl in hit:
            pipe.set(key, 0, ex=ttl, nx=True)
            pipe.incr(key)
        got = pipe.execute()
        return [int(v or 0) for v in got[:len(read)]], [int(v) for v in got[len(read) + 1::2]], None

    def add(self, keys: list, by: int, now: float) -> None:
        pipe = self.r.pipeline(transaction=False)
        for key, ttl in keys:
            pipe.set(key, 0, ex=ttl, nx=True)
            pipe.incrby(key, by)
        pipe.execute()


def in_slot(game: str, windows: list) -> list:
    """``windows``' counters moved into game ``game``'s hash slot (the store's ``{g:ID}`` tag)."""
    return [(f"{{g:{game}}}:{key}", *rest) for key, *rest in windows]
