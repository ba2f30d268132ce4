"""The shapes of the referee's keys and receipts (docs/trust.md; the contract's
"Signed receipts")."""

from marshmallow import Schema, fields

MESSAGE = ('Ed25519, base64, over the UTF-8 bytes of "castle-referee/receipt/v1\\n" + game + "\\n" + '
           'seq + "\\n" + hash + "\\n" + at (seq in decimal; hash and at exactly as in the event)')


class Receipt(Schema):
    """The referee's signed word that the log of `game` holds, at `seq`, the event with
    this `hash`, written at `at`. Check it with `GET /v1/keys` (docs/trust.md)."""

    game = fields.String(required=True, metadata={"description": "the game's id (a league's, for its log)"})
    seq = fields.Integer(required=True, metadata={"description": "the event's number in the log"})
    hash = fields.String(required=True, metadata={"description": "the event's hash, as in the event"})
    at = fields.String(required=True, metadata={"description": "the event's time, as in the event"})
    key_id = fields.String(required=True, metadata={"description": "the key that signed it (GET /v1/keys)"})
    signature = fields.String(required=True, metadata={"description": MESSAGE})
    # once the event is in the transparency log (GET /v1/games/{id}/receipts/{seq})
    index = fields.Integer(metadata={"description": "the event's leaf index in the transparency log's tree, "
                                                    "once integrated"})
    checkpoint = fields.String(metadata={
        "description": "a signed checkpoint (C2SP signed note, with the witnesses' cosignatures) whose tree "
                       "holds the event: GET /v1/transparency/checkpoint's form"})
    inclusion = fields.List(fields.String(), metadata={
        "description": "the RFC 9162 inclusion proof of the event's leaf in that checkpoint's tree, "
                       "each hash base64"})


class Key(Schema):
    key_id = fields.String(required=True, metadata={
        "description": "the first 16 hex digits of SHA-256 of the raw public key"})
    algorithm = fields.String(required=True, metadata={"enum": ["ed25519"]})
    public_key = fields.String(required=True, metadata={"description": "the raw 32-byte public key, base64"})
    since = fields.String(required=True, metadata={"description": "when it began to sign (UTC, ISO 8601)"})
    until = fields.String(required=True, allow_none=True, metadata={
        "description": "when another key replaced it; null for the current key"})


class Keys(Schema):
    keys = fields.List(fields.Nested(Key), required=True, metadata={
        "description": "every key the referee has signed with, oldest first; the last is current"})


class ReceiptChecked(Schema):
    game = fields.String(required=True)
    seq = fields.Integer(required=True)
    hash = fields.String(required=True)
    status = fields.String(required=True, metadata={
        "enum": ["held", "contradicted"],
        "description": "held: the log holds this event, in a chain that verifies from event 1; "
                       "contradicted: it does not (`detail` says what differs)"})
    detail = fields.String(required=True)

