"""Where the calendar keeps each player's settings: a table of its own in the game
store's SQLite file, or a key in the player's own Redis slot (``{p:ID}``), so a
Redis Cluster keeps them beside the player. A settings record is small and is
rewritten whole: a change is one write, and a change refused writes nothing."""

from __future__ import annotations

import json

from referee.store.sqlite import SideTables

SCHEMA = """
CREATE TABLE IF NOT EXISTS player_calendar (player TEXT PRIMARY KEY, settings TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS player_calendar_feed (player TEXT PRIMARY KEY, secret TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS player_timekeeping (
    player TEXT PRIMARY KEY, moves INTEGER NOT NULL, late INTEGER NOT NULL, timeouts INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS player_timekept (player TEXT NOT NULL, game_id TEXT NOT NULL,
    PRIMARY KEY (player, game_id)) WITHOUT ROWID;
"""


class CalendarStore:
    """The interface: a player's kept settings (only those set), read and rewritten."""

    def settings(self, player_id: str) -> dict:
        raise NotImplementedError

    def set_settings(self, player_id: str, settings: dict) -> None:
        raise NotImplementedError

    # The secret of the player's calendar feed: kept in clear, since the feed's address
    # is shown again on every GET /v1/players/me (it reads that feed and nothing else).

    def feed_secret(self, player_id: str, fresh: str) -> str:
        """The player's feed secret, ``fresh`` kept as it if they had none (two
        first readers at once both get the one kept)."""
        raise NotImplementedError

    def reset_feed_secret(self, player_id: str, fresh: str) -> None:
        raise NotImplementedError

    # A player's timekeeping over every game they finished: moves made, of them late
    # (after their deadline had passed), and timeouts. Each game is counted once per
    # player, in one atomic step, however often its end is followed.

    def count_game(self, player_id: str, game_id: str, moves: int, late: int, timeouts: int) -> bool:
        """Add one game's counts, unless it was counted for the player already."""
        raise NotImplementedError

    def timekeeping(self, player_id: str) -> dict:
        """``{moves, late, timeouts}`` (zeros for a player with none)."""
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

    def feed_secret(self, player_id, fresh):
        rows = self._read("SELECT secret FROM player_calendar_feed WHERE player = ?", (player_id,))
        if rows:
            return rows[0][0]
        with self._tx() as conn:
            conn.execute("INSERT OR IGNORE INTO player_calendar_feed VALUES (?, ?)", (player_id, fresh))
            return conn.execute("SELECT secret FROM player_calendar_feed WHERE player = ?",
                                (player_id,)).fetchone()[0]

    def reset_feed_secret(self, player_id, fresh):
        with self._tx() as conn:
            conn.execute("INSERT OR REPLACE INTO player_calendar_feed VALUES (?, ?)", (player_id, fresh))

    def count_game(self, player_id, game_id, moves, late, timeouts):
        with self._tx() as conn:
            if conn.execute("INSERT OR IGNORE INTO player_timekept VALUES (?, ?)",
                            (player_id, game_id)).rowcount != 1:
                return False
            conn.execute("INSERT INTO player_timekeeping VALUES (?, ?, ?, ?) ON CONFLICT (player) DO UPDATE SET "
                         "moves = moves + excluded.moves, late = late + excluded.late, "
                         "timeouts = timeouts + excluded.timeouts", (player_id, moves, late, timeouts))
        return True

    def timekeeping(self, player_id):
        rows = self._read("SELECT moves, late, timeouts FROM player_timekeeping WHERE player = ?", (player_id,))
        moves, late, timeouts = rows[0] if rows else (0, 0, 0)
        return {"moves": moves, "late": late, "timeouts": timeouts}


# KEYS: the player's counted games, their counts. ARGV: game id, moves, late, timeouts.
COUNT = """
if redis.call('SADD', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('HINCRBY', KEYS[2], 'moves', tonumber(ARGV[2]))
redis.call('HINCRBY', KEYS[2], 'late', tonumber(ARGV[3]))
redis.call('HINCRBY', KEYS[2], 'timeouts', tonumber(ARGV[4]))
return 1
"""


class RedisCalendar(CalendarStore):
    def __init__(self, r):
        self.r = r
        self._count = r.register_script(COUNT)

    def count_game(self, player_id, game_id, moves, late, timeouts):
        keys = [f"{{p:{player_id}}}:timekept", f"{{p:{player_id}}}:timekeeping"]
        return bool(self._count(keys=keys, args=[game_id, moves, late, timeouts]))

    def timekeeping(self, player_id):
        got = self.r.hgetall(f"{{p:{player_id}}}:timekeeping")
        return {k: int(got.get(k.encode(), 0)) for k in ("moves", "late", "timeouts")}

    def settings(self, player_id):
        got = self.r.get(f"{{p:{player_id}}}:calendar")
        return json.loads(got) if got else {}

    def set_settings(self, player_id, settings):
        self.r.set(f"{{p:{player_id}}}:calendar", json.dumps(settings, sort_keys=True))

    def feed_secret(self, player_id, fresh):
        key = f"{{p:{player_id}}}:calendar-feed"
        self.r.set(key, fresh, nx=True)
        return self.r.get(key).decode()

    def reset_feed_secret(self, player_id, fresh):
        self.r.set(f"{{p:{player_id}}}:calendar-feed", fresh)


def open_calendar(store) -> CalendarStore:
    """The calendar's store beside a game store, on the same file or the same Redis."""
    return SqliteCalendar(store) if hasattr(store, "path") else RedisCalendar(store.r)
