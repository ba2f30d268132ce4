"""Where the outbox keeps its notices: tables of their own in the game store's
SQLite file, or keys beside the games in Redis. Each notice is a row (a hash) with
its body, its state (``pending`` until every channel has taken it), its
attempts, its next try, its last error and the channels that have taken it
(``done``: a retry sends only the others). Each seat has a cursor, "told up to
version N"."""

from __future__ import annotations

import heapq
import itertools
import json
import sqlite3
import threading
import time

from referee.store.buckets import every, of_game

SQLITE_SCHEMA = """
CREATE TABLE IF NOT EXISTS notices (
    id TEXT PRIMARY KEY, game_id TEXT NOT NULL, seat INTEGER NOT NULL, version INTEGER NOT NULL,
    reason TEXT NOT NULL, body TEXT NOT NULL, created REAL NOT NULL,
    state TEXT NOT NULL, attempts INTEGER NOT NULL, next_try REAL NOT NULL, error TEXT,
    done TEXT NOT NULL DEFAULT '')
    WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS notices_game ON notices (game_id, created);
CREATE INDEX IF NOT EXISTS notices_due ON notices (state, next_try);
CREATE TABLE IF NOT EXISTS notice_cursors (
    game_id TEXT NOT NULL, seat INTEGER NOT NULL, version INTEGER NOT NULL,
    PRIMARY KEY (game_id, seat)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS notices_swept (one INTEGER PRIMARY KEY CHECK (one = 1), mark TEXT NOT NULL);
"""

# The notices waiting to be sent, by when, on Redis: split by hash into buckets
# (referee/store/buckets.py) by the game's id, each a sorted set of "GAME|NOTICE"
# in its own slot, so on a cluster the notices of all games are not one key's writes.
DUE = "notices-due"
OLD_DUE = "referee:notices-due"  # before the split: one set, moved into the buckets at start
SWEPT = "{referee:notices-swept}"  # the start-up sweep's mark (outbox.sweep_all)


def _due_key(game_id: str) -> str:
    return of_game(DUE, game_id)


def _done(text) -> list[str]:
    return [c for c in (text or "").split(",") if c]


class SqliteOutbox:
    """Notices in the game store's own SQLite file (tables of their own)."""

    COLUMNS = ("id", "game_id", "seat", "version", "reason", "body", "created", "state", "attempts",
               "next_try", "error", "done")

    def __init__(self, path: str):
        self.path = path
        self._local = threading.local()
        self._secret = None
        conn = self._conn()
        conn.executescript(SQLITE_SCHEMA)
        if "done" not in {r[1] for r in conn.execute("PRAGMA table_info(notices)")}:
            try:  # an outbox from before channels were tracked each on its own
                conn.execute("ALTER TABLE notices ADD COLUMN done TEXT NOT NULL DEFAULT ''")
            except sqlite3.OperationalError:  # another process added it first
                pass

    def _conn(self):
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA busy_timeout=30000")
            self._local.conn = conn
        return conn

    def put(self, n: dict) -> bool:
        cur = self._conn().execute(
            f"INSERT OR IGNORE INTO notices ({', '.join(self.COLUMNS)}) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, NULL, '')",
            (n["id"], n["game"], n["seat"], n["version"], n["reason"], json.dumps(n["body"]),
             n["created"], n["created"]))
        return cur.rowcount == 1

    def _select(self, where: str, args: tuple) -> list[dict]:
        rows = self._conn().execute(f"SELECT {', '.join(self.COLUMNS)} FROM notices {where}", args).fetchall()
        return [{"id": r[0], "game": r[1], "seat": r[2], "version": r[3], "reason": r[4],
                 "body": json.loads(r[5]), "created": r[6], "state": r[7], "attempts": r[8],
                 "next_try": r[9], "error": r[10], "done": _done(r[11])} for r in rows]

    def of_game(self, game_id: str) -> list[dict]:
        return self._select("WHERE game_id = ? ORDER BY created, id", (game_id,))

    def due(self, now: float, limit: int = 100) -> list[dict]:
        return self._select("WHERE state = 'pending' AND next_try <= ? ORDER BY next_try, created, id "
                            "LIMIT ?", (now, limit))

    def pending_before(self, notice: dict) -> list[dict]:
        """The same seat's notices written before ``notice`` and not yet sent."""
        return self._select("WHERE game_id = ? AND created < ? AND seat = ? AND state = 'pending' "
                            "ORDER BY created, id", (notice["game"], notice["created"], notice["seat"]))

    def delivered(self, nid: str, done: list[str]) -> None:
        """Record the channels that have taken a notice (at once, one by one)."""
        self._conn().execute("UPDATE notices SET done = ? WHERE id = ?", (",".join(done), nid))

    def mark(self, nid: str, state: str, attempts: int, next_try: float, error: str | None,
             done: list[str] | None = None) -> None:
        """A notice's new state; ``done``: the channels that have taken it, when given."""
        if done is None:
            self._conn().execute("UPDATE notices SET state = ?, attempts = ?, next_try = ?, error = ? "
                                 "WHERE id = ?", (state, attempts, next_try, error, nid))
        else:
            self._conn().execute("UPDATE notices SET state = ?, attempts = ?, next_try = ?, error = ?, "
                                 "done = ? WHERE id = ?", (state, attempts, next_try, error, ",".join(done), nid))

    def claim(self, notice: dict, until: float) -> bool:
        cur = self._conn().execute("UPDATE notices SET next_try = ? WHERE id = ? AND state = 'pending' "
                                   "AND next_try = ?", (until, notice["id"], notice["next_try"]))
        return cur.rowcount == 1

    def secret(self) -> str:
        import secrets

        if self._secret is None:  # made once, never changed: read once per process
            conn = self._conn()
            conn.execute("CREATE TABLE IF NOT EXISTS referee_secrets (name TEXT PRIMARY KEY, value TEXT NOT NULL)")
            conn.execute("INSERT OR IGNORE INTO referee_secrets VALUES ('mail', ?)", (secrets.token_hex(32),))
            self._secret = conn.execute("SELECT value FROM referee_secrets WHERE name = 'mail'").fetchall()[0][0]
        return self._secret

    def cursor(self, game_id: str, seat: int) -> int:
        rows = self._conn().execute("SELECT version FROM notice_cursors WHERE game_id = ? AND seat = ?",
                                    (game_id, seat)).fetchall()
        return rows[0][0] if rows else 0

    def advance(self, game_id: str, seat: int, version: int) -> None:
        self._conn().execute(
            "INSERT INTO notice_cursors VALUES (?, ?, ?) ON CONFLICT (game_id, seat) "
            "DO UPDATE SET version = max(version, excluded.version)", (game_id, seat, version))

    def swept(self) -> str | None:
        rows = self._conn().execute("SELECT mark FROM notices_swept").fetchall()
        return rows[0][0] if rows else None

    def mark_swept(self, mark: str) -> None:
        self._conn().execute("INSERT OR REPLACE INTO notices_swept VALUES (1, ?)", (mark,))


class RedisOutbox:
    """Notices in Redis: a hash per notice, a sorted set per game, one of due ids."""

    def __init__(self, r):
        self.r = r
        self._secret = None
        self.move_old_due()

    def move_old_due(self) -> int:
        """The notices due in the one set before the split, moved into their buckets
        (idempotent, safe with several processes at once: each entry is added where
        absent, then removed from the old set). Returns how many."""
        n = 0
        while batch := self.r.zrange(OLD_DUE, 0, 499, withscores=True):
            for member, when in batch:
                self.r.zadd(_due_key(member.decode().partition("|")[0]), {member: when}, nx=True)
                self.r.zrem(OLD_DUE, member)
                n += 1
        return n

    def _k(self, game_id: str, what: str) -> str:
        return f"{{g:{game_id}}}:{what}"

    def put(self, n: dict) -> bool:
        key = self._k(n["game"], "notice:" + n["id"])
        fields = {"id": n["id"], "game": n["game"], "seat": n["seat"], "version": n["version"],
                  "reason": n["reason"], "body": json.dumps(n["body"]), "created": n["created"],
                  "state": "pending", "attempts": 0, "next_try": n["created"], "error": "", "done": ""}
        if not self.r.hsetnx(key, "id", n["id"]):
            return False
        self.r.hset(key, mapping=fields)
        self.r.zadd(self._k(n["game"], "notices"), {n["id"]: n["created"]})
        self.r.zadd(self._k(n["game"], "pending"), {n["id"]: n["created"]})
        self.r.zadd(_due_key(n["game"]), {f"{n['game']}|{n['id']}": n["created"]})
        return True

    def _get(self, game_id: str, nid: str) -> dict | None:
        h = self.r.hgetall(self._k(game_id, "notice:" + nid))
        if not h:
            return None
        h = {k.decode(): v.decode() for k, v in h.items()}
        return {"id": h["id"], "game": h["game"], "seat": int(h["seat"]), "version": int(h["version"]),
                "reason": h["reason"], "body": json.loads(h["body"]), "created": float(h["created"]),
                "state": h["state"], "attempts": int(h["attempts"]), "next_try": float(h["next_try"]),
                "error": h["error"] or None, "done": _done(h.get("done"))}

    def of_game(self, game_id: str) -> list[dict]:
        ids = [i.decode() for i in self.r.zrange(self._k(game_id, "notices"), 0, -1)]
        return [n for n in (self._get(game_id, i) for i in ids) if n]

    def due(self, now: float, limit: int = 100) -> list[dict]:
        out = []
        pipe = self.r.pipeline(transaction=False)
        for t in every(DUE):
            pipe.zrangebyscore(t, "-inf", now, start=0, num=limit, withscores=True)
        merged = heapq.merge(*pipe.execute(), key=lambda pair: (pair[1], pair[0]))  # the earliest first
        for member, _ in itertools.islice(merged, limit):
            game_id, _, nid = member.decode().partition("|")
            n = self._get(game_id, nid)
            if n and n["state"] == "pending":
                out.append(n)
            else:  # sent or failed for good (never pending again): e.g. put back by a start's move
                self.r.zrem(_due_key(game_id), member)
        return sorted(out, key=lambda n: (n["next_try"], n["created"], n["id"]))

    def pending_before(self, notice: dict) -> list[dict]:
        ids = self.r.zrangebyscore(self._k(notice["game"], "pending"), "-inf", f"({notice['created']}")
        found = (self._get(notice["game"], i.decode()) for i in ids)
        return [n for n in found if n and n["seat"] == notice["seat"] and n["state"] == "pending"]

    def delivered(self, nid: str, done: list[str]) -> None:
        self.r.hset(self._k(nid.split(".", 1)[0], "notice:" + nid), "done", ",".join(done))

    def mark(self, nid: str, state: str, attempts: int, next_try: float, error: str | None,
             done: list[str] | None = None) -> None:
        game_id = nid.split(".", 1)[0]
        fields = {"state": state, "attempts": attempts, "next_try": next_try, "error": error or ""}
        if done is not None:
            fields["done"] = ",".join(done)
        self.r.hset(self._k(game_id, "notice:" + nid), mapping=fields)
        member = f"{game_id}|{nid}"
        if state == "pending":
            self.r.zadd(_due_key(game_id), {member: next_try})
        else:
            self.r.zrem(_due_key(game_id), member)
            self.r.zrem(self._k(game_id, "pending"), nid)

    def claim(self, notice: dict, until: float) -> bool:
        # one claimer per notice and attempt: SET NX on a key named after both
        key = self._k(notice["game"], f"claim:{notice['id']}:{notice['attempts']}:{notice['next_try']}")
        if not self.r.set(key, 1, nx=True, ex=int(until - time.time()) + 1 if until > time.time() else 1):
            return False
        self.mark(notice["id"], "pending", notice["attempts"], until, notice["error"])
        return True

    def secret(self) -> str:
        import secrets

        if self._secret is None:  # made once, never changed: read once per process
            self.r.set("referee:mail-secret", secrets.token_hex(32), nx=True)
            self._secret = self.r.get("referee:mail-secret").decode()
        return self._secret

    def cursor(self, game_id: str, seat: int) -> int:
        got = self.r.hget(self._k(game_id, "notice-cursors"), str(seat))
        return int(got) if got else 0

    def advance(self, game_id: str, seat: int, version: int) -> None:
        # max(old, new) without a script: a cursor only moves forward
        key = self._k(game_id, "notice-cursors")
        if version > self.cursor(game_id, seat):
            self.r.hset(key, str(seat), version)

    def swept(self) -> str | None:
        got = self.r.get(SWEPT)
        return None if got is None else got.decode()

    def mark_swept(self, mark: str) -> None:
        self.r.set(SWEPT, mark)
