"""The transparency endpoints under /v1/transparency (docs/api.md, "Transparency
log"; docs/trust.md says what they prove). Every one is public: the tree holds
no more than anyone may read of each event (its game, number and hash)."""

from __future__ import annotations

from flask import Response
from flask_smorest import Blueprint

from referee.api import bodies
from referee.api.openapi import PUBLIC, refusals
from referee.api.routes import service, timed
from referee.errors import MalformedMove, NoSuchGame, RefereeError
from referee.transparency import schemas as s
from referee.transparency.log import Refused

blp = Blueprint("transparency", __name__, url_prefix="/v1/transparency",
                description="The transparency log: one Merkle tree of every event, its signed "
                            "checkpoints, proofs, and witnesses' cosignatures")
blp.ARGUMENTS_PARSER = bodies.PARSER


class NotYet(RefereeError):
    code, status = "not-found", 404


class WitnessesFull(RefereeError):
    code, status = "witnesses-full", 409


def log():
    found = service().transparency
    if found is None:
        raise NotYet("this referee keeps no transparency log")
    return found


def answered(fn, *args):
    try:
        return fn(*args)
    except Refused as err:
        kind = {404: NotYet, 409: WitnessesFull}.get(err.status)
        if kind is not None:
            raise kind(err.detail, field=err.field) from err
        raise MalformedMove(err.detail, field=err.field) from err


@blp.route("/checkpoint", methods=["GET"])
@blp.doc(operationId="getCheckpoint", security=PUBLIC, responses={"200": {
    "description": "the latest checkpoint, a C2SP signed note (text/plain): origin, size, root hash, "
                   "a blank line, the referee's signature line, then each witness's cosignature line",
    "content": {"text/plain": {"schema": {"type": "string"}}}}})
@refusals(blp, 404)
@timed("checkpoint")
def checkpoint():
    """The latest signed tree head, with the cosignatures the witnesses sent for it."""
    return Response(log().checkpoint(), mimetype="text/plain")


@blp.route("/proof/inclusion", methods=["GET"])
@blp.arguments(s.InclusionArgs(), location="query")
@blp.response(200, s.Inclusion)
@blp.doc(operationId="getInclusionProof", security=PUBLIC)
@refusals(blp, 400, 404)
@timed("inclusion")
def inclusion(args):
    """The proof that event `seq` of `game` is a leaf of the tree of `size` leaves."""
    return answered(log().inclusion, args["game"], args["seq"], args["size"])


@blp.route("/proof/consistency", methods=["GET"])
@blp.arguments(s.ConsistencyArgs(), location="query")
@blp.response(200, s.Consistency)
@blp.doc(operationId="getConsistencyProof", security=PUBLIC)
@refusals(blp, 400, 404)
@timed("consistency")
def consistency(args):
    """The proof that the tree of `from` leaves is the start of the tree of `to` leaves."""
    return answered(log().consistency, args["from_"], args["to"])


@blp.route("/leaves", methods=["GET"])
@blp.arguments(s.LeavesArgs(), location="query")
@blp.response(200, s.Leaves)
@blp.doc(operationId="getLeaves", security=PUBLIC)
@refusals(blp, 400, 404)
@timed("leaves")
def leaves(args):
    """The leaves from `start` up to (not including) `end`, each as its UTF-8 text."""
    return answered(log().leaves, args["start"], args["end"])


@blp.route("/games/<game_id>", methods=["GET"])
@blp.response(200, s.Places)
@blp.doc(operationId="getPlacesInLog", security=PUBLIC)
@refusals(blp, 404)
@timed("places")
def places(game_id):
    """Where each event of a game (or a league) is in the tree: its leaf, whether the
    latest checkpoint holds it, how many witnesses cosigned one that does."""
    tlog = log()
    if tlog.store.version(game_id) is None and (tlog.leagues is None or tlog.leagues.meta(game_id) is None):
        raise NoSuchGame(f"no game or league {game_id}", field="game_id")
    return tlog.placed(game_id)


@blp.route("/witness", methods=["POST"])
@blp.arguments(s.Cosignature)
@blp.response(201, s.Cosigned)
@blp.doc(operationId="postCosignature", security=PUBLIC)
@refusals(blp, 400, 404, 409, 413, 415)
@timed("witness")
def witness(body):
    """A witness's cosignature of a checkpoint: kept and published with it if it
    verifies with the key sent; at most a fixed number of witnesses, rate-limited."""
    return answered(log().cosign, body["size"], body["key"], body["cosignature"])


def install(app, api) -> None:
    api.register_blueprint(blp)
