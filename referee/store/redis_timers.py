"""The deadline index on Redis: every running game's next timer, split by hash into
buckets (referee/store/buckets.py), each a sorted set (score: the time as seconds
since 1970) with a hash of the version that set each entry, so a writer finishing
late never puts back a timer a newer one moved (INDEX_TIMER).

The game's own ``timer`` field, written atomically with its events, is the truth;
the index is a second write beside it, in its bucket's slot. So that a crash
between the two is found without walking every running game, an append that moves
a timer first writes a journal entry in the same bucket (``:moving``, the game and
a token, scored by the time), and the index write that follows removes it in the
same script. What a crash leaves is a journal entry: ``repair`` reads only the
journal, puts each game's own timer (back) into the index, and forgets entries
older than ``SETTLED`` seconds (their appends have ended, written or not).

The keeper's own moves of a timer (``set_timer``, after it fired what was due) need
no journal: a crash after them leaves the old, due entry, and the next round
fires the game again (its tick is idempotent) and moves it.
"""

from __future__ import annotations

import heapq
import itertools
import secrets
import time

from referee.store.buckets import every, of_game

INDEX = "timers"
SETTLED = 60  # seconds: far longer than an append takes between its journal entry and its index write


def score(timer: str) -> float:
    from referee.clock import parse_at

    return parse_at(timer).timestamp()


def keys(game_id: str) -> list[str]:
    """``game_id``'s bucket: its timers, the versions that set them, its journal."""
    t = of_game(INDEX, game_id)
    return [t + ":at", t + ":version", t + ":moving"]


class DeadlineIndex:
    def __init__(self, r, index_script):
        self.r, self._index = r, index_script

    def put(self, game_id: str, version: int, timer: str | None, journal: str = "") -> None:
        """Index ``timer`` (None: none) as of ``version``; ``journal``: the entry to remove."""
        self._index(keys=keys(game_id), args=[game_id, version, "" if timer is None else score(timer), journal])

    @staticmethod
    def journal(game_id: str) -> tuple[tuple, str]:
        """The command that journals an append moving ``game_id``'s timer, and its entry."""
        entry = f"{game_id}|{secrets.token_hex(6)}"
        return ("ZADD", keys(game_id)[2], time.time(), entry), entry

    def forget(self, game_id: str, entry: str) -> None:
        """Drop the journal entry of an append that wrote nothing."""
        self.r.zrem(keys(game_id)[2], entry)

    def due(self, now: str, limit: int) -> list[str]:
        pipe = self.r.pipeline(transaction=False)
        for t in every(INDEX):
            pipe.zrangebyscore(t + ":at", "-inf", score(now), start=0, num=limit, withscores=True)
        # each bucket's answer is ordered by (score, member): merged, the earliest first
        merged = heapq.merge(*pipe.execute(), key=lambda pair: (pair[1], pair[0]))
        return [m.decode() for m, _ in itertools.islice(merged, limit)]

    def repair(self, read_game) -> int:
        """Every game the journal names gets its own timer in the index (``read_game(id)``:
        its timer and version). Returns how many entries were put (back)."""
        pipe = self.r.pipeline(transaction=False)
        for t in every(INDEX):
            pipe.zrange(t + ":moving", 0, -1, withscores=True)
        n, now = 0, time.time()
        for entries in pipe.execute():
            for entry, at in entries:
                entry = entry.decode()
                gid = entry.rpartition("|")[0]
                timer, version = read_game(gid)
                if version is not None and self.r.zscore(keys(gid)[0], gid) != (None if timer is None else score(timer)):
                    self.put(gid, version, timer)
                    n += 1
                if now - at > SETTLED:
                    self.forget(gid, entry)
        return n
