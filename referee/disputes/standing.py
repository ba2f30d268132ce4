"""Which games have a dispute standing open: the organiser's list reads these, not
every game the referee keeps.

A game is marked before its dispute is appended (a process killed between the two
leaves a mark too many, never a dispute unmarked) and unmarked once a ruling leaves
it none open. The organiser's list checks each marked game's own log and drops a
mark that names no open dispute once it is older than ``SETTLED`` seconds (a younger
one may be a dispute being appended right now), so a mark too many heals. The
marks are few (the disputes waiting for a ruling), and a mark is written per dispute
and per ruling, never per move: on a Redis Cluster one small sorted set in a slot of
its own, ``{referee:disputes}:open`` (game id -> when it was marked).

A store from before these marks lists its open disputes once: the first look walks
the newest ``BACKFILL`` games for them and notes that it did (``:backfilled``).
"""

from __future__ import annotations

import time

from referee.store.sqlite import SideTables

BACKFILL = 2000
SETTLED = 60

SCHEMA = """
CREATE TABLE IF NOT EXISTS disputes_open (game_id TEXT PRIMARY KEY, since REAL NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS disputes_backfilled (done INTEGER PRIMARY KEY) WITHOUT ROWID;
"""


class Standing:
    """The interface: mark, unmark, the marked games newest first, the backfill's note."""

    def mark(self, game_id: str) -> None:
        raise NotImplementedError

    def unmark(self, game_id: str) -> None:
        raise NotImplementedError

    def games(self) -> list[tuple[str, float]]:
        """``(game id, when marked)``, the newest mark first."""
        raise NotImplementedError

    def backfilled(self) -> bool:
        raise NotImplementedError

    def note_backfilled(self) -> None:
        raise NotImplementedError


class SqliteStanding(SideTables, Standing):
    SCHEMA = SCHEMA

    def mark(self, game_id):
        with self._tx() as conn:
            conn.execute("INSERT OR IGNORE INTO disputes_open VALUES (?, ?)", (game_id, time.time()))

    def unmark(self, game_id):
        with self._tx() as conn:
            conn.execute("DELETE FROM disputes_open WHERE game_id = ?", (game_id,))

    def games(self):
        return [tuple(row) for row in self._read("SELECT game_id, since FROM disputes_open ORDER BY since DESC")]

    def backfilled(self):
        return bool(self._read("SELECT done FROM disputes_backfilled"))

    def note_backfilled(self):
        with self._tx() as conn:
            conn.execute("INSERT OR IGNORE INTO disputes_backfilled VALUES (1)")


OPEN, BACKFILLED = "{referee:disputes}:open", "{referee:disputes}:backfilled"


class RedisStanding(Standing):
    def __init__(self, r):
        self.r = r

    def mark(self, game_id):
        self.r.zadd(OPEN, {game_id: time.time()}, nx=True)

    def unmark(self, game_id):
        self.r.zrem(OPEN, game_id)

    def games(self):
        return [(g.decode(), since) for g, since in self.r.zrevrange(OPEN, 0, -1, withscores=True)]

    def backfilled(self):
        return bool(self.r.exists(BACKFILLED))

    def note_backfilled(self):
        self.r.set(BACKFILLED, 1)


def open_standing(store) -> Standing:
    """The marks beside a game store, in the same SQLite file or the same Redis."""
    return SqliteStanding(store) if hasattr(store, "path") else RedisStanding(store.r)
