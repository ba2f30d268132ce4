"""Where a player's vacations are kept (referee/calendar/booking.py says what
they are): a row in the game store's SQLite file, or a key in the player's own
Redis slot (``{p:ID}:vacation``), and the index of the moments a booking's pause
starts (the keeper's, beside the games' deadline index).

Every change is one compare-and-set on the whole record: a SQLite transaction
begun at once, or a Redis script that swaps the player's key only if it still holds
what was read (a Redis Cluster runs it on the player's node), so two bookings made at the
same moment, in any processes, never overdraw the allowance: the second reads
what the first wrote, or is tried again.
"""

from __future__ import annotations

import json

from referee.clock import parse_at
from referee.store.sqlite import SideTables

SCHEMA = """
CREATE TABLE IF NOT EXISTS player_vacation (player TEXT PRIMARY KEY, record TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS vacation_timers (player TEXT PRIMARY KEY, at TEXT NOT NULL) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS vacation_timers_at ON vacation_timers (at);
"""
TIMERS = "vacation-timers"


class VacationStore:
    """The interface: a player's record read and changed, and the starts' index."""

    def record(self, player_id: str) -> dict:
        raise NotImplementedError

    def change(self, player_id: str, change, timer=None):
        """Apply ``change(record) -> (new record, result)`` atomically and return the
        result (an exception from it writes nothing). ``timer(new record)``: the
        player's next start for the index, written with it."""
        raise NotImplementedError

    def due(self, now: str, limit: int = 100) -> list[str]:
        """The players whose next start is at or before ``now``."""
        raise NotImplementedError

    def set_timer(self, player_id: str, at: str | None) -> None:
        raise NotImplementedError


class SqliteVacations(SideTables, VacationStore):
    SCHEMA = SCHEMA

    def record(self, player_id):
        rows = self._read("SELECT record FROM player_vacation WHERE player = ?", (player_id,))
        return json.loads(rows[0][0]) if rows else {}

    def change(self, player_id, change, timer=None):
        with self._tx() as conn:
            row = conn.execute("SELECT record FROM player_vacation WHERE player = ?", (player_id,)).fetchone()
            new, result = change(json.loads(row[0]) if row else {})
            conn.execute("INSERT OR REPLACE INTO player_vacation VALUES (?, ?)",
                         (player_id, json.dumps(new, sort_keys=True)))
            if timer is not None:
                self._timer(conn, player_id, timer(new))
        return result

    @staticmethod
    def _timer(conn, player_id, at):
        if at is None:
            conn.execute("DELETE FROM vacation_timers WHERE player = ?", (player_id,))
        else:
            conn.execute("INSERT OR REPLACE INTO vacation_timers VALUES (?, ?)", (player_id, at))

    def due(self, now, limit=100):
        return [r[0] for r in self._read("SELECT player FROM vacation_timers WHERE at <= ? ORDER BY at LIMIT ?",
                                         (now, limit))]

    def set_timer(self, player_id, at):
        with self._tx() as conn:
            self._timer(conn, player_id, at)


def _score(at: str) -> float:
    return parse_at(at).timestamp()  # the games' deadline index's own scale


# KEYS: the player's record. ARGV: the record as read ("" for none), the new one.
# A compare-and-set on one key (one slot: a Redis Cluster runs it on the player's node).
SWAP = """
local now = redis.call('GET', KEYS[1])
if (now or '') ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
return 1
"""


class RedisVacations(VacationStore):
    def __init__(self, r):
        self.r = r
        self._swap = r.register_script(SWAP)

    def record(self, player_id):
        got = self.r.get(f"{{p:{player_id}}}:vacation")
        return json.loads(got) if got else {}

    def change(self, player_id, change, timer=None):
        key = f"{{p:{player_id}}}:vacation"
        while True:
            got = self.r.get(key) or b""
            new, result = change(json.loads(got) if got else {})
            if timer is not None:
                # the index first (it lives in another slot): a start it holds that the
                # record does not is looked at once and let go; one taken out by a
                # change that loses the race is put back as that change is tried again
                self.set_timer(player_id, timer(new))
            if self._swap(keys=[key], args=[got, json.dumps(new, sort_keys=True)]):
                return result
            # another change came first: read it and decide again

    def due(self, now, limit=100):
        return [m.decode() for m in self.r.zrangebyscore(TIMERS, "-inf", _score(now), start=0, num=limit)]

    def set_timer(self, player_id, at):
        if at is None:
            self.r.zrem(TIMERS, player_id)
        else:
            self.r.zadd(TIMERS, {player_id: _score(at)})


def open_vacations(store) -> VacationStore:
    return SqliteVacations(store) if hasattr(store, "path") else RedisVacations(store.r)
