"""Parts of a game's summary and view: a seat's time bank (docs/clock.md), the vote
under way and the disputes (docs/disputes.md)."""

from __future__ import annotations

from marshmallow import Schema, fields


class Bank(Schema):
    seat = fields.Integer(required=True)
    seconds = fields.Float(required=True, metadata={
        "description": "what the seat's bank held when its time last started (a seat to act: its deadline "
                       "is that many seconds after its time started)"})


BANKS = "under a bank clock, every seat's bank (empty under any other clock, or none)"


class OpenVote(Schema):
    id = fields.Integer(required=True, metadata={"description": "the seq of the event that opened it"})
    proposal = fields.String(required=True, metadata={"enum": ["draw", "cancel", "pause", "resume"]})
    by = fields.Integer(required=True)
    yes = fields.List(fields.Integer(), required=True, metadata={"description": "the seats that said yes"})


class DisputeShown(Schema):
    id = fields.Integer(required=True, metadata={"description": "the seq of the event that opened it"})
    seq = fields.Integer(required=True, allow_none=True, metadata={"description": "the event disputed "
                                                                                  "(null: the game as a whole)"})
    text = fields.String(required=True, metadata={"description": "the seat's own words"})
    by = fields.Integer(required=True)
    at = fields.String(required=True)
    status = fields.String(required=True, metadata={"enum": ["open", "ruled"]})
    ruling = fields.Dict(required=True, allow_none=True, metadata={
        "description": "{seq, decision, text, at} once ruled (docs/disputes.md)"})
