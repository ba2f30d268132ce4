"""Where logs live: one small interface (base.py), a SQLite and a Redis recorder
behind it (sqlite.py, redis.py), and ``open_store`` to pick one by its URL.
"""

from __future__ import annotations

from referee.store.base import (  # noqa: F401 - the store's public names
    KEEP,
    Conflict,
    DuplicateRequest,
    GameRecord,
    NotReplicated,
    Snapshot,
    Store,
    StoreUnavailable,
)


def open_store(url: str) -> Store:
    if url.startswith("sqlite://"):
        from referee.store.sqlite import SqliteStore

        return SqliteStore(url.removeprefix("sqlite://"))
    if url.startswith(("redis://", "rediss://", "unix://", "redis+cluster://", "rediss+cluster://")):
        from referee.store.redis import RedisStore

        return RedisStore(url)
    raise ValueError(f"unknown store {url!r}: use sqlite:///PATH, redis://HOST:PORT/DB "
                     "or redis+cluster://HOST:PORT (any node of a Redis Cluster)")
