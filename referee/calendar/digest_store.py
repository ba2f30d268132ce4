"""Where the daily digests are kept: which player's digest is due when (the due
index), and each player's digest of each local date (its claim).

A digest is named by its player and its local date. A sender first claims it
(``claim``: made if absent, or taken over once the claimer before let its lease
run out, in one atomic step), writes what it holds (``keep``: the games as their
seats saw them when it was first claimed, so a sender taking it over after a
crash sends the same mail) and marks it ``sent`` (or ``empty``: no game waited,
no mail) once the SMTP server has taken it. A date marked either is never claimed
again: two senders, a restart or a second run the same day send nothing more.

SQLite: tables of their own in the game store's file. Redis: the due index is one
sorted set (``referee:digests-due``, like the notices' own), each digest a hash
in its player's slot (``{p:ID}:digest:DATE``), kept a week.
"""

from __future__ import annotations

from referee.store.sqlite import SideTables

SCHEMA = """
CREATE TABLE IF NOT EXISTS digest_due (player TEXT PRIMARY KEY, at REAL NOT NULL) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS digest_due_at ON digest_due (at);
CREATE TABLE IF NOT EXISTS digest_days (player TEXT NOT NULL, day TEXT NOT NULL, state TEXT NOT NULL,
    until REAL NOT NULL, content TEXT, PRIMARY KEY (player, day)) WITHOUT ROWID;
"""
KEPT_DAYS = 7  # how long Redis keeps a digest's claim (a date is done long before)


class DigestStore:
    def schedule(self, player_id: str, at: float) -> None:
        """The player's next digest is due at ``at`` (replacing any other)."""
        raise NotImplementedError

    def unschedule(self, player_id: str) -> None:
        raise NotImplementedError

    def due(self, now: float, limit: int = 100) -> list[tuple[str, float]]:
        """``(player, at)`` of the digests due by ``now``, the earliest first."""
        raise NotImplementedError

    def claim(self, player_id: str, day: str, now: float, until: float) -> tuple[bool, str | None]:
        """Whether this caller now holds the player's digest of ``day`` until
        ``until``, and what a claimer before kept of it (None: nothing yet)."""
        raise NotImplementedError

    def keep(self, player_id: str, day: str, content: str) -> None:
        raise NotImplementedError

    def finish(self, player_id: str, day: str, state: str) -> None:
        """``sent`` or ``empty``: the date is done."""
        raise NotImplementedError

    def state(self, player_id: str, day: str) -> str | None:
        raise NotImplementedError


class SqliteDigests(SideTables, DigestStore):
    SCHEMA = SCHEMA

    def schedule(self, player_id, at):
        with self._tx() as conn:
            conn.execute("INSERT OR REPLACE INTO digest_due VALUES (?, ?)", (player_id, at))

    def unschedule(self, player_id):
        with self._tx() as conn:
            conn.execute("DELETE FROM digest_due WHERE player = ?", (player_id,))

    def due(self, now, limit=100):
        return [(p, at) for p, at in self._read(
            "SELECT player, at FROM digest_due WHERE at <= ? ORDER BY at, player LIMIT ?", (now, limit))]

    def claim(self, player_id, day, now, until):
        with self._tx() as conn:
            if conn.execute("INSERT OR IGNORE INTO digest_days VALUES (?, ?, 'claimed', ?, NULL)",
                            (player_id, day, until)).rowcount == 1:
                return True, None
            taken = conn.execute("UPDATE digest_days SET until = ? WHERE player = ? AND day = ? "
                                 "AND state = 'claimed' AND until <= ?", (until, player_id, day, now)).rowcount
            if taken != 1:
                return False, None
            return True, conn.execute("SELECT content FROM digest_days WHERE player = ? AND day = ?",
                                      (player_id, day)).fetchone()[0]

    def keep(self, player_id, day, content):
        with self._tx() as conn:
            conn.execute("UPDATE digest_days SET content = ? WHERE player = ? AND day = ? AND content IS NULL",
                         (content, player_id, day))

    def finish(self, player_id, day, state):
        with self._tx() as conn:
            conn.execute("UPDATE digest_days SET state = ? WHERE player = ? AND day = ?", (state, player_id, day))

    def state(self, player_id, day):
        rows = self._read("SELECT state FROM digest_days WHERE player = ? AND day = ?", (player_id, day))
        return rows[0][0] if rows else None


# KEYS: the digest's hash. ARGV: now, until, seconds kept. Returns {1|0, content}.
CLAIM = """
local state = redis.call('HGET', KEYS[1], 'state')
if not state then
  redis.call('HSET', KEYS[1], 'state', 'claimed', 'until', ARGV[2])
  redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
  return {1, false}
end
if state == 'claimed' and tonumber(redis.call('HGET', KEYS[1], 'until')) <= tonumber(ARGV[1]) then
  redis.call('HSET', KEYS[1], 'until', ARGV[2])
  return {1, redis.call('HGET', KEYS[1], 'content')}
end
return {0, false}
"""
DUE = "referee:digests-due"


class RedisDigests(DigestStore):
    def __init__(self, r):
        self.r = r
        self._claim = r.register_script(CLAIM)

    @staticmethod
    def _k(player_id: str, day: str) -> str:
        return f"{{p:{player_id}}}:digest:{day}"

    def schedule(self, player_id, at):
        self.r.zadd(DUE, {player_id: at})

    def unschedule(self, player_id):
        self.r.zrem(DUE, player_id)

    def due(self, now, limit=100):
        return [(p.decode(), at) for p, at in self.r.zrangebyscore(DUE, "-inf", now, start=0, num=limit,
                                                                      withscores=True)]

    def claim(self, player_id, day, now, until):
        got, content = self._claim(keys=[self._k(player_id, day)], args=[now, until, KEPT_DAYS * 86400])
        return bool(got), content.decode() if content else None

    def keep(self, player_id, day, content):
        self.r.hsetnx(self._k(player_id, day), "content", content)

    def finish(self, player_id, day, state):
        self.r.hset(self._k(player_id, day), "state", state)

    def state(self, player_id, day):
        got = self.r.hget(self._k(player_id, day), "state")
        return got.decode() if got else None


def open_digests(store) -> DigestStore:
    """The digests' store beside a game store, on the same file or the same Redis."""
    return SqliteDigests(store) if hasattr(store, "path") else RedisDigests(store.r)
