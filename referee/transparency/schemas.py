"""The shapes of the transparency endpoints (docs/api.md, "Transparency log")."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from referee.transparency.log import MAX_LEAVES
from schemas.base import Strict

HASH = "base64 of a 32-byte SHA-256 hash, as the checkpoint's root"
BIG = 2 ** 62


class InclusionArgs(Strict):
    game = fields.String(required=True, validate=validate.Length(min=1, max=200), metadata={
        "description": "the game's id (a league's, for its log)"})
    seq = fields.Integer(required=True, validate=validate.Range(min=1, max=BIG), metadata={
        "description": "the event's number in its log"})
    size = fields.Integer(required=True, validate=validate.Range(min=1, max=BIG), metadata={
        "description": "the tree size of the checkpoint the proof is for"})


class Inclusion(Schema):
    index = fields.Integer(required=True, metadata={"description": "the event's leaf index in the tree"})
    size = fields.Integer(required=True)
    hashes = fields.List(fields.String(), required=True, metadata={
        "description": f"the RFC 9162 inclusion proof, deepest sibling first, each {HASH}"})


class ConsistencyArgs(Strict):
    from_ = fields.Integer(required=True, data_key="from", validate=validate.Range(min=0, max=BIG),
                           metadata={"description": "the older tree size"})
    to = fields.Integer(required=True, validate=validate.Range(min=0, max=BIG),
                        metadata={"description": "the newer tree size, at most the latest checkpoint's"})


class Consistency(Schema):
    hashes = fields.List(fields.String(), required=True, metadata={
        "description": f"the RFC 9162 consistency proof, each {HASH}"})


class LeavesArgs(Strict):
    start = fields.Integer(required=True, validate=validate.Range(min=0, max=BIG))
    end = fields.Integer(required=True, validate=validate.Range(min=0, max=BIG), metadata={
        "description": f"exclusive; at most {MAX_LEAVES} leaves past start"})


class Leaves(Schema):
    leaves = fields.List(fields.String(), required=True, metadata={
        "description": 'each leaf\'s data: game + "\\n" + seq + "\\n" + hash'})


class Cosignature(Strict):
    size = fields.Integer(required=True, validate=validate.Range(min=0, max=BIG), metadata={
        "description": "the size of the checkpoint cosigned (one the referee published)"})
    key = fields.String(required=True, validate=validate.Length(min=1, max=500), metadata={
        "description": "the witness's C2SP verifier key: NAME+KEYID+base64(0x04 || Ed25519 public key)"})
    cosignature = fields.String(required=True, validate=validate.Length(min=1, max=1000), metadata={
        "description": "the C2SP tlog-cosignature line: an em dash, the name, base64(key ID || "
                       "timestamp || signature)"})


class Cosigned(Schema):
    size = fields.Integer(required=True)
    witness = fields.String(required=True, metadata={"description": "the verifier key, as kept"})
    cosignatures = fields.Integer(required=True, metadata={
        "description": "how many witnesses have cosigned that checkpoint now"})


class Placed(Schema):
    seq = fields.Integer(required=True)
    index = fields.Integer(required=True, metadata={"description": "the event's leaf in the tree"})
    in_checkpoint = fields.Boolean(required=True, metadata={
        "description": "whether the latest checkpoint's tree holds it"})
    witnesses = fields.Integer(required=True, metadata={
        "description": "how many witnesses cosigned a checkpoint that holds it"})


class Places(Schema):
    checkpoint = fields.Integer(required=True, metadata={"description": "the latest checkpoint's size"})
    events = fields.List(fields.Nested(Placed), required=True, metadata={
        "description": "every event of the log already integrated, in order"})
