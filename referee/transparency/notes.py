"""Signed notes, checkpoints and cosignatures as the C2SP specifications write them
(signed-note, tlog-checkpoint, tlog-cosignature), so that any of their tools can
read what the referee publishes.

* A **note** is UTF-8 text ending in a newline, a blank line, then one line per
  signature: ``"— " + key name + " " + base64(4-byte key ID || signature)``.
* A **checkpoint** is a note whose text is the origin line, the tree size in
  decimal, and the root hash in base64, each ending in a newline.
* The referee signs with an Ed25519 note signature (type 0x01): the key ID is
  ``SHA-256(name || "\\n" || 0x01 || public key)[:4]``, the signature is over the
  note's text.
* A witness **cosigns** (type 0x04): the key ID is the same with 0x04, and the
  signature, over ``"cosignature/v1\\ntime " + T + "\\n" + text``, follows an
  8-byte big-endian timestamp T in the line.
* A **verifier key** (vkey) is ``name + "+" + hex key ID + "+" + base64(type ||
  public key)``; a witness's private key file is ``"PRIVATE+KEY+" + name + "+" +
  hex key ID + "+" + base64(type || seed)``.

Light: the witness and ``referee verify-receipt`` run on other machines and load
only this, the Merkle tree and Ed25519.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import struct
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    PublicFormat,
)

ED25519, COSIGNATURE = 0x01, 0x04
DASH = "\u2014 "  # an em dash and a space begin every signature line
MAX_NOTE = 16 * 1024  # bytes: a checkpoint with its signatures is far smaller


class BadNote(ValueError):
    """Not a note, a checkpoint, a key or a signature of the form the specs give."""


def key_id(name: str, kind: int, public: bytes) -> bytes:
    return hashlib.sha256(name.encode() + b"\n" + bytes([kind]) + public).digest()[:4]


def _utf8(text: str) -> bool:
    try:
        text.encode()
        return True
    except UnicodeEncodeError:  # a lone surrogate, as JSON's \ud800 can carry
        return False


def _name_ok(name: str) -> bool:
    return (bool(name) and "+" not in name and not any(c.isspace() for c in name) and name.isprintable()
            and _utf8(name))


def vkey(name: str, kind: int, public: bytes) -> str:
    return f"{name}+{key_id(name, kind, public).hex()}+{base64.b64encode(bytes([kind]) + public).decode()}"


@dataclass(frozen=True)
class Verifier:
    """A parsed verifier key."""

    name: str
    kind: int
    public: bytes

    @property
    def id(self) -> bytes:
        return key_id(self.name, self.kind, self.public)

    @property
    def text(self) -> str:
        return vkey(self.name, self.kind, self.public)


def parse_vkey(text: str) -> Verifier:
    parts = text.strip().split("+", 2)  # base64 may hold a + itself; the name may not
    if len(parts) != 3 or not _name_ok(parts[0]):
        raise BadNote("a verifier key is NAME+KEYID+BASE64 (the name without + or spaces)")
    name, hex_id, b64 = parts
    try:
        raw = base64.b64decode(b64, validate=True)
        given = bytes.fromhex(hex_id)
    except (binascii.Error, ValueError) as err:
        raise BadNote("a verifier key's id is 8 hex digits and its key base64") from err
    if len(raw) != 33 or raw[0] not in (ED25519, COSIGNATURE):
        raise BadNote("a verifier key holds a type byte (0x01 or 0x04) and a 32-byte Ed25519 key")
    found = Verifier(name, raw[0], raw[1:])
    if found.id != given:
        raise BadNote("the verifier key's id does not match its name and key")
    return found


@dataclass(frozen=True)
class Signature:
    name: str
    id: bytes
    blob: bytes  # what follows the key ID: a signature (0x01), or a timestamp and one (0x04)
    line: str


@dataclass(frozen=True)
class Note:
    text: str  # the signed text, ending in a newline
    signatures: tuple[Signature, ...]

    @property
    def whole(self) -> str:
        return self.text + "\n" + "".join(s.line + "\n" for s in self.signatures)


def parse_note(whole: str) -> Note:
    if not _utf8(whole):
        raise BadNote("a note is UTF-8 text")
    if len(whole.encode()) > MAX_NOTE:
        raise BadNote(f"a note is at most {MAX_NOTE} bytes")
    text, sep, sigs = whole.partition("\n\n")
    if not sep or not text or not sigs.endswith("\n"):
        raise BadNote("a note is its text, a blank line, and signature lines, each ending in a newline")
    found = []
    for line in sigs[:-1].split("\n"):
        if not line.startswith(DASH):
            raise BadNote("every signature line begins with an em dash and a space")
        name, _, b64 = line[len(DASH):].partition(" ")
        try:
            raw = base64.b64decode(b64, validate=True)
        except (binascii.Error, ValueError) as err:
            raise BadNote("a signature is base64") from err
        if not _name_ok(name) or len(raw) < 5:
            raise BadNote("a signature line names its key and holds a key ID and a signature")
        found.append(Signature(name, raw[:4], raw[4:], line))
    return Note(text + "\n", tuple(found))


def signature_line(name: str, kid: bytes, blob: bytes) -> str:
    return f"{DASH}{name} {base64.b64encode(kid + blob).decode()}"


# ---- checkpoints -------------------------------------------------------------------------

@dataclass(frozen=True)
class Checkpoint:
    origin: str
    size: int
    root: bytes

    @property
    def text(self) -> str:
        return f"{self.origin}\n{self.size}\n{base64.b64encode(self.root).decode()}\n"


def parse_checkpoint(text: str) -> Checkpoint:
    lines = text.split("\n")
    if len(lines) < 4 or lines[-1] != "":
        raise BadNote("a checkpoint's text is its origin, its size and its root hash, a line each")
    origin, size, b64 = lines[0], lines[1], lines[2]
    if not size.isdigit() or (size != "0" and size.startswith("0")) or not origin:
        raise BadNote("a checkpoint's size is a decimal number with no leading zero")
    try:
        root = base64.b64decode(b64, validate=True)
    except (binascii.Error, ValueError) as err:
        raise BadNote("a checkpoint's root hash is base64") from err
    if len(root) != 32:
        raise BadNote("a checkpoint's root hash is 32 bytes")
    return Checkpoint(origin, int(size), root)


def sign_checkpoint(checkpoint: Checkpoint, public: bytes, sign) -> str:
    """The checkpoint as a note signed by the referee: ``sign(message) -> signature``
    with the Ed25519 key whose raw public half is ``public``; the key name is the
    origin."""
    kid = key_id(checkpoint.origin, ED25519, public)
    return checkpoint.text + "\n" + signature_line(checkpoint.origin, kid, sign(checkpoint.text.encode())) + "\n"


def _verifies(public: bytes, signature: bytes, message: bytes) -> bool:
    try:
        Ed25519PublicKey.from_public_bytes(public).verify(signature, message)
        return True
    except (InvalidSignature, ValueError):
        return False


def signed_by(note: Note, name: str, public: bytes) -> bool:
    """Whether a signature line of ``note`` is ``name``'s Ed25519 note signature (0x01)."""
    kid = key_id(name, ED25519, public)
    return any(s.name == name and s.id == kid and len(s.blob) == 64 and _verifies(public, s.blob, note.text.encode())
               for s in note.signatures)


# ---- cosignatures ------------------------------------------------------------------------

def cosigned_message(text: str, timestamp: int) -> bytes:
    return f"cosignature/v1\ntime {timestamp}\n".encode() + text.encode()


def cosignature_by(note: Note, verifier: Verifier) -> Signature | None:
    """The signature line of ``note`` that is a valid cosignature by ``verifier``, if any."""
    if verifier.kind != COSIGNATURE:
        return None
    for s in note.signatures:
        if s.name == verifier.name and s.id == verifier.id and len(s.blob) == 72:
            (timestamp,) = struct.unpack(">Q", s.blob[:8])
            if timestamp < 2 ** 63 and _verifies(verifier.public, s.blob[8:], cosigned_message(note.text, timestamp)):
                return s
    return None


class WitnessKey:
    """A witness's Ed25519 key, kept as a C2SP private key line."""

    def __init__(self, name: str, private: Ed25519PrivateKey):
        if not _name_ok(name):
            raise BadNote("a witness's name has no + or spaces")
        self.name, self.private = name, private
        self.public = private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)

    @classmethod
    def generate(cls, name: str) -> WitnessKey:
        return cls(name, Ed25519PrivateKey.generate())

    @classmethod
    def parse(cls, text: str) -> WitnessKey:
        parts = text.strip().split("+", 4)
        if len(parts) != 5 or parts[:2] != ["PRIVATE", "KEY"]:
            raise BadNote("a witness key file is PRIVATE+KEY+NAME+KEYID+BASE64")
        try:
            raw = base64.b64decode(parts[4], validate=True)
        except (binascii.Error, ValueError) as err:
            raise BadNote("a witness key is base64") from err
        if len(raw) != 33 or raw[0] != COSIGNATURE:
            raise BadNote("a witness key holds the type byte 0x04 and a 32-byte Ed25519 seed")
        return cls(parts[2], Ed25519PrivateKey.from_private_bytes(raw[1:]))

    @property
    def text(self) -> str:
        seed = self.private.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
        kid = key_id(self.name, COSIGNATURE, self.public).hex()
        return f"PRIVATE+KEY+{self.name}+{kid}+{base64.b64encode(bytes([COSIGNATURE]) + seed).decode()}\n"

    @property
    def verifier(self) -> Verifier:
        return Verifier(self.name, COSIGNATURE, self.public)

    def cosign(self, text: str, timestamp: int) -> str:
        """The cosignature line over a checkpoint's ``text``, at ``timestamp``."""
        blob = struct.pack(">Q", timestamp) + self.private.sign(cosigned_message(text, timestamp))
        return signature_line(self.name, key_id(self.name, COSIGNATURE, self.public), blob)
