"""Where the calendar keeps each player's settings: a table of its own in the game
store's SQLite file, or a key in the player's own Redis slot (``{p:ID}``), so a
Redis Cluster keeps them beside the player. A settings record is small and is
rewritten whole: a change is one write, and a change refused writes nothing."""

from __future__ import annotations

import json

from referee.store.sqlite import SideTables

SCHEMA = """
CREATE TABLE IF NOT EXISTS player_calendar (player TEXT PRIMARY KEY, settings TEXT NOT NULL) WITHOUT ROWID;
"""


class CalendarStore:
    """The interface: a player's kept settings (only those set), read and rewritten."""

    def settings(self, player_id: str) -> dict:
        raise NotImplementedError

    def set_settings(self, player_id: str, settings: dict) -> None:
        raise NotImplementedError


class SqliteCalendar(SideTables, CalendarStore):
    SCHEMA = SCHEMA

    def settings(self, player_id):
        rows = self._read("SELECT settings FROM player_calendar WHERE player = ?", (player_id,))
        return json.loads(rows[0][0]) if rows else {}

    def set_settings(self, player_id, settings):
        with self._tx() as conn:
            conn.execute("INSERT OR REPLACE INTO player_calendar VALUES (?, ?)",
                         (player_id, json.dumps(settings, sort_keys=True)))


class RedisCalendar(CalendarStore):
    def __init__(self, r):
        self.r = r

    def settings(self, player_id):
        got = self.r.get(f"{{p:{player_id}}}:calendar")
        return json.loads(got) if got else {}

    def set_settings(self, player_id, settings):
        self.r.set(f"{{p:{player_id}}}:calendar", json.dumps(settings, sort_keys=True))


def open_calendar(store) -> CalendarStore:
    """The calendar's store beside a game store, on the same file or the same Redis."""
    return SqliteCalendar(store) if hasattr(store, "path") else RedisCalendar(store.r)
