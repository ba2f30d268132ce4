"""The shared indexes' buckets on Redis: the listing, the deadline index and the
notices due are each split by hash into ``BUCKETS`` sorted sets, every bucket its
own hash tag (``{referee:timers:07}``), so that on a Redis Cluster the writes of
all games spread over as many slots (and nodes) instead of landing on one key.

A game's bucket is a function of its id alone (CRC-32, the same in every process
and every version), so a writer finds its game's entry without asking anyone, and
readers merge the buckets.

``BUCKETS`` is fixed in code, not a setting: an entry lives in the bucket its id
hashes to under the count the writer used, so a store written with one count is
unreadable with another (readers would look in the wrong buckets). Changing it
would need a migration like ``referee/store/redis_layout.py``'s.
"""

from __future__ import annotations

import zlib

BUCKETS = 16


def bucket(game_id: str) -> int:
    """The bucket of ``game_id``'s entries in every split index."""
    return zlib.crc32(game_id.encode()) % BUCKETS


def tag(index: str, n: int) -> str:
    """Bucket ``n`` of ``index``'s hash tag: ``{referee:list:03}``."""
    return f"{{referee:{index}:{n:02d}}}"


def every(index: str) -> list[str]:
    """The hash tags of all of ``index``'s buckets, in order."""
    return [tag(index, n) for n in range(BUCKETS)]


def of_game(index: str, game_id: str) -> str:
    """The hash tag of the bucket holding ``game_id`` in ``index``."""
    return tag(index, bucket(game_id))
