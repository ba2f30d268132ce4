"""Where the transparency log's tree lives: beside the games, in the game store's
SQLite file (tables ``tlog_*``) or its Redis (keys under the one hash tag
``{referee:tlog}``, so one slot of a Redis Cluster holds them all and a script
may touch them together).

What is kept:

* the tree's complete subtrees (referee/transparency/merkle.py), each written
  once, never changed;
* each leaf's text, and where each game's or league's event is in the tree;
* each log's *cursor*: the last of its events that is a leaf;
* the tree's size, and the signed checkpoints, one per size published;
* the witnesses' cosignatures, per checkpoint, and the witnesses seen (capped).

``integrate`` writes a batch of leaves, their subtrees, the cursors and the new
size at once, and only if the size is still the one the batch was made on
(compare-and-set): two sequencers never both write, and a process killed before
the write wrote nothing, after it everything. Publishing a checkpoint is a second
write; a sequencer that finds the tree bigger than its last checkpoint publishes
one, so a kill between the two loses nothing and doubles nothing.

The logs noted as having events to integrate (*pending*) are kept in Redis with
Redis (any worker may integrate them), in the process's memory with SQLite (the
process that appended integrates; a sweep at start finds what a killed process
left).
"""

from __future__ import annotations

import os
import secrets
import threading
import uuid
from collections.abc import Iterable

from referee.transparency.merkle import Node, Nodes

MAX_WITNESSES = 16  # distinct witness keys whose cosignatures the referee keeps
# Redis: how long the tree's lock outlives a sequencer killed holding it. A round
# takes far less; one that took longer would only let a second sequencer run
# beside it, whose write the size's compare-and-set refuses.
LOCK_SECONDS = 5.0
ORIGIN_PREFIX = "castle-referee.invalid/tlog/"


def new_origin() -> str:
    """The log's name, made once (then kept in the store): REFEREE_TLOG_ORIGIN if
    set (a schema-less URL of the operator's, as C2SP asks), else a random one."""
    return os.environ.get("REFEREE_TLOG_ORIGIN", "").strip() or ORIGIN_PREFIX + secrets.token_hex(8)


class TreeStore(Nodes):
    """The interface both stores give (see the module's docstring)."""

    def size(self) -> int: ...
    def cursors(self, logs: list[str]) -> dict[str, int]: ...
    def integrate(self, expected: int, leaves: list[tuple[str, int, str]], nodes: dict[Node, bytes],
                  cursors: dict[str, int], settled: dict[str, int]) -> bool: ...
    def leaves(self, start: int, end: int) -> list[str]: ...
    def index_of(self, log: str, seq: int) -> int | None: ...
    def origin(self, wanted: str | None = None) -> str: ...
    def checkpoint(self, size: int | None = None) -> tuple[int, str] | None: ...
    def publish(self, size: int, note: str) -> None: ...
    def add_cosignature(self, size: int, witness: str, line: str, now: str) -> bool: ...
    def cosignatures(self, size: int) -> list[str]: ...
    def cosigned_size(self) -> int: ...
    def places(self, log: str) -> dict[int, int]: ...
    def witnessed(self) -> dict[str, int]: ...
    def note(self, log: str, version: int) -> None: ...
    def pending(self) -> dict[str, int]: ...
    def lock(self, seconds: float = LOCK_SECONDS) -> str | None: ...
    def unlock(self, token: str) -> None: ...


SCHEMA = """
CREATE TABLE IF NOT EXISTS tlog_nodes (id INTEGER PRIMARY KEY, hash BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS tlog_leaves (idx INTEGER PRIMARY KEY, log TEXT NOT NULL, seq INTEGER NOT NULL,
    data TEXT NOT NULL);
CREATE UNIQUE INDEX IF NOT EXISTS tlog_leaf_of ON tlog_leaves (log, seq);
CREATE TABLE IF NOT EXISTS tlog_cursors (log TEXT PRIMARY KEY, seq INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS tlog_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS tlog_checkpoints (size INTEGER PRIMARY KEY, note TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tlog_cosignatures (size INTEGER NOT NULL, witness TEXT NOT NULL, line TEXT NOT NULL,
    PRIMARY KEY (size, witness)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS tlog_witnesses (witness TEXT PRIMARY KEY, since TEXT NOT NULL) WITHOUT ROWID;
"""


def _node_id(node: Node) -> int:
    """A subtree's one integer key (its level in the top bits): a lookup by rowid,
    the quickest SQLite has, and one ``IN`` list for all of a proof's subtrees."""
    return (node[0] << 48) | node[1]


def _chunks(items: list, n: int = 400) -> Iterable[list]:
    for i in range(0, len(items), n):
        yield items[i:i + n]


class SqliteTree(TreeStore):
    def __init__(self, store):
        self.store = store
        with store._write_lock:
            store._writer().executescript(SCHEMA)
        self._pending: dict[str, int] = {}
        self._pending_lock = threading.Lock()
        self._sequencer = threading.Lock()

    def _read(self, sql: str, args=()) -> list:
        return self.store._conn().execute(sql, args).fetchall()

    def size(self):
        rows = self._read("SELECT value FROM tlog_meta WHERE name = 'size'")
        return int(rows[0][0]) if rows else 0

    def get(self, nodes):
        nodes = list(nodes)
        found: dict[int, bytes] = {}
        for part in _chunks(nodes):
            marks = ",".join("?" * len(part))
            found.update(self._read(f"SELECT id, hash FROM tlog_nodes WHERE id IN ({marks})",
                                    [_node_id(n) for n in part]))
        try:
            return {n: found[_node_id(n)] for n in nodes}
        except KeyError as err:
            raise LookupError(f"the tree has no subtree {err}") from None

    def cursors(self, logs):
        out = {}
        for part in _chunks(logs):
            marks = ",".join("?" * len(part))
            out.update(dict(self._read(f"SELECT log, seq FROM tlog_cursors WHERE log IN ({marks})", part)))
        return out

    def integrate(self, expected, leaves, nodes, cursors, settled):
        with self.store.immediate() as conn:
            rows = conn.execute("SELECT value FROM tlog_meta WHERE name = 'size'").fetchall()
            if (int(rows[0][0]) if rows else 0) != expected:
                return False
            conn.executemany("INSERT INTO tlog_nodes VALUES (?, ?)",
                             [(_node_id(n), h) for n, h in nodes.items()])
            conn.executemany("INSERT INTO tlog_leaves VALUES (?, ?, ?, ?)",
                             [(expected + i, log, seq, data) for i, (log, seq, data) in enumerate(leaves)])
            conn.executemany("INSERT INTO tlog_cursors VALUES (?, ?) ON CONFLICT (log) DO UPDATE "
                             "SET seq = excluded.seq", list(cursors.items()))
            conn.execute("INSERT INTO tlog_meta VALUES ('size', ?) ON CONFLICT (name) DO UPDATE "
                         "SET value = excluded.value", (str(expected + len(leaves)),))
        with self._pending_lock:
            for log, version in settled.items():
                if self._pending.get(log, 0) <= version:
                    self._pending.pop(log, None)
        return True

    def leaves(self, start, end):
        return [r[0] for r in self._read("SELECT data FROM tlog_leaves WHERE idx >= ? AND idx < ? ORDER BY idx",
                                         (start, end))]

    def index_of(self, log, seq):
        rows = self._read("SELECT idx FROM tlog_leaves WHERE log = ? AND seq = ?", (log, seq))
        return rows[0][0] if rows else None

    def origin(self, wanted=None):
        rows = self._read("SELECT value FROM tlog_meta WHERE name = 'origin'")
        if rows:
            return rows[0][0]
        with self.store.immediate() as conn:
            conn.execute("INSERT OR IGNORE INTO tlog_meta VALUES ('origin', ?)", (wanted or new_origin(),))
            return conn.execute("SELECT value FROM tlog_meta WHERE name = 'origin'").fetchall()[0][0]

    def checkpoint(self, size=None):
        rows = (self._read("SELECT size, note FROM tlog_checkpoints ORDER BY size DESC LIMIT 1") if size is None
                else self._read("SELECT size, note FROM tlog_checkpoints WHERE size = ?", (size,)))
        return (rows[0][0], rows[0][1]) if rows else None

    def publish(self, size, note):
        with self.store.immediate() as conn:
            conn.execute("INSERT OR IGNORE INTO tlog_checkpoints VALUES (?, ?)", (size, note))

    def add_cosignature(self, size, witness, line, now):
        with self.store.immediate() as conn:
            known = conn.execute("SELECT 1 FROM tlog_witnesses WHERE witness = ?", (witness,)).fetchall()
            if not known:
                if conn.execute("SELECT count(*) FROM tlog_witnesses").fetchall()[0][0] >= MAX_WITNESSES:
                    return False
                conn.execute("INSERT INTO tlog_witnesses VALUES (?, ?)", (witness, now))
            conn.execute("INSERT INTO tlog_cosignatures VALUES (?, ?, ?) ON CONFLICT (size, witness) "
                         "DO UPDATE SET line = excluded.line", (size, witness, line))
            conn.execute("INSERT INTO tlog_meta VALUES ('cosigned', ?) ON CONFLICT (name) DO UPDATE "
                         "SET value = max(CAST(value AS INTEGER), CAST(excluded.value AS INTEGER))", (str(size),))
        return True

    def cosignatures(self, size):
        return [r[0] for r in self._read("SELECT line FROM tlog_cosignatures WHERE size = ? ORDER BY witness",
                                         (size,))]

    def cosigned_size(self):
        rows = self._read("SELECT value FROM tlog_meta WHERE name = 'cosigned'")
        return int(rows[0][0]) if rows else 0

    def places(self, log):
        return dict(self._read("SELECT seq, idx FROM tlog_leaves WHERE log = ?", (log,)))

    def witnessed(self):
        return dict(self._read("SELECT witness, max(size) FROM tlog_cosignatures GROUP BY witness"))

    def note(self, log, version):
        with self._pending_lock:
            self._pending[log] = max(version, self._pending.get(log, 0))

    def pending(self):
        with self._pending_lock:
            return dict(self._pending)

    def lock(self, seconds=30.0):  # how long to wait for this process's other sequencer
        # One sequencer per process at a time; between processes the size's
        # compare-and-set in ``integrate`` keeps a batch from landing twice.
        return "held" if self._sequencer.acquire(timeout=seconds) else None

    def unlock(self, token):
        self._sequencer.release()


# ---- Redis -------------------------------------------------------------------------------

T = "{referee:tlog}"
K_SIZE, K_NODES, K_LEAVES, K_WHERE, K_CURSORS, K_PENDING = (
    f"{T}:size", f"{T}:nodes", f"{T}:leaves", f"{T}:where", f"{T}:cursors", f"{T}:pending")
K_META, K_CHECKPOINTS, K_WITNESSES, K_LOCK = f"{T}:meta", f"{T}:checkpoints", f"{T}:witnesses", f"{T}:lock"
K_WITNESSED = f"{T}:witnessed"  # each witness's largest size cosigned

INTEGRATE = """
local size = tonumber(redis.call('GET', KEYS[1]) or '0')
if size ~= tonumber(ARGV[1]) then return 0 end
local i = 3
local n = tonumber(ARGV[2])
for _ = 1, n do redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1]); i = i + 2 end
n = tonumber(ARGV[i]); i = i + 1
for _ = 1, n do
  redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 1])
  redis.call('HSET', KEYS[4], ARGV[i + 2], ARGV[i])
  i = i + 3
end
n = tonumber(ARGV[i]); i = i + 1
for _ = 1, n do redis.call('HSET', KEYS[5], ARGV[i], ARGV[i + 1]); i = i + 2 end
n = tonumber(ARGV[i]); i = i + 1
for _ = 1, n do
  local noted = tonumber(redis.call('HGET', KEYS[6], ARGV[i]) or '0')
  if noted <= tonumber(ARGV[i + 1]) then redis.call('HDEL', KEYS[6], ARGV[i]) end
  i = i + 2
end
redis.call('SET', KEYS[1], ARGV[i])
return 1
"""
NOTE = """
local noted = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
if tonumber(ARGV[2]) > noted then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end
return 1
"""
NOTE_MANY = """
for i = 1, #ARGV, 2 do
  local noted = tonumber(redis.call('HGET', KEYS[1], ARGV[i]) or '0')
  if tonumber(ARGV[i + 1]) > noted then redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
end
return 1
"""
COSIGN = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then
  if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[5]) then return 0 end
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[4])
end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
local cosigned = tonumber(redis.call('HGET', KEYS[3], 'cosigned') or '0')
if tonumber(ARGV[2]) > cosigned then redis.call('HSET', KEYS[3], 'cosigned', ARGV[2]) end
local mine = tonumber(redis.call('HGET', KEYS[4], ARGV[1]) or '-1')
if tonumber(ARGV[2]) > mine then redis.call('HSET', KEYS[4], ARGV[1], ARGV[2]) end
return 1
"""
UNLOCK = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


class RedisTree(TreeStore):
    def __init__(self, r):
        self.r = r
        self._integrate = r.register_script(INTEGRATE)
        self._note = r.register_script(NOTE)
        self._note_many = r.register_script(NOTE_MANY)
        self._cosign = r.register_script(COSIGN)
        self._unlock = r.register_script(UNLOCK)

    def size(self):
        return int(self.r.get(K_SIZE) or 0)

    def get(self, nodes):
        nodes = list(nodes)
        if not nodes:
            return {}
        found = self.r.hmget(K_NODES, [f"{lv}:{ix}" for lv, ix in nodes])
        if any(h is None for h in found):
            raise LookupError(f"the tree has no subtree {nodes[found.index(None)]}")
        return dict(zip(nodes, found, strict=True))

    def cursors(self, logs):
        if not logs:
            return {}
        return {log: int(seq) for log, seq in zip(logs, self.r.hmget(K_CURSORS, logs), strict=True) if seq is not None}

    def integrate(self, expected, leaves, nodes, cursors, settled):
        args: list = [expected, len(nodes)]
        for (lv, ix), h in nodes.items():
            args += [f"{lv}:{ix}", h]
        args.append(len(leaves))
        for i, (log, seq, data) in enumerate(leaves, start=expected):
            args += [i, data, f"{log}\n{seq}"]
        args.append(len(cursors))
        for log, seq in cursors.items():
            args += [log, seq]
        args.append(len(settled))
        for log, version in settled.items():
            args += [log, version]
        args.append(expected + len(leaves))
        return bool(self._integrate(keys=[K_SIZE, K_NODES, K_LEAVES, K_WHERE, K_CURSORS, K_PENDING], args=args))

    def leaves(self, start, end):
        if end <= start:
            return []
        return [d.decode() for d in self.r.hmget(K_LEAVES, list(range(start, end))) if d is not None]

    def index_of(self, log, seq):
        found = self.r.hget(K_WHERE, f"{log}\n{seq}")
        return int(found) if found is not None else None

    def origin(self, wanted=None):
        self.r.hsetnx(K_META, "origin", wanted or new_origin())
        return self.r.hget(K_META, "origin").decode()

    def checkpoint(self, size=None):
        if size is None:
            latest = self.r.hget(K_META, "published")  # (set from size 1 on: the empty tree's is 0)
            size = int(latest) if latest is not None else 0
        note = self.r.hget(K_CHECKPOINTS, size)
        return (size, note.decode()) if note is not None else None

    def publish(self, size, note):
        self.r.hsetnx(K_CHECKPOINTS, size, note)
        # the latest published only rises (a slower sequencer's older head never replaces it)
        self._note(keys=[K_META], args=["published", size])

    def add_cosignature(self, size, witness, line, now):
        return bool(self._cosign(keys=[K_WITNESSES, f"{T}:cosigs:{size}", K_META, K_WITNESSED],
                                 args=[witness, size, line, now, MAX_WITNESSES]))

    def cosignatures(self, size):
        return [v.decode() for _, v in sorted(self.r.hgetall(f"{T}:cosigs:{size}").items())]

    def cosigned_size(self):
        return int(self.r.hget(K_META, "cosigned") or 0)

    def places(self, log):
        # a log's events are integrated in order: its cursor says how many to look up
        last = self.r.hget(K_CURSORS, log)
        if last is None:
            return {}
        seqs = list(range(1, int(last) + 1))
        found = self.r.hmget(K_WHERE, [f"{log}\n{q}" for q in seqs])
        return {q: int(i) for q, i in zip(seqs, found, strict=True) if i is not None}

    def witnessed(self):
        return {k.decode(): int(v) for k, v in self.r.hgetall(K_WITNESSED).items()}

    def note(self, log, version):
        self._note(keys=[K_PENDING], args=[log, version])

    def note_many(self, notes: dict[str, int]) -> None:
        """Many notes in one round trip (one script call, its arguments in pairs)."""
        args: list = []
        for log, version in notes.items():
            args += [log, version]
        self._note_many(keys=[K_PENDING], args=args)

    def pending(self):
        return {k.decode(): int(v) for k, v in self.r.hgetall(K_PENDING).items()}

    def lock(self, seconds=LOCK_SECONDS):
        token = uuid.uuid4().hex
        return token if self.r.set(K_LOCK, token, nx=True, px=int(seconds * 1000)) else None

    def unlock(self, token):
        self._unlock(keys=[K_LOCK], args=[token])


def tree_of(store) -> TreeStore:
    """The tree kept in ``store`` (its SQLite file, or its Redis)."""
    return SqliteTree(store) if hasattr(store, "path") else RedisTree(store.r)
