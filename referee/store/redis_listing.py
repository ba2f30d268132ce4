"""The listing of games on Redis (``GET /v1/games``), split by hash into buckets
(referee/store/buckets.py). Each bucket holds sorted sets, every member scored 0
so they sort by their text "CREATED_AT|ID" (ISO times sort as text): one for all
its games and one per status, and a hash of the version that last moved each
game. A bucket is one hash slot, so one script (MOVE) moves a game between its
bucket's sets atomically, also on a Redis Cluster.

The listing is written beside the game's own atomic write (a cluster keeps each
game in its own slot), each move tagged with the game's version so that writers
finishing out of order never put a game back where it was; a crash in between
leaves a stale entry, which the listing notices (it reads each game's own status)
and repairs. A page reads the newest entries of every bucket and merges them: the
order and the cursors are those of one set.
"""

from __future__ import annotations

import heapq
import itertools

from referee.store.buckets import BUCKETS, every, of_game

INDEX = "list"
STATUSES = ("active", "settling", "finished", "aborted")


def keys(game_id: str) -> list[str]:
    """The keys MOVE takes for ``game_id``: its bucket's all, version, then one set per status."""
    prefix = of_game(INDEX, game_id) + ":"
    return [prefix + "all", prefix + "version"] + [prefix + s for s in STATUSES]


def set_of(game_id: str, status: str | None) -> str:
    """The set of ``game_id``'s bucket listing ``status`` (None: every game)."""
    return f"{of_game(INDEX, game_id)}:{status or 'all'}"


class Listing:
    def __init__(self, r, move_script):
        self.r, self._move = r, move_script

    def put(self, game_id: str, created_at: str, status: str, version: int) -> None:
        """Put the game in the listing under ``status`` as of ``version``."""
        self._move(keys=keys(game_id), args=[f"{created_at}|{game_id}", game_id, version, status])

    def newest(self, status: str | None, top: str, n: int) -> list[str]:
        """The ``n`` newest members listed under ``status`` below ``top`` (a ZRANGEBYLEX
        bound: ``+`` or ``(MEMBER``), merged over the buckets.

        Each bucket is first asked for about twice its share of ``n`` (one pipelined
        round trip per node), and again, for more, only while its last member read
        still falls among the ``n`` newest merged (it may hold more of them): a bucket
        whose last read is older than the ``n``-th, or that has no more, has given all
        it can."""
        if n <= 0:
            return []
        sets = [f"{t}:{status or 'all'}" for t in every(INDEX)]
        got: dict[str, list[bytes]] = {key: [] for key in sets}
        ask = dict.fromkeys(sets, max(4, -(-2 * n // BUCKETS)))
        more = list(sets)
        while True:
            pipe = self.r.pipeline(transaction=False)
            for key in more:
                pipe.zrevrangebylex(key, b"(" + got[key][-1] if got[key] else top, "-", start=0, num=ask[key])
            for key, members in zip(more, pipe.execute(), strict=True):
                got[key] += members
                if len(members) < ask[key]:
                    ask[key] = 0  # it has no more
            # each bucket's answer is newest first, as the merge wants
            head = list(itertools.islice(heapq.merge(*got.values(), reverse=True), n))
            cutoff = head[-1] if len(head) == n else b""
            more = [key for key in sets if ask[key] and got[key][-1] > cutoff]
            if not more:
                return [m.decode() for m in head]
            for key in more:
                ask[key] = max(ask[key] * 2, n - len(head))
