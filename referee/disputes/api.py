"""The endpoints of votes, disputes and rulings under /v1 (docs/disputes.md
explains them; /openapi.json describes them). Bodies are checked by the ledger
(referee/disputes/ledger.py), which names the field of every refusal."""

from __future__ import annotations

from flask import Blueprint as FlaskBlueprint
from flask import current_app, render_template, request
from flask_smorest import Blueprint
from marshmallow import INCLUDE, Schema, fields

import schemas as s
from referee.api import bodies
from referee.api.openapi import TOKEN, refusals
from referee.api.routes import bearer, caller, idempotency_key, timed

blp = Blueprint("disputes", __name__, url_prefix="/v1",
                description="Votes of the seats, disputes and the organiser's rulings")
blp.ARGUMENTS_PARSER = bodies.PARSER
# The organiser's page (its script reads the token from the address's fragment)
pages = FlaskBlueprint("dispute_pages", __name__, template_folder="templates")


@pages.route("/organiser")
def organiser_page():
    return render_template("disputes/organiser.html")



class Loose(Schema):
    """Every field checked by the ledger, which names the one at fault."""

    class Meta:
        unknown = INCLUDE


class VoteRequest(Loose):
    proposal = fields.Raw(metadata={"description": "`draw`, `cancel`, `pause` or `resume`"})


class VoteAnswer(Loose):
    yes = fields.Raw(metadata={"description": "true or false"})


class DisputeRequest(Loose):
    text = fields.Raw(metadata={"description": "the seat's own words, 1 to 2000 characters"})
    seq = fields.Raw(metadata={"description": "the event disputed; none: the game as a whole"})


class RulingRequest(Loose):
    dispute = fields.Raw(metadata={"description": "the dispute's id"})
    decision = fields.Raw(metadata={
        "description": '`{"kind": "dismiss"}`, `{"kind": "take-back", "to": N}`, `{"kind": "void"}`, '
                       '`{"kind": "award", "winners": [seat, ...]}` or `{"kind": "extend", "seat": S, '
                       '"seconds": T}`'})
    text = fields.Raw(metadata={"description": "the arbiter's words, 1 to 2000 characters"})


class Vote(Schema):
    id = fields.Integer(required=True, metadata={"description": "the seq of the event that opened it"})
    proposal = fields.String(required=True)
    by = fields.Integer(required=True)
    state = fields.String(required=True, metadata={"enum": ["open", "carried", "failed"]})
    yes = fields.List(fields.Integer(), required=True, metadata={"description": "the seats that said yes"})
    reason = fields.String(metadata={"description": "why it failed"})


class Dispute(Schema):
    id = fields.Integer(required=True, metadata={"description": "the seq of the event that opened it"})
    seq = fields.Integer(allow_none=True, required=True)
    text = fields.String(required=True)
    by = fields.Integer(required=True)
    status = fields.String(required=True, metadata={"enum": ["open", "ruled"]})


class Ruling(Schema):
    dispute = fields.Integer(required=True)
    decision = fields.Dict(required=True)
    text = fields.String(required=True)
    seq = fields.Integer(required=True, metadata={"description": "the `ruled` event"})


class VoteResult(s.MoveResult):
    vote = fields.Nested(Vote, required=True)


class DisputeResult(s.MoveResult):
    dispute = fields.Nested(Dispute, required=True)


class RulingResult(s.MoveResult):
    ruling = fields.Nested(Ruling, required=True)


def disputes():
    return current_app.extensions["referee"].disputes


@blp.route("/games/<game_id>/votes", methods=["POST"])
@blp.arguments(VoteRequest())
@blp.response(201, VoteResult)
@blp.doc(operationId="openVote", security=TOKEN,
         parameters=[idempotency_key("a retry with the same key opens the vote once and gets the first answer")])
@refusals(blp, 400, 401, 403, 404, 409, 413, 415)
@timed("vote")
def open_vote(args, game_id):
    """A seat proposes a draw, to cancel the game, to pause the clocks or to resume
    them (`vote-opened`); every other seat answers, and unanimity carries it."""
    return disputes().open_vote(game_id, caller(game_id), args, request.headers.get("Idempotency-Key"))


@blp.route("/games/<game_id>/votes/<int:vote>", methods=["POST"])
@blp.arguments(VoteAnswer())
@blp.response(201, VoteResult)
@blp.doc(operationId="answerVote", security=TOKEN,
         parameters=[idempotency_key("a retry with the same key answers once and gets the first answer")])
@refusals(blp, 400, 401, 403, 404, 409, 413, 415)
@timed("vote")
def answer_vote(args, game_id, vote):
    """A seat's answer (`voted`): the last yes carries the vote, one no ends it
    (`vote-carried` or `vote-failed`); an answer to a vote that has ended is 409
    `vote-closed`."""
    return disputes().answer_vote(game_id, caller(game_id), vote, args, request.headers.get("Idempotency-Key"))


@blp.route("/games/<game_id>/disputes", methods=["POST"])
@blp.arguments(DisputeRequest())
@blp.response(201, DisputeResult)
@blp.doc(operationId="openDispute", security=TOKEN,
         parameters=[idempotency_key("a retry with the same key opens the dispute once and gets the first answer")])
@refusals(blp, 400, 401, 403, 404, 409, 413, 415)
@timed("dispute")
def open_dispute(args, game_id):
    """A seat disputes an event (`seq`) or the game as a whole, while the game runs
    or within 7 days of its end (`dispute-opened`); the clocks stop until it is ruled."""
    return disputes().open_dispute(game_id, caller(game_id), args, request.headers.get("Idempotency-Key"))


@blp.route("/games/<game_id>/rulings", methods=["POST"])
@blp.arguments(RulingRequest())
@blp.response(201, RulingResult)
@blp.doc(operationId="rule", security=TOKEN)
@refusals(blp, 400, 401, 403, 404, 409, 413, 415)
@timed("ruling")
def rule(args, game_id):
    """The admin's ruling on an open dispute (`ruled`): dismiss, take back to
    event N, void, award, or extend a seat's clock; for a league's game, the
    league's admin token."""
    return disputes().rule(game_id, caller(game_id), args)


class OrganisersDispute(Schema):
    game = fields.String(required=True)
    title = fields.String(required=True)
    players = fields.List(fields.String(), required=True)
    league = fields.String(allow_none=True, required=True, metadata={"description": "a league game's league"})
    status = fields.String(required=True, metadata={"description": "the game's status"})
    dispute = fields.Dict(required=True, metadata={"description": "{id, seq, text, by, at, status, ruling}, "
                                                                  "as a view's `disputes` show it"})


class OrganisersDisputes(Schema):
    disputes = fields.List(fields.Nested(OrganisersDispute), required=True)


@blp.route("/disputes", methods=["GET"])
@blp.response(200, OrganisersDisputes)
@blp.doc(operationId="getOrganisersDisputes", security=TOKEN)
@refusals(blp, 401)
@timed("disputes")
def organisers_disputes():
    """The open disputes of every game whose admin token this is (a league's admin
    token: every game of the league), newest game first, among the newest 2000 games."""
    return disputes().of_organiser(bearer())


def install(app, api) -> None:
    api.register_blueprint(blp)
    app.register_blueprint(pages)
