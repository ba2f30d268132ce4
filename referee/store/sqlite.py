"""The embedded store: one SQLite file in WAL mode.

``synchronous=FULL`` (the default) makes every acknowledged append durable: a
process killed with -9, or a power cut, loses nothing it answered 201 for.
``REFEREE_SQLITE_SYNC=normal`` gives up the fsync of each commit (WAL with
``synchronous=NORMAL``): a killed process still loses nothing, since the commit
is in the WAL file the operating system holds, but a power cut or a kernel crash
may lose the last moments of acknowledged moves (docs/operations.md). The primary key
(game, seq) is the last line of defence against two writers both winning; the
version check inside ``BEGIN IMMEDIATE`` makes the loser see ``Conflict``.

Writers in one process take turns through one lock instead of racing for SQLite's
write lock (which it grants by sleeping and retrying), and whoever holds the lock
commits every append waiting behind it in one transaction (a group commit): each
append makes its checks (an answered request, the compare-and-set) before it
writes anything, so one that loses changes nothing and the others still land; an
error of SQLite itself undoes the whole group. Every caller returns only once the
one fsync covering its events is done.

Each append may carry a cached state (a snapshot), written in the same
transaction into ``snapshots``, so every process sharing the file starts a long
game from it instead of replaying the whole log.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from contextlib import contextmanager

from referee.events import Event
from referee.store.base import KEEP, Conflict, DuplicateRequest, GameRecord, Snapshot, Store

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY, game TEXT NOT NULL, created_at TEXT NOT NULL,
    record TEXT NOT NULL, status TEXT NOT NULL, version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS events (
    game_id TEXT NOT NULL, seq INTEGER NOT NULL, body TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS answers (
    game_id TEXT NOT NULL, key TEXT NOT NULL, answer TEXT NOT NULL,
    PRIMARY KEY (game_id, key)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS snapshots (
    game_id TEXT PRIMARY KEY, seq INTEGER NOT NULL, code TEXT NOT NULL, blob BLOB NOT NULL)
    WITHOUT ROWID;
-- The listing pages by cursor over these, newest first (never a full scan).
CREATE INDEX IF NOT EXISTS games_listing ON games (status, created_at, id);
CREATE INDEX IF NOT EXISTS games_created ON games (created_at, id);
DROP INDEX IF EXISTS games_status;
"""
# The deadline index: each game's next timer (referee/clock.py), written in the
# same transaction as the events that set it. Added in 0.2.0 to older files.
TIMERS = """
CREATE INDEX IF NOT EXISTS games_timer ON games (timer) WHERE timer IS NOT NULL;
"""
# The listing's count of moves and seats to act, written by the appends. Added in
# 0.3.0 to older files: their games' moves are counted once from their logs; the
# seats to act are known from a game's next append on.
LISTING = """
ALTER TABLE games ADD COLUMN moves INTEGER NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN to_act TEXT;
UPDATE games SET moves = (SELECT COUNT(*) FROM events e WHERE e.game_id = games.id
    AND json_type(e.body, '$.actor') = 'integer' AND json_type(e.body, '$.payload.move') IS NOT NULL);
"""


SYNC_LEVELS = {"full": "FULL", "normal": "NORMAL"}


def sync_level() -> str:
    """SQLite's ``synchronous`` setting from ``REFEREE_SQLITE_SYNC``: ``full``
    (the default, an fsync per commit) or ``normal``; anything else is refused at
    start, never taken for a weaker setting."""
    given = os.environ.get("REFEREE_SQLITE_SYNC", "full").strip().lower() or "full"
    if given not in SYNC_LEVELS:
        raise ValueError(f"REFEREE_SQLITE_SYNC must be full or normal, not {given!r}")
    return SYNC_LEVELS[given]


class _Append:
    """One append waiting for a group commit."""

    __slots__ = ("args", "done", "error")

    def __init__(self, args):
        self.args, self.done, self.error = args, False, None


class SqliteStore(Store):
    keeps_snapshots = True

    def __init__(self, path: str):
        # As in SQLAlchemy: sqlite:///referee.db is relative to the working folder,
        # sqlite:////var/lib/referee/referee.db is absolute.
        path = path[1:] if path.startswith("/") else path
        self.path = path or "referee.db"
        self.sync = sync_level()
        if os.path.dirname(self.path):
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
        self._local = threading.local()
        self._write_lock = threading.Lock()  # one writer per process at a time
        self._writer_conn: sqlite3.Connection | None = None
        self._writer_pid = 0
        self._queue_lock = threading.Lock()
        self._waiting: list[_Append] = []
        with self._conn() as conn:
            conn.executescript(SCHEMA)
            if "timer" not in self._columns(conn):  # as below: processes opening a new file at once
                conn.execute("BEGIN IMMEDIATE")
                if "timer" not in self._columns(conn):
                    conn.execute("ALTER TABLE games ADD COLUMN timer TEXT")
                conn.execute("COMMIT")
            conn.executescript(TIMERS)
            if "moves" not in self._columns(conn):  # (an open takes no write lock but this once)
                conn.execute("BEGIN IMMEDIATE")  # one process adds the columns, the others see them
                if "moves" not in self._columns(conn):
                    for statement in LISTING.split(";")[:-1]:
                        conn.execute(statement)
                conn.execute("COMMIT")

    @staticmethod
    def _columns(conn) -> set[str]:
        return {r[1] for r in conn.execute("PRAGMA table_info(games)").fetchall()}

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
        # Turning a new file to WAL takes an exclusive lock, and SQLite answers "locked"
        # at once, without its busy wait, to a process that asks while another holds
        # the file (processes starting on one new store at once): ask again a moment
        # later. A file already in WAL answers at once.
        deadline = time.monotonic() + 30
        while True:
            try:
                conn.execute("PRAGMA journal_mode=WAL")
                break
            except sqlite3.OperationalError as err:
                if "locked" not in str(err) or time.monotonic() > deadline:
                    raise
                time.sleep(0.01)
        conn.execute(f"PRAGMA synchronous={self.sync}")
        conn.execute("PRAGMA busy_timeout=30000")
        return conn

    def _conn(self) -> sqlite3.Connection:
        """This thread's connection, for reads."""
        conn = getattr(self._local, "conn", None)
        if conn is None or getattr(self._local, "pid", None) != os.getpid():
            conn = self._connect()
            self._local.conn, self._local.pid = conn, os.getpid()
        return conn

    def _writer(self) -> sqlite3.Connection:
        """The process's one connection for writes, used only under the write lock.
        One, not one per thread: SQLite drops a connection's page cache whenever
        another connection has written since its last transaction, so writers
        taking turns on their own connections each began by reading the pages
        again."""
        if self._writer_conn is None or self._writer_pid != os.getpid():
            conn = self._connect()
            # Its transactions begin by themselves with the first write, as BEGIN
            # IMMEDIATE (the sqlite3 module's implicit transactions), and end with
            # commit() or rollback(): the transactions spelled-out BEGIN and COMMIT
            # statements would make, without running each as a statement. The
            # module lets other threads have the interpreter at every step of a
            # statement, and each such turn costs a busy server a thread switch.
            conn.isolation_level = "IMMEDIATE"
            self._writer_conn, self._writer_pid = conn, os.getpid()
        return self._writer_conn

    @contextmanager
    def _transaction(self):
        """The writer connection under the write lock: its first write begins the
        transaction (see _writer), committed at the end, undone on any error."""
        with self._write_lock:
            conn = self._writer()
            try:
                yield conn
                conn.commit()
            except BaseException:
                conn.rollback()
                raise

    @contextmanager
    def immediate(self):
        """The writer connection under the write lock, in a transaction begun at once
        (BEGIN IMMEDIATE): what it reads is what it writes over, in every process. For
        the rooms that keep tables of their own in this file (``SideTables``) and
        compare-and-set on what they read."""
        with self._transaction() as conn:
            conn.execute("BEGIN IMMEDIATE")
            yield conn

    def create(self, record: GameRecord, first: Event, timer: str | None = None,
               to_act: list[int] | None = None) -> None:
        with self._transaction() as conn:
            conn.execute("INSERT INTO games (id, game, created_at, record, status, version, timer, to_act) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                         (record.id, record.game, record.created_at, json.dumps(record.to_dict()),
                          record.status, first.seq, timer, None if to_act is None else json.dumps(to_act)))
            conn.execute("INSERT INTO events VALUES (?, ?, ?)", (record.id, first.seq, first.to_json()))

    def record(self, game_id: str) -> GameRecord | None:
        # fetchall, not fetchone: a statement left unfinished would hold its read
        # snapshot open and later reads on this connection would see stale data.
        rows = self._conn().execute("SELECT record, status, version FROM games WHERE id = ?",
                                    (game_id,)).fetchall()
        if not rows:
            return None
        row = rows[0]
        rec = GameRecord.from_dict(json.loads(row[0]))
        rec.status, rec.version, rec.raw = row[1], row[2], row[0]
        return rec

    def version(self, game_id: str) -> int | None:
        rows = self._conn().execute("SELECT version FROM games WHERE id = ?", (game_id,)).fetchall()
        return rows[0][0] if rows else None

    def raw_events(self, game_id: str, after: int = 0, limit: int | None = None) -> list[str]:
        rows = self._conn().execute(
            "SELECT body FROM events WHERE game_id = ? AND seq > ? ORDER BY seq LIMIT ?",
            (game_id, after, -1 if limit is None else limit)).fetchall()
        return [r[0] for r in rows]

    def events(self, game_id: str, after: int = 0, limit: int | None = None) -> list[Event]:
        return [Event.from_json(b) for b in self.raw_events(game_id, after, limit)]

    def append(self, game_id, expected, events, *, status, idem=None, snapshot=None, timer=KEEP,
               record_text=None, tally=None, to_act=KEEP):
        if tally is not None:  # the rate limiter leaves counting to a Redis store only
            raise ValueError("a SQLite store keeps no rate counters")
        mine = _Append((game_id, expected, events, status, idem, snapshot, timer, record_text, to_act))
        with self._queue_lock:
            self._waiting.append(mine)
        with self._write_lock:
            if not mine.done:  # else the writer before us committed it with its own
                with self._queue_lock:
                    batch, self._waiting = self._waiting, []
                self._commit(batch)
        if mine.error is not None:
            raise mine.error

    def _commit(self, batch: list[_Append]) -> None:
        conn = self._writer()
        committed = False
        try:
            try:
                for w in batch:  # the first write begins the transaction (see _writer)
                    try:
                        self._append_one(conn, *w.args)
                    except (Conflict, DuplicateRequest) as err:  # refused before it wrote anything
                        w.error = err
                conn.commit()
                committed = True
            except BaseException:
                conn.rollback()
                raise
        except Exception as err:  # nothing of the batch was written
            for w in batch:
                if w.error is None:
                    w.error = err
        finally:
            for w in batch:
                if not committed and w.error is None:
                    w.error = RuntimeError("the write was interrupted before its commit")
                w.done = True

    @staticmethod
    def _append_one(conn, game_id, expected, events, status, idem, snapshot, timer=KEEP, record_text=None,
                    to_act=KEEP):
        """One append, checked before anything is written: a request answered
        already, then the compare-and-set (which is the first write). One refused
        by either wrote nothing, so appends committed together need no savepoint
        each; any other error undoes the whole transaction."""
        if idem is not None:
            got = conn.execute("SELECT answer FROM answers WHERE game_id = ? AND key = ?",
                               (game_id, idem[0])).fetchall()
            if got:
                raise DuplicateRequest(json.loads(got[0][0]))
        # The compare-and-set: the game moves on only from the version expected
        # (and the record's text, when the decision was made on a kept copy).
        sets, params = "status = ?, version = ?", [status, events[-1].seq]
        if timer is not KEEP:
            sets += ", timer = ?"
            params.append(timer)
        moves = sum(e.is_move for e in events)
        if moves:
            sets += ", moves = moves + ?"
            params.append(moves)
        if to_act is not KEEP:
            sets += ", to_act = ?"
            params.append(json.dumps(to_act))
        where = "id = ? AND version = ?"
        params += [game_id, expected]
        if record_text is not None:
            where += " AND record = ?"
            params.append(record_text)
        moved = conn.execute(f"UPDATE games SET {sets} WHERE {where}", params)
        if moved.rowcount != 1:
            rows = conn.execute("SELECT version FROM games WHERE id = ?", (game_id,)).fetchall()
            raise Conflict(rows[0][0] if rows else 0)
        if idem is not None:
            conn.execute("INSERT INTO answers VALUES (?, ?, ?)",
                         (game_id, idem[0], json.dumps(idem[1])))
        conn.executemany("INSERT INTO events VALUES (?, ?, ?)",
                         [(game_id, e.seq, e.to_json()) for e in events])
        if snapshot is not None:
            conn.execute("INSERT OR REPLACE INTO snapshots VALUES (?, ?, ?, ?)",
                         (game_id, snapshot.seq, snapshot.code, snapshot.blob))

    def put_record(self, record: GameRecord) -> None:
        with self._transaction() as conn:
            conn.execute("UPDATE games SET record = ? WHERE id = ?", (json.dumps(record.to_dict()), record.id))

    def snapshot(self, game_id: str) -> Snapshot | None:
        rows = self._conn().execute("SELECT seq, code, blob FROM snapshots WHERE game_id = ?",
                                    (game_id,)).fetchall()
        return Snapshot(rows[0][0], rows[0][1], bytes(rows[0][2])) if rows else None

    def answer(self, game_id: str, key: str) -> dict | None:
        rows = self._conn().execute("SELECT answer FROM answers WHERE game_id = ? AND key = ?",
                                    (game_id, key)).fetchall()
        return json.loads(rows[0][0]) if rows else None

    def page(self, status=None, limit=100, after=None):
        where, args = [], []
        if status:
            where.append("status = ?")
            args.append(status)
        if after is not None:
            got = self._conn().execute("SELECT created_at FROM games WHERE id = ?", (after,)).fetchall()
            if not got:
                return [], None
            where.append("(created_at, id) < (?, ?)")
            args += [got[0][0], after]
        sql = "SELECT id, game, created_at, status, version, record, moves, to_act FROM games"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY created_at DESC, id DESC LIMIT ?"
        rows = self._conn().execute(sql, (*args, limit + 1)).fetchall()
        out = [{"id": r[0], "game": r[1], "created_at": r[2], "status": r[3], "version": r[4],
                "players": json.loads(r[5])["players"], "moves": r[6],
                "to_act": None if r[7] is None else json.loads(r[7])} for r in rows[:limit]]
        return out, (out[-1]["id"] if len(rows) > limit else None)

    def glance(self, game_ids, players=False):
        if not game_ids:
            return {}
        # the ids as one JSON parameter: any number of them in one statement
        names = ", json_extract(record, '$.players')" if players else ""
        rows = self._conn().execute(f"SELECT id, game, created_at, status, version, to_act, timer{names} "
                                    "FROM games WHERE id IN (SELECT value FROM json_each(?))",
                                    (json.dumps(list(game_ids)),)).fetchall()
        acting = {t: json.loads(t) for t in {r[5] for r in rows} if t is not None}  # a few texts, each read once
        out = {r[0]: {"game": r[1], "created_at": r[2], "status": r[3], "version": r[4],
                      "to_act": acting.get(r[5]), "timer": r[6]} for r in rows}
        if players:
            for r in rows:
                out[r[0]]["players"] = json.loads(r[7])
        return out

    def due_timers(self, now: str, limit: int = 100) -> list[str]:
        rows = self._conn().execute("SELECT id FROM games WHERE timer IS NOT NULL AND timer <= ? "
                                    "ORDER BY timer LIMIT ?", (now, limit)).fetchall()
        return [r[0] for r in rows]

    def set_timer(self, game_id: str, version: int, timer: str | None) -> bool:
        with self._transaction() as conn:
            moved = conn.execute("UPDATE games SET timer = ? WHERE id = ? AND version = ?",
                                 (timer, game_id, version)).rowcount
        return moved == 1

    def timer(self, game_id: str) -> str | None:
        rows = self._conn().execute("SELECT timer FROM games WHERE id = ?", (game_id,)).fetchall()
        return rows[0][0] if rows else None

    def ping(self) -> bool:
        self._conn().execute("SELECT 1").fetchall()
        return True

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None
        with self._write_lock:
            if self._writer_conn is not None and self._writer_pid == os.getpid():
                self._writer_conn.close()
            self._writer_conn = None


class SideTables:
    """Tables a room of the referee keeps in the game store's SQLite file (the
    players', the leagues'): made by the store's writer at start (``SCHEMA``),
    written in its transactions begun at once (``_tx``), read on the reading
    thread's connection (``_read``)."""

    SCHEMA = ""

    def __init__(self, store: SqliteStore):
        self.store = store
        with store._write_lock:
            store._writer().executescript(self.SCHEMA)

    def _tx(self):
        """A transaction begun at once on the game store's writer (SqliteStore.immediate)."""
        return self.store.immediate()

    def _read(self, sql: str, args=()) -> list:
        return self.store._conn().execute(sql, args).fetchall()
