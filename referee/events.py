"""Events of a game's log, their canonical JSON and the hash chain.

A log is a list of events with ``seq`` 1..n and no gaps. Each event's ``hash`` is
the SHA-256 of the canonical JSON of its other fields, ``prev`` (the previous
event's hash) included, so changing any byte of any event breaks every hash after
it. Canonical JSON: keys sorted, no insignificant white space, UTF-8, integers as
integers. Anyone can recompute a hash with a dozen lines in any language.

Each event also carries a ``salt``: HMAC-SHA256 of its ``seq`` keyed by the game's
salt key, a random secret of the server that nobody outside it knows until the
end. Without a salt a hash would betray hidden content of little entropy (a
smuggled piece is one of three kinds: hash the three guesses and compare). The
key is not the shuffle seed: a seat may know or guess the seed of a private game,
and a salt derived from it would then be no secret. Salts are withheld from seats
and spectators until the key is revealed with the seed at the end, when anyone can
re-derive and check them. (Logs written before 0.2.0 keyed salts by the seed; the
audit still verifies them.)
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from json.encoder import c_make_encoder, encode_basestring

GENESIS = "0" * 64  # the ``prev`` of event 1
REFEREE = "referee"  # the actor of every event the referee itself writes


def salt(key: str | None, seq: int) -> str:
    """The salt of event ``seq`` of the game with this salt key ("" when unknown)."""
    if key is None:
        return ""
    return hmac.new(key.encode(), f"salt:{seq}".encode(), hashlib.sha256).hexdigest()


_SHA256_BLOCK = hashlib.sha256().block_size  # 64 bytes: HMAC pads the key to it


class Salts:
    """``salt(key, seq)`` checked for many events of one game (an audit checks each).
    HMAC-SHA256 (RFC 2104) is SHA-256 over the key's outer pad and the digest of
    SHA-256 over its inner pad and the message: both pads are hashed once here,
    and each event copies the two hashes already fed (a third of the time of
    copying a keyed ``hmac`` object, whose copy is Python's own code). A test
    checks it against ``salt`` for keys of every length."""

    def __init__(self, key: str):
        secret = key.encode()
        if len(secret) > _SHA256_BLOCK:  # a key longer than a block is hashed first
            secret = hashlib.sha256(secret).digest()
        secret = secret.ljust(_SHA256_BLOCK, b"\0")
        self._inner = hashlib.sha256(bytes(b ^ 0x36 for b in secret))
        self._outer = hashlib.sha256(bytes(b ^ 0x5C for b in secret))

    def first_wrong(self, events: list[Event]) -> Event | None:
        """The first of ``events`` whose salt is not ``salt(key, seq)``, or None: the
        audit's check of every event, as one loop (no call per event)."""
        inner_pad, outer_pad = self._inner, self._outer
        for ev in events:
            inner = inner_pad.copy()
            inner.update(b"salt:%d" % ev.seq)
            outer = outer_pad.copy()
            outer.update(inner.digest())
            if outer.hexdigest() != ev.salt:
                return ev
        return None


# Built once: json.dumps with these options would build the same encoder per call.
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def canonical(obj) -> bytes:
    return canonical_text(obj).encode()


def canonical_text(obj) -> str:
    """The canonical JSON text (sorted keys, no spaces, UTF-8 as is)."""
    return _CANONICAL.encode(obj)


if c_make_encoder is not None:
    # The same C encoder canonical_text runs, made once instead of per call, and
    # without the check for cycles: a value parsed from JSON has none. For the
    # audit, which encodes every line of a log again.
    _PARSED = c_make_encoder(None, _CANONICAL.default, encode_basestring, None, ":", ",",
                             True, False, True)

    def parsed_canonical_text(value) -> str:
        """canonical_text of a value json.loads gave (nothing else: no cycle check)."""
        return "".join(_PARSED(value, 0))
else:  # pragma: no cover - a Python built without the json accelerator
    parsed_canonical_text = canonical_text


def utcnow() -> str:
    """The ``at`` of a new event: UTC, ISO 8601, microseconds, ``Z``."""
    # isoformat, not strftime("%Y-%m-%dT%H:%M:%S.%fZ"): the same text, at half the cost
    return datetime.now(UTC).isoformat(timespec="microseconds")[:-6] + "Z"


@dataclass(slots=True)
class Event:
    seq: int
    type: str
    actor: int | str
    at: str
    payload: dict
    prev: str = GENESIS
    salt: str = ""
    hash: str = ""
    # The canonical JSON as sealed. Once an event is sealed, what is stored and
    # answered is this text, whatever later happens to the payload's objects in
    # memory (an engine keeping a list of it in its state, say).
    frozen: str | None = field(default=None, repr=False, compare=False)

    def body(self) -> dict:
        return {"seq": self.seq, "type": self.type, "actor": self.actor, "at": self.at,
                "payload": self.payload, "prev": self.prev, "salt": self.salt}

    def compute_hash(self) -> str:
        return hashlib.sha256(canonical(self.body())).hexdigest()

    def sealed(self) -> Event:
        self.hash = self.compute_hash()
        self.frozen = canonical({**self.body(), "hash": self.hash}).decode()
        return self

    def to_dict(self) -> dict:
        if self.frozen is not None:
            return json.loads(self.frozen)
        return {**self.body(), "hash": self.hash}

    def to_json(self) -> str:
        return self.frozen if self.frozen is not None else canonical(self.to_dict()).decode()

    @property
    def is_move(self) -> bool:
        """A seat's move (the first event of it: the one that records the move),
        not a consequence written with it nor a referee step."""
        return (isinstance(self.actor, int) and not isinstance(self.actor, bool)
                and isinstance(self.payload, dict) and "move" in self.payload)

    def copy(self) -> Event:
        """A deep copy, from the sealed text when there is one."""
        return Event.from_dict(self.to_dict())

    @classmethod
    def from_dict(cls, d: dict) -> Event:
        return cls(seq=d["seq"], type=d["type"], actor=d["actor"], at=d["at"],
                   payload=d["payload"], prev=d["prev"], salt=d.get("salt", ""), hash=d["hash"])

    @classmethod
    def from_json(cls, text: str) -> Event:
        ev = cls.from_dict(json.loads(text))
        ev.frozen = text
        return ev


@dataclass(slots=True)
class Draft:
    """An event an engine wants written; the log gives it seq, actor, time and hash."""

    type: str
    payload: dict = field(default_factory=dict)


def chain(drafts: list[Draft], actor, first_seq: int, prev: str, at: str | None = None,
          salt_key: str | None = None) -> list[Event]:
    """Seal drafts into events that continue a log whose last hash is ``prev``,
    salted from ``salt_key`` (no salt without one: only tests and re-derivations)."""
    at = at or utcnow()
    out = []
    for i, d in enumerate(drafts):
        seq = first_seq + i
        ev = Event(seq, d.type, actor, at, d.payload, prev, salt(salt_key, seq)).sealed()
        prev = ev.hash
        out.append(ev)
    return out
