"""The deadline index on Redis: every running game's next timer, split by hash into
buckets (referee/store/buckets.py), each a sorted set (score: the time as seconds
since 1970) with a hash of the version that last wrote each entry.

The game's own ``timer`` field, written atomically with its events, is the truth;
the index may run early, never late. The game's record also keeps ``indexed``, a
time no earlier than its entry in the index, so that an append decides in its own
slot whether the index needs a write:

* a new timer no earlier than ``indexed`` (the common move: the next seat's time
  starts later than the last one's) writes nothing to the index: its entry, earlier,
  stays, and when it comes due the keeper's tick finds nothing to fire and moves it
  on (``set_timer``): at most one such tick per game per timer it passed;
* an earlier timer, or a first one, is put into the index before the append
  (``lower``, LOWER_TIMER: only ever lowering the entry), so a crash between the two
  leaves an entry that is early, never one that is missing or late;
* a game whose timer goes (it ended, its clock paused) keeps its entry until the
  keeper's tick finds nothing and removes it.

So nothing a crash leaves needs repairing, and no start walks the running games.
The keeper's own writes (INDEX_TIMER, after SET_TIMER) are tagged with the version
it read, and never move an entry an append of a newer version lowered.
"""

from __future__ import annotations

import heapq
import itertools

from referee.clock import parse_at
from referee.store.buckets import every, of_game

INDEX = "timers"


def score(timer: str) -> float:
    return parse_at(timer).timestamp()


def keys(game_id: str) -> list[str]:
    """``game_id``'s bucket: its timers and the versions that wrote them."""
    t = of_game(INDEX, game_id)
    return [t + ":at", t + ":version"]


class DeadlineIndex:
    def __init__(self, r, index_script, lower_script):
        self.r, self._index, self._lower = r, index_script, lower_script

    def put(self, game_id: str, version: int, timer: str | None) -> None:
        """The keeper's entry for ``timer`` (None: none) as of ``version``."""
        self._index(keys=keys(game_id), args=[game_id, version, "" if timer is None else score(timer)])

    def lower(self, game_id: str, version: int, timer: str) -> None:
        """An entry no later than ``timer``, before the append that makes ``version``."""
        self._lower(keys=keys(game_id), args=[game_id, version, score(timer)])

    def due(self, now: str, limit: int) -> list[str]:
        pipe = self.r.pipeline(transaction=False)
        for t in every(INDEX):
            pipe.zrangebyscore(t + ":at", "-inf", score(now), start=0, num=limit, withscores=True)
        # each bucket's answer is ordered by (score, member): merged, the earliest first
        merged = heapq.merge(*pipe.execute(), key=lambda pair: (pair[1], pair[0]))
        return [m.decode() for m, _ in itertools.islice(merged, limit)]
