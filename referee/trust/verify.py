"""Checking receipts, with nothing but the published keys and, if one is given, an
exported log: what ``referee verify-receipt`` does offline and what ``POST
/v1/audit`` reports of the receipts sent beside a log (docs/trust.md).

Two questions, in this order:

1. **Did the referee sign it?** The receipt has the six fields of the contract,
   its ``key_id`` names a key of the keys document (``GET /v1/keys``), and its
   signature holds under that key over the message of referee/trust/receipts.py.
   Otherwise it is *refused*: it is no word of the referee's (forged, altered, or
   signed by a key the document does not list).
2. **Does the log agree?** The log holds, at the receipt's ``seq``, an event whose
   hash recomputed from its fields is the receipt's ``hash`` (and whose ``at`` is
   its ``at``), in a chain that verifies from event 1 up to it (``seq`` running
   1, 2, 3..., every ``prev`` the hash before). Then the receipt is *held*;
   otherwise it is *contradicted*, and the log is not the one the referee
   acknowledged. Events after the receipt's do not bear on it.

Light on purpose: the command runs offline, on a verifier's machine, and loads
only this, the event's canonical form and Ed25519.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from referee.events import GENESIS, canonical
from referee.trust.receipts import FIELDS, message

HELD, CONTRADICTED = "held", "contradicted"
EVENT_FIELDS = {"seq", "type", "actor", "at", "payload", "prev", "salt", "hash"}


class Refused(Exception):
    """Not a receipt the keys given stand behind; ``field`` names what is wrong."""

    def __init__(self, field: str, detail: str):
        super().__init__(detail)
        self.field, self.detail = field, detail


def public_keys(document) -> dict[str, bytes]:
    """``{key_id: raw public key}`` from a keys document (as ``GET /v1/keys`` answers)."""
    keys = document.get("keys") if isinstance(document, dict) else None
    if not isinstance(keys, list):
        raise Refused("keys", "the keys document is {\"keys\": [...]}, as GET /v1/keys answers")
    out = {}
    for i, key in enumerate(keys):
        try:
            public = base64.b64decode(key["public_key"], validate=True)
            ok = key.get("algorithm") == "ed25519" and isinstance(key["key_id"], str) and len(public) == 32
        except (TypeError, KeyError, AttributeError, binascii.Error, ValueError):
            ok = False
        if not ok:
            raise Refused(f"keys[{i}]", f"key {i} of the keys document is no Ed25519 key as GET /v1/keys lists one")
        out[key["key_id"]] = public
    return out


def check_signature(receipt, keys: dict[str, bytes]) -> None:
    """Refused unless ``receipt`` is a receipt signed by one of ``keys``."""
    if not isinstance(receipt, dict):
        raise Refused("receipt", "a receipt is a JSON object {game, seq, hash, at, key_id, signature}")
    for name in FIELDS:
        if name not in receipt:
            raise Refused(name, f"the receipt has no {name}")
    seq = receipt["seq"]
    if not isinstance(seq, int) or isinstance(seq, bool) or seq < 1:
        raise Refused("seq", "seq is an event number, 1 or more")
    for name in ("game", "hash", "at", "key_id", "signature"):
        if not isinstance(receipt[name], str):
            raise Refused(name, f"{name} is text")
        try:
            receipt[name].encode()
        except UnicodeEncodeError:  # a lone surrogate, which JSON's \u escapes can spell
            raise Refused(name, f"{name} is no Unicode text") from None
    try:
        signature = base64.b64decode(receipt["signature"], validate=True)
    except (binascii.Error, ValueError):
        signature = b""
    if len(signature) != 64:
        raise Refused("signature", "the signature is 64 bytes in base64")
    public = keys.get(receipt["key_id"])
    if public is None:
        raise Refused("key_id", f"no key {receipt['key_id']!r} among the keys given")
    try:
        Ed25519PublicKey.from_public_bytes(public).verify(
            signature, message(receipt["game"], seq, receipt["hash"], receipt["at"]))
    except InvalidSignature:
        raise Refused("signature", f"the signature does not hold under key {receipt['key_id']}: the receipt "
                                   "was altered (its game, seq, hash or at) or never signed by it") from None


class Chain:
    """One log's events read once: each event's recomputed hash and time, as far as
    the chain verifies from event 1, and where and why it stops verifying."""

    def __init__(self, events: list):
        self.hashes: list[str] = []
        self.ats: list[str] = []
        self.broken: str | None = None
        prev = GENESIS
        for seq, ev in enumerate(events, 1):
            why = self._wrong(ev, seq, prev)
            if why is not None:
                self.broken = why
                return
            prev = ev["hash"]
            self.hashes.append(prev)
            self.ats.append(ev["at"])

    @staticmethod
    def _wrong(ev, seq: int, prev: str) -> str | None:
        if not isinstance(ev, dict) or set(ev) != EVENT_FIELDS:
            return f"line {seq} of the log is no event"
        if ev["seq"] != seq or isinstance(ev["seq"], bool):
            return f"line {seq} of the log has seq {ev['seq']!r}: the chain breaks there"
        if ev["prev"] != prev:
            return f"event {seq}'s prev is not event {seq - 1}'s hash: the chain breaks there"
        try:
            recomputed = hashlib.sha256(canonical({k: v for k, v in ev.items() if k != "hash"})).hexdigest()
        except (TypeError, ValueError):
            return f"event {seq} cannot be written as canonical JSON"
        if ev["hash"] != recomputed:
            return f"event {seq}'s hash is not the hash of its fields: the chain breaks there"
        return None

    def check(self, receipt: dict) -> tuple[str, str]:
        seq = receipt["seq"]
        if seq > len(self.hashes):
            if self.broken is not None:
                return CONTRADICTED, f"{self.broken}, before event {seq} of the receipt"
            return CONTRADICTED, f"the log ends at event {len(self.hashes)}: it holds no event {seq}"
        got = self.hashes[seq - 1]
        if got != receipt["hash"]:
            return CONTRADICTED, (f"the log's event {seq} has hash {got}, the receipt {receipt['hash']}: "
                                  "the log is not what the referee acknowledged")
        if self.ats[seq - 1] != receipt["at"]:
            return CONTRADICTED, f"the log's event {seq} was written at {self.ats[seq - 1]}, not {receipt['at']}"
        return HELD, f"the log holds event {seq} with this hash, in a chain that verifies from event 1"


def logs_in(text: str | bytes) -> tuple[dict[str, list], str | None]:
    """The logs of an export, by the id of what they record (a game's, or a league's
    and each of its games' in a league's bundle), each a list of its lines' values
    (None for a line that is no JSON); and why none could be named, if so."""
    raw = text.decode("utf-8", "replace") if isinstance(text, bytes) else text
    values = []
    for line in raw.splitlines():
        if line.strip():
            try:
                values.append(json.loads(line))
            except (ValueError, RecursionError):
                values.append(None)
    if not values:
        return {}, "the log is empty"
    first = values[0]
    if isinstance(first, dict) and "log" in first and "event" in first:  # a league's bundle
        logs: dict[str, list] = {}
        for v in values:
            ok = isinstance(v, dict) and isinstance(v.get("event"), dict)
            name = (v.get("game") if v.get("log") == "game" else "league") if ok else None
            if isinstance(name, str):
                logs.setdefault(name, []).append(v["event"])
        league = logs.pop("league", [])
        if league and _named(league) is not None:
            logs[_named(league)] = league
        return logs, None
    name = _named(values)
    return ({name: values}, None) if name else ({}, "the log's first line is no event naming its game")


def _named(events: list) -> str | None:
    first = events[0]
    payload = first.get("payload") if isinstance(first, dict) else None
    name = payload.get("id") if isinstance(payload, dict) else None
    return name if isinstance(name, str) else None


def check_receipts(text: str | bytes, receipts: list[dict]) -> list[dict]:
    """Each receipt (its signature checked already) against the export: held or
    contradicted, and why."""
    logs, unnamed = logs_in(text)
    chains: dict[str, Chain] = {}
    out = []
    for receipt in receipts:
        game = receipt["game"]
        if game in logs:
            chain = chains.get(game) or chains.setdefault(game, Chain(logs[game]))
            status, detail = chain.check(receipt)
        else:
            status = CONTRADICTED
            detail = unnamed or (f"the export holds no log of {game!r} (it has "
                                 f"{', '.join(sorted(logs)[:5])}{', ...' if len(logs) > 5 else ''})")
        out.append({"game": game, "seq": receipt["seq"], "hash": receipt["hash"], "status": status,
                    "detail": detail})
    return out


def audit_with_receipts(text: str | bytes, receipts: list[dict], audit) -> dict:
    """``audit(text)``'s report, with each receipt checked against the same log (run
    where the audit runs: in the audit pool, referee/audit_pool.py)."""
    report = audit(text)
    report["receipts"] = check_receipts(text, receipts)
    return report


def receipt_in(text: str):
    """The receipt a file holds: the receipt itself, an answer or a webhook's body
    carrying it under ``receipt``, or an e-mail notice with its line ``receipt: {...}``."""
    try:
        found = json.loads(text)
    except ValueError:
        found = _line_of(text)
        if found is None and "\n\n" in text.replace("\r\n", "\n"):  # a whole e-mail, as saved
            import email
            import email.policy

            body = email.message_from_string(text, policy=email.policy.default).get_body(("plain",))
            found = _line_of(body.get_content()) if body is not None else None
    if isinstance(found, dict) and isinstance(found.get("receipt"), dict):
        found = found["receipt"]
    return found


def _line_of(text: str):
    for line in text.splitlines():
        if line.startswith("receipt: {"):
            try:
                return json.loads(line.removeprefix("receipt: "))
            except ValueError:
                return None
    return None
