"""The trust endpoints under /v1: the referee's keys and a receipt for any event
(docs/trust.md; /openapi.json describes them). The audit's receipts are
``POST /v1/audit``'s (referee/trust/auditing.py)."""

from __future__ import annotations

from flask_smorest import Blueprint

import schemas as s
from referee.api import bodies
from referee.api.openapi import PUBLIC, TOKEN_OR_NONE, refusals
from referee.api.routes import caller, service, timed

blp = Blueprint("trust", __name__, url_prefix="/v1",
                description="The referee's signing keys and its receipts, which anyone can check offline")
blp.ARGUMENTS_PARSER = bodies.PARSER


@blp.route("/keys", methods=["GET"])
@blp.response(200, s.Keys)
@blp.doc(operationId="getKeys", security=PUBLIC)
@refusals(blp)
@timed("keys")
def keys():
    """Every key the referee signs receipts with, the current one last; earlier keys
    stay listed, with `until`, so their receipts can still be checked."""
    receipts = service().receipts
    return {"keys": receipts.keys() if receipts is not None else []}


@blp.route("/games/<game_id>/receipts/<int:seq>", methods=["GET"])
@blp.response(200, s.Receipt)
@blp.doc(operationId="getReceipt", security=TOKEN_OR_NONE)
@refusals(blp, 400, 401, 404)
@timed("receipt")
def receipt(game_id, seq):
    """The referee's signed receipt of event `seq`: anyone may have one for any event,
    as anyone may read the events (it shows the event's hash and time only). Once the
    event is in the transparency log, with `index`, `checkpoint` and `inclusion`."""
    svc = service()
    receipt = svc.receipt(game_id, caller(game_id), seq)
    return svc.transparency.fuller(receipt) if svc.transparency is not None else receipt


def install(app, api) -> None:
    api.register_blueprint(blp)
