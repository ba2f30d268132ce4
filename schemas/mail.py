"""The schemas of play by post: contacts (seats', spectators', the organiser's) and
notices."""

from __future__ import annotations

from marshmallow import Schema, fields

from schemas.base import Strict


class Contact(Schema):
    seat = fields.Integer(required=True)
    name = fields.String(required=True)
    email = fields.String(required=True, allow_none=True)
    webhook = fields.String(required=True, allow_none=True)
    webhook_secret = fields.String(metadata={"description": "signs this seat's webhooks (Standard "
                                                            "Webhooks): only in the answer that set a webhook"})
    player = fields.String(metadata={"description": "the player seated here: their contacts are "
                                                    "theirs, shown only to them (GET /v1/players/me)"})


class SpectatorsHook(Schema):
    webhook = fields.String(required=True, allow_none=True,
                            metadata={"description": "the spectators' webhook URL; null: none"})
    webhook_secret = fields.String(metadata={"description": "signs the spectators' webhooks: shown once, "
                                                            "in the answer that set the URL"})


class SpectatorsChange(Strict):
    webhook = fields.String(required=True, allow_none=True,
                            metadata={"format": "uri",
                                      "description": "new URL (a new secret is returned); null stops it"})


class OrganiserContact(Schema):
    email = fields.String(allow_none=True, metadata={"description": "the organiser's address"})
    webhook = fields.String(allow_none=True, metadata={"description": "the organiser's webhook URL"})
    webhook_secret = fields.String(metadata={"description": "signs the organiser's webhooks (Standard "
                                                            "Webhooks): shown once, when a URL is set"})


class Contacts(Schema):
    id = fields.String(required=True)
    contacts = fields.List(fields.Nested(Contact), required=True)
    spectators = fields.Nested(SpectatorsHook, metadata={"description": "for the admin only"})
    organiser = fields.Nested("OrganiserContact", metadata={"description": "for the admin only"})


class ContactChange(Strict):
    email = fields.String(allow_none=True, metadata={"format": "email",
                                                     "description": "new address; null clears it"})
    webhook = fields.String(allow_none=True, metadata={"format": "uri", "description":
                                                       "new URL (a new secret is returned); null clears it"})


class OrganiserChange(ContactChange):
    """The organiser's contact: as a seat's (keys given replace, null clears)."""


class Notice(Schema):
    id = fields.String(required=True, metadata={
        "description": "GAME.SEAT.VERSION.REASON (and a tag of the mail an answer answers): also the "
                       "e-mail's Message-ID and the webhook-id"})
    seat = fields.Integer(required=True, allow_none=True,
                          metadata={"description": "null for the spectators' webhook and the organiser"})
    to = fields.String(required=True, metadata={"enum": ["seat", "spectators", "organiser"]})
    version = fields.Integer(required=True, metadata={"description": "the game's version the notice was written at"})
    reason = fields.String(required=True, metadata={
        "description": "start, turn, trick, hand, game-over, reminder, timeout, undelivered (to the "
                       "organiser), or an answer to a mail: applied, refused, show, help"})
    state = fields.String(required=True, metadata={
        "enum": ["pending", "sent", "failed"],
        "description": "pending, sent (on every channel), or failed (only webhooks the address guard "
                       "refuses were left: not tried again; error says why)"})
    delivered = fields.List(fields.String(), required=True, metadata={
        "description": "the channels (email, webhook) that have taken it: a retry sends only the others"})
    attempts = fields.Integer(required=True)
    error = fields.String(required=True, allow_none=True, metadata={"description": "the last delivery's failure"})
    created = fields.String(required=True, metadata={"description": "UTC, ISO 8601"})
    next_try = fields.String(required=True, allow_none=True, metadata={"description": "null once sent"})


class Notices(Schema):
    id = fields.String(required=True)
    notices = fields.List(fields.Nested(Notice), required=True)


class DigestReplyGame(Schema):
    """One game's section of a reply to a daily digest."""

    game = fields.String()
    applied = fields.Boolean(metadata={"description": "its moves were applied (the game's answer mail says so)"})
    version = fields.Integer(metadata={"description": "the game's version after them (when applied)"})
    refused = fields.String(metadata={"description": "why they were not (when not applied)"})


class InboundNoMove(Schema):
    """A mail that made no move of one game: a command answered, a robot's mail
    dropped, or a reply to a daily digest (its games each applied or refused)."""

    answered = fields.String(metadata={"enum": ["show", "help", "propose", "vote", "dispute", "digest"],
                                       "description": "the command answered by e-mail, or `digest`"})
    vote = fields.Dict(metadata={"description": "the vote a `propose` or `vote` mail opened or answered: "
                                                "{id, proposal, by, state, yes, reason?}"})
    dispute = fields.Dict(metadata={"description": "the dispute a `dispute` mail opened: {id, seq, text, by, status}"})
    games = fields.List(fields.Nested(DigestReplyGame), metadata={
        "description": "a digest's reply: each game it named, in order"})
    ignored = fields.String(metadata={"description": "why the mail was dropped unanswered "
                                                     "(an auto-reply, a bounce)"})
    version = fields.Integer(metadata={"description": "the game's version (with answered)"})
