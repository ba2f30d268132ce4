"""The referee's signing keys: one current Ed25519 key, and every earlier one kept
so that what it signed can still be checked (``GET /v1/keys`` lists them all).

The keys are kept in the store, beside the games (docs/running.md, "The signing
key"): with SQLite a table ``referee_keys`` in the same file, with Redis one hash,
``{referee:keys}`` (a slot of its own in a Redis Cluster). A private key never
leaves the store but to sign: no log line, answer or listing holds it (``Key``'s
``repr`` leaves it out).

The first process that needs a key and finds none makes one; two processes
racing at a first start both write, and the store keeps one (SQLite: the
``current`` column is unique; Redis: one script), so every process signs with the
same key. ``rotate`` (``referee keys rotate``) makes a new current key and closes
the old one's ``until``. Each process reads which key is current again every
``REFRESH`` seconds, so a rotation elsewhere is taken up within that time; a
receipt signed by the old key meanwhile still verifies, as every old key's
receipts do.

Anything that signs for the referee takes the same current key from the ring
(``KeyRing.current()``: its ``key_id``, raw ``public`` bytes and ``sign``), a
receipt now, a checkpoint's signed note later, so one published key speaks for
all of it.
"""

from __future__ import annotations

import base64
import hashlib
import json
import sqlite3
import threading
import time
from contextlib import closing
from dataclasses import dataclass, field

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    PublicFormat,
)

from referee.events import utcnow

ALGORITHM = "ed25519"
REFRESH = 2.0  # seconds between a process's looks at which key is current


def key_id(public: bytes) -> str:
    """A key's id: the first 16 hex digits of SHA-256 of its raw public key, so
    anyone holding the key can check the id names it."""
    return hashlib.sha256(public).hexdigest()[:16]


@dataclass(frozen=True)
class Key:
    key_id: str
    public: bytes  # the raw 32-byte Ed25519 public key
    since: str  # when it became current (UTC, ISO 8601, as an event's ``at``)
    until: str | None = None  # when another replaced it; None while current
    private: Ed25519PrivateKey | None = field(default=None, repr=False, compare=False)

    def sign(self, message: bytes) -> bytes:
        """The 64-byte Ed25519 signature of ``message``."""
        return self.private.sign(message)

    def listed(self) -> dict:
        """The key as ``GET /v1/keys`` lists it: its public half only."""
        return {"key_id": self.key_id, "algorithm": ALGORITHM,
                "public_key": base64.b64encode(self.public).decode(), "since": self.since,
                "until": self.until}


def _new(since: str) -> tuple[str, str]:
    """A fresh key: its id and its stored record (the private seed, base64)."""
    private = Ed25519PrivateKey.generate()
    seed = private.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
    public = private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    return key_id(public), json.dumps({"private": base64.b64encode(seed).decode(), "since": since})


def _key(kid: str, record: str, until: str | None) -> Key:
    stored = json.loads(record)
    private = Ed25519PrivateKey.from_private_bytes(base64.b64decode(stored["private"]))
    public = private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    return Key(kid, public, stored["since"], until, private)


class SqliteKeys:
    """The keys in the game store's SQLite file: one row a key, the current one
    marked by ``current = 1``, which the unique index allows once."""

    SCHEMA = ("CREATE TABLE IF NOT EXISTS referee_keys (key_id TEXT PRIMARY KEY, record TEXT NOT NULL, "
              "until TEXT, current INTEGER UNIQUE CHECK (current = 1))")

    def __init__(self, path: str):
        self.path = path
        with self._conn() as conn:
            conn.execute(self.SCHEMA)

    def _conn(self):
        conn = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        conn.execute("PRAGMA busy_timeout=30000")
        return closing(conn)

    def current_id(self) -> str | None:
        with self._conn() as conn:
            row = conn.execute("SELECT key_id FROM referee_keys WHERE current = 1").fetchone()
        return row[0] if row else None

    def add_first(self, kid: str, record: str) -> str:
        """Make ``kid`` current unless a key is current already; the current key's id."""
        with self._conn() as conn:
            conn.execute("INSERT OR IGNORE INTO referee_keys VALUES (?, ?, NULL, 1)", (kid, record))
            return conn.execute("SELECT key_id FROM referee_keys WHERE current = 1").fetchone()[0]

    def rotate(self, kid: str, record: str, now: str) -> None:
        with self._conn() as conn:
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("UPDATE referee_keys SET until = ?, current = NULL WHERE current = 1", (now,))
            conn.execute("INSERT INTO referee_keys VALUES (?, ?, NULL, 1)", (kid, record))
            conn.execute("COMMIT")

    def get(self, kid: str) -> tuple[str, str | None]:
        with self._conn() as conn:
            return conn.execute("SELECT record, until FROM referee_keys WHERE key_id = ?", (kid,)).fetchone()

    def all(self) -> list[tuple[str, str, str | None]]:
        with self._conn() as conn:
            return conn.execute("SELECT key_id, record, until FROM referee_keys").fetchall()


# One hash: ``current`` -> the current key's id, ``key:ID`` -> its record,
# ``until:ID`` -> when it stopped being current. Each script touches that one key.
FIRST = """
local current = redis.call('HGET', KEYS[1], 'current')
if current then return current end
redis.call('HSET', KEYS[1], 'key:' .. ARGV[1], ARGV[2], 'current', ARGV[1])
return ARGV[1]
"""
ROTATE = """
local current = redis.call('HGET', KEYS[1], 'current')
if current then redis.call('HSET', KEYS[1], 'until:' .. current, ARGV[3]) end
redis.call('HSET', KEYS[1], 'key:' .. ARGV[1], ARGV[2], 'current', ARGV[1])
return 1
"""


class RedisKeys:
    KEY = "{referee:keys}"

    def __init__(self, r):
        self.r = r
        self._first = r.register_script(FIRST)
        self._rotate = r.register_script(ROTATE)

    def current_id(self) -> str | None:
        found = self.r.hget(self.KEY, "current")
        return found.decode() if found is not None else None

    def add_first(self, kid: str, record: str) -> str:
        return self._first(keys=[self.KEY], args=[kid, record]).decode()

    def rotate(self, kid: str, record: str, now: str) -> None:
        self._rotate(keys=[self.KEY], args=[kid, record, now])

    def get(self, kid: str) -> tuple[str, str | None]:
        record, until = self.r.hmget(self.KEY, "key:" + kid, "until:" + kid)
        return record.decode(), until.decode() if until is not None else None

    def all(self) -> list[tuple[str, str, str | None]]:
        fields = {k.decode(): v.decode() for k, v in self.r.hgetall(self.KEY).items()}
        return [(name[4:], record, fields.get("until:" + name[4:]))
                for name, record in fields.items() if name.startswith("key:")]


class KeyRing:
    """The current key (made on first need) and every earlier one, as the store
    keeps them; one per service, read again every ``refresh`` seconds."""

    def __init__(self, backend, refresh: float = REFRESH):
        self.backend, self.refresh = backend, refresh
        self._key: Key | None = None
        self._checked = 0.0
        self._lock = threading.Lock()

    def current(self) -> Key:
        key = self._key
        if key is not None and time.monotonic() - self._checked < self.refresh:
            return key
        with self._lock:
            if self._key is None or time.monotonic() - self._checked >= self.refresh:
                kid = self.backend.current_id() or self.backend.add_first(*_new(utcnow()))
                if self._key is None or self._key.key_id != kid:
                    self._key = _key(kid, *self.backend.get(kid))
                self._checked = time.monotonic()
            return self._key

    def keys(self) -> list[dict]:
        """Every key, public halves only, oldest first (the current one made if none is)."""
        self.current()
        found = [_key(kid, record, until) for kid, record, until in self.backend.all()]
        return [k.listed() for k in sorted(found, key=lambda k: (k.since, k.key_id))]

    def rotate(self) -> Key:
        """A new current key; the one before stays listed, with its ``until``."""
        now = utcnow()
        kid, record = _new(now)
        self.backend.rotate(kid, record, now)
        with self._lock:
            self._key, self._checked = _key(kid, record, None), time.monotonic()
        return self._key


def ring_of(store) -> KeyRing:
    """The key ring kept in ``store`` (its SQLite file, or its Redis)."""
    return KeyRing(SqliteKeys(store.path) if hasattr(store, "path") else RedisKeys(store.r))
