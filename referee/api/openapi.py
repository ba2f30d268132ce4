"""What /openapi.json says beyond the schemas: refusals, moves per game, ops.

* Every refusal is application/problem+json with the open ``Problem`` schema. An
  operation lists the refusals it can really give with ``@refusals(blp, 400,
  404, ...)``; each status is one shared response component (``BAD_REQUEST``,
  ``NOT_FOUND``...), so the document stays small.
* ``Move`` is an ``anyOf`` of each game's moves (each a ``oneOf`` by type), with examples in each game's
  notation; ``MoveRequest.move`` points at it.
* The operational endpoints (``/healthz``, ``/metrics``, ``/openapi.json``,
  ``/docs``) live in a plain Flask blueprint and are described here by hand.
"""

from __future__ import annotations

import functools
import http

from flask_smorest import Api

PROBLEM = "application/problem+json"

# The statuses a client can cause, by name (flask-smorest names response
# components after http.HTTPStatus).
REFUSALS = (400, 401, 403, 404, 405, 409, 413, 415, 422, 429, 503)


def refusals(blp, *codes: int, store: bool = True):
    """Document the problem+json refusals an operation can give; also 429 (every
    API operation is rate-limited: referee/api/limits.py) and, with ``store`` (the
    default), 503, answered while the store cannot be reached."""
    codes = tuple(sorted(set(codes) | {429} | ({503} if store else set())))

    def wrap(fn):
        # flask-smorest's alt_response documents by wrapping the view in one more
        # function per status, each run on every request; the documentation is all
        # we want of it, so it is taken from the decorated stand-in and the view
        # itself is left as it was.
        stand_in = functools.wraps(fn)(lambda: None)
        for code in codes:
            stand_in = blp.alt_response(code, response=http.HTTPStatus(code).name)(stand_in)
        fn._apidoc = stand_in._apidoc
        return fn
    return wrap


class ProblemApi(Api):
    """flask-smorest's Api, with every error response as problem+json and no
    catch-all "default" response (each operation lists its real refusals)."""

    DEFAULT_ERROR_RESPONSE_NAME = None

    def _register_responses(self):
        for status in http.HTTPStatus:
            if status < 400:
                continue
            # 503 is referred to by hand (OPS below), so it is always there.
            self.spec.components.response(status.name, {
                "description": status.phrase,
                "content": {PROBLEM: {"schema": "Problem"}},
            }, lazy=status != 503)


def _obj(type_: str, example: dict, **props) -> dict:
    required = ["type"] + [k for k, v in props.items() if not v.pop("optional", False)]
    return {"type": "object", "required": required, "additionalProperties": False,
            "properties": {"type": {"type": "string", "enum": [type_]}, **props},
            "example": example}


def _card(pattern: str, description: str) -> dict:
    return {"type": "string", "pattern": pattern, "description": description}


SQUARE = {"type": "string", "pattern": "^[a-g][1-9]$", "description": "a square: file a-g, rank 1-9"}
RESIGN = _obj("resign", {"type": "resign"})

KOD_CARD = _card("^(W[1-7]|C[1-7]|Z[1-8]|K[DWCZ])$", "W1-W7, C1-C7, Z1-Z8, KD KW KC KZ")
KKEYS_CARD = _card("^([RGBY][1-4][ASCK]|[RGBY]\\*|\\*[ASCK])$", "colour, number, item (Y1K); R* ... ; *A ...")
KOTC_CARD = {"type": "string", "pattern": "^[a-z]+(-[a-z]+)*$", "description": "an event card, e.g. plague"}

MOVES = {
    "KingOfDangerMove": {"oneOf": [
        _obj("play", {"type": "play", "card": "Z5", "suit": "walls"}, card=KOD_CARD,
             suit={"type": "string", "enum": ["walls", "cannons", "wizards"], "optional": True,
                   "description": "only when the card names the trick's suit"}),
        RESIGN,
    ], "description": "King of Danger: `play Z5 walls`, or just `Z5`"},
    "CastleDangerMove": {"oneOf": [
        _obj("add", {"type": "add", "piece": "B"}, piece={"type": "string", "enum": ["Z", "B", "C"]}),
        _obj("move", {"type": "move", "from": "c1", "to": "b1"}, **{"from": dict(SQUARE), "to": dict(SQUARE)}),
        _obj("build", {"type": "build", "at": "b2"}, at=dict(SQUARE)),
        _obj("demolish", {"type": "demolish", "at": "c2"}, at=dict(SQUARE)),
        _obj("fire", {"type": "fire", "from": "d1", "at": "d4"}, **{"from": dict(SQUARE), "at": dict(SQUARE)}),
        _obj("end", {"type": "end"}),
        _obj("smuggle", {"type": "smuggle", "piece": "C"}, piece={"type": "string", "enum": ["Z", "B", "C"]}),
        _obj("reveal", {"type": "reveal", "at": "d1"}, at=dict(SQUARE)),
        _obj("offer-draw", {"type": "offer-draw"}),
        _obj("take-back", {"type": "take-back"}),
        _obj("accept", {"type": "accept"}),
        _obj("decline", {"type": "decline"}),
        RESIGN,
    ], "description": "Castle Danger: `add B; c1-b1; build b2; demolish c2; fire d1 d4; end`; "
                      "by consent `offer draw`, `take back`, answered `accept` or `decline`"},
    "KingOfTheCastleMove": {"oneOf": [
        _obj("play", {"type": "play", "card": "plague", "castle": 2, "targets": ["lord", "master"]},
             card=KOTC_CARD,
             castle={"type": "integer", "minimum": 1, "maximum": 3, "optional": True},
             targets={"type": "array", "items": {"type": "string"}, "optional": True,
                      "description": "posts (king, lord, seneschal, master) or squire letters"},
             attribute={"type": "string", "enum": ["domain", "prestige", "defence"], "optional": True},
             take={"type": "string", "optional": True, "description": "a card to take (Recycle, Timely Repairs)"},
             seat={"type": "integer", "minimum": 0, "optional": True, "description": "the seat a card picks"}),
        _obj("pass", {"type": "pass"}),
        _obj("discard", {"type": "discard", "cards": ["keep"]}, cards={"type": "array", "items": KOTC_CARD}),
        _obj("react", {"type": "react", "card": "lucky-escape", "save": "C"}, card=KOTC_CARD,
             save={"type": "string", "optional": True, "description": "the man or level card saved"}),
        _obj("choose", {"type": "choose", "squires": ["A", "M", "Q"]},
             squires={"type": "array", "items": {"type": "string", "pattern": "^[A-Z]$"},
                      "minItems": 3, "maxItems": 3}),
        _obj("standing", {"type": "standing", "answer": "pass"},
             answer={"type": "string", "enum": ["pass", "ask"]}),
        RESIGN,
    ], "description": "King of the Castle: `play plague 2 lord master`, `react lucky-escape B`, `pass`"},
    "KingsKeysMove": {"oneOf": [
        _obj("play", {"type": "play", "card": "*K", "take": "Y3K"}, card=KKEYS_CARD,
             take=dict(KKEYS_CARD, optional=True)),
        _obj("choose", {"type": "choose", "take": "Y3K"}, take=dict(KKEYS_CARD)),
        RESIGN,
    ], "description": "King's Keys: `play *K take Y3K` (a Joker of keys), `choose Y3K`"},
}

# anyOf, not oneOf: the games share some shapes ("resign", a "play" of a card).
MOVE = {"description": "A move of the game played: its shape depends on the game (see each).",
        "anyOf": [{"$ref": f"#/components/schemas/{name}"} for name in MOVES]}

TEXT = {"text/plain": {"schema": {"type": "string"}}}
OPS = {
    "/healthz": {"get": {"tags": ["ops"], "summary": "Liveness: 200 while the store answers",
                         "responses": {"200": {"description": "the store answers",
                                               "content": {"application/json": {"schema": {
                                                   "type": "object",
                                                   "properties": {"status": {"type": "string"}}}}}},
                                       "503": {"$ref": "#/components/responses/SERVICE_UNAVAILABLE"}}}},
    "/metrics": {"get": {"tags": ["ops"], "summary": "Prometheus metrics (text exposition format)",
                         "responses": {"200": {"description": "metrics", "content": TEXT}}}},
    "/openapi.json": {"get": {"tags": ["ops"], "summary": "This document",
                              "responses": {"200": {"description": "OpenAPI 3",
                                                    "content": {"application/json": {"schema": {
                                                        "type": "object"}}}}}}},
    "/docs": {"get": {"tags": ["ops"], "summary": "This document, browsable (Swagger UI, works offline)",
                      "responses": {"200": {"description": "an HTML page",
                                            "content": {"text/html": {"schema": {"type": "string"}}}}}}},
}


def document(api: Api, app) -> None:
    """Add the move schemas and the operational endpoints (registered on ``app``
    already) to the document."""
    for name, schema in MOVES.items():
        api.spec.components.schema(name, schema)
    api.spec.components.schema("Move", MOVE)
    # flask-smorest's pagination schema: this API paginates otherwise.
    api.spec.components.schemas.pop("PaginationMetadata", None)
    rules = {rule.rule: rule for rule in app.url_map.iter_rules()}
    for path, operations in OPS.items():
        api.spec.path(rule=rules[path], operations=operations)
