"""What a witness and a verifier check of the transparency log, offline but for
what they fetch (``referee witness``, ``referee verify-receipt``):

* a checkpoint is the referee's: its note signature (type 0x01, key name the
  origin line) holds under one of the keys ``GET /v1/keys`` lists;
* a newer checkpoint extends an older one: same origin, not smaller, the same
  root at the same size, and a consistency proof that verifies (else the tree
  was rewritten, or the referee shows different heads to different people);
* a receipt's event is in its checkpoint: the inclusion proof of the leaf
  ``game + "\\n" + seq + "\\n" + hash`` at ``index`` verifies against its root;
* enough witnesses the verifier trusts cosigned that checkpoint.

Each refusal is ``Caught``, saying what does not hold.
"""

from __future__ import annotations

import base64
import binascii

from referee.transparency import merkle, notes


class Caught(Exception):
    """What the log shows does not hold; the message says what."""


def signed_checkpoint(whole: str, keys: dict[str, bytes]) -> tuple[notes.Note, notes.Checkpoint]:
    """The note and its checkpoint, if one of ``keys`` (``{key_id: raw public key}``,
    as referee/trust/verify.py reads ``GET /v1/keys``) signed it."""
    try:
        note = notes.parse_note(whole)
        head = notes.parse_checkpoint(note.text)
    except notes.BadNote as err:
        raise Caught(f"not a checkpoint: {err}") from err
    if not any(notes.signed_by(note, head.origin, public) for public in keys.values()):
        raise Caught(f"the checkpoint of size {head.size} is not signed by any of the referee's keys "
                     f"under its origin {head.origin!r}")
    return note, head


def same_log(old: notes.Checkpoint, new: notes.Checkpoint) -> None:
    if old.origin != new.origin:
        raise Caught(f"a checkpoint of another log: origin {new.origin!r}, not {old.origin!r}")


def forked(a: notes.Checkpoint, b: notes.Checkpoint) -> bool:
    """Two heads of one log, of one size, with different roots: a fork."""
    return a.origin == b.origin and a.size == b.size and a.root != b.root


def extends(old: notes.Checkpoint, new: notes.Checkpoint, proof: list[str] | None) -> None:
    """That ``new`` extends ``old`` (``proof``: the consistency proof's base64 hashes)."""
    same_log(old, new)
    if new.size < old.size:
        raise Caught(f"the tree shrank: size {new.size} after {old.size} (rolled back)")
    if new.size == old.size:
        if new.root != old.root:
            raise Caught(f"forked: two heads of size {new.size} with different roots "
                         f"({base64.b64encode(old.root).decode()} and {base64.b64encode(new.root).decode()})")
        return
    try:
        hashes = [base64.b64decode(h, validate=True) for h in proof or []]
    except (binascii.Error, ValueError, TypeError) as err:
        raise Caught("the consistency proof is not base64 hashes") from err
    if not merkle.verify_consistency(old.size, new.size, old.root, new.root, hashes):
        raise Caught(f"rewritten: the tree of size {new.size} does not extend the one of size {old.size} "
                     "(the consistency proof does not verify)")


def included(receipt: dict, keys: dict[str, bytes]) -> tuple[notes.Note, notes.Checkpoint]:
    """That the receipt's event is a leaf of its (signed) checkpoint's tree."""
    for field in ("index", "checkpoint", "inclusion"):
        if field not in receipt:
            raise Caught(f"the receipt has no {field}: ask GET /v1/games/{{id}}/receipts/{{seq}} for the "
                         "fuller one, once the event is in the transparency log")
    note, head = signed_checkpoint(receipt["checkpoint"], keys)
    try:
        proof = [base64.b64decode(h, validate=True) for h in receipt["inclusion"]]
        leaf = merkle.leaf_hash(f"{receipt['game']}\n{int(receipt['seq']):d}\n{receipt['hash']}".encode())
        index = int(receipt["index"])
    except (binascii.Error, ValueError, TypeError) as err:
        raise Caught("the receipt's inclusion is not base64 hashes, or its index no number") from err
    if not merkle.verify_inclusion(index, head.size, leaf, proof, head.root):
        raise Caught(f"the inclusion proof does not verify: the checkpoint of size {head.size} does not hold "
                     f"event {receipt['seq']} of {receipt['game']} with hash {receipt['hash']} at leaf {index}")
    return note, head


def witness_keys(text: str) -> list[notes.Verifier]:
    """One C2SP verifier key a line (blank lines and # comments skipped)."""
    out = []
    for n, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            out.append(notes.parse_vkey(line))
        except notes.BadNote as err:
            raise Caught(f"witness key on line {n}: {err}") from err
    return out


def cosigned_by(note: notes.Note, trusted: list[notes.Verifier]) -> list[str]:
    """The names of the trusted witnesses whose cosignature on ``note`` holds."""
    return sorted({v.name for v in trusted if notes.cosignature_by(note, v) is not None})
