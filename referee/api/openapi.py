"""What /openapi.json says beyond the schemas: refusals, moves, security, ops.

The document is for generated clients (docs/api.md, "Generated clients"): each
operation has an ``operationId`` and its real security, and every shape a client
reads has a type.

* Every refusal is application/problem+json with the open ``Problem`` schema. An
  operation lists the refusals it can really give with ``@refusals(blp, 400,
  404, ...)``; each status is one shared response component (``BAD_REQUEST``,
  ``NOT_FOUND``...), so the document stays small.
* ``Move`` is a ``oneOf`` of one schema per move type with a discriminator on
  ``type`` (schemas/moves.py says why); the move request has an example of every
  type of every game, titled in the game's notation.
* A field made with ``schemas.ref("Name")`` is documented as a reference to the
  component ``Name`` (schemas/components.py), or that or null when it may be null;
  so is a nullable nested schema (apispec would make it ``anyOf`` a stand-in
  object, which generators read as a type of its own).
* A schema with ``Meta.openapi`` is documented as that (a body that is one of
  several shapes).
* Bodies that are not JSON are also declared as ``application/octet-stream``
  (``format: binary``), the one such type generators know: beside the precise type
  in answers, alone (with the precise types in its description) in requests,
  since a generator skips a request type it does not know with a warning.
* The operational endpoints (``/healthz``, ``/metrics``, ``/openapi.json``,
  ``/docs``) live in a plain Flask blueprint and are described here by hand.
"""

from __future__ import annotations

import functools
import http

from flask_smorest import Api
from marshmallow import fields

import schemas
from schemas import components, moves

PROBLEM = "application/problem+json"
BINARY = {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}}

# Who may call an operation (each operation's `security`). A token is a seat's or
# the admin's (docs/api.md, "Who is calling"); the document cannot tell which an
# operation wants, its description does.
TOKEN = [{"bearer": []}]
TOKEN_OR_NONE = [{}, {"bearer": []}]  # a token shows more (a seat's hand); none: a spectator's
PUBLIC: list = []


def binary(description: str, precise: dict | None = None) -> dict:
    """A body that is not JSON: its precise media types (an answer only) and
    application/octet-stream beside them."""
    return {"description": description, "content": {**(precise or {}), **BINARY}}


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


def _as_component(self, field, ret: dict, **_kw) -> dict:
    """apispec attribute function: a ``ref`` field, or a nested schema that may be
    null, as a reference (or the reference or null). Rewrites ``ret`` in place:
    OpenAPI 3.0 ignores whatever stands beside a ``$ref``."""
    name = field.metadata.get("ref")
    if name is not None:
        target = components.ref(name)
    elif isinstance(field, fields.Nested) and field.allow_none:
        target = self.resolve_nested_schema(field.schema)
    else:
        return {}
    description = ret.get("description")
    ret.clear()
    ret.update(components.nullable(target, description) if field.allow_none else target)
    return {}


class ProblemApi(Api):
    """flask-smorest's Api, with every error response as problem+json and no
    catch-all "default" response (each operation lists its real refusals)."""

    DEFAULT_ERROR_RESPONSE_NAME = None

    def _init_spec(self, *args, **kwargs):
        super()._init_spec(*args, **kwargs)
        self.ma_plugin.converter.add_attribute_function(_as_component)

    def _register_responses(self):
        for status in http.HTTPStatus:
            if status < 400:
                continue
            self.spec.components.response(status.name, {
                "description": status.phrase,
                "content": {PROBLEM: {"schema": "Problem"}},
            }, lazy=True)


TEXT = {"text/plain": {"schema": {"type": "string"}}}
HEALTH = {"type": "object", "required": ["status"],
          "properties": {"status": {"type": "string", "enum": ["ok", "store unreachable"]}}}


def _op(operation_id: str, summary: str, responses: dict) -> dict:
    return {"get": {"tags": ["ops"], "operationId": operation_id, "summary": summary,
                    "security": PUBLIC, "responses": responses}}


OPS = {
    # (its 503 is no refusal but the answer a load balancer reads: JSON like the 200)
    "/healthz": _op("getHealth", "Liveness: 200 while the store answers", {
        "200": {"description": "the store answers", "content": {"application/json": {"schema": HEALTH}}},
        "503": {"description": "the store cannot be reached (with Retry-After)",
                "content": {"application/json": {"schema": HEALTH}}}}),
    "/metrics": _op("getMetrics", "Prometheus metrics (text exposition format)",
                    {"200": {"description": "metrics", "content": TEXT}}),
    "/openapi.json": _op("getOpenApi", "This document", {"200": {
        "description": "OpenAPI 3", "content": {"application/json": {"schema": {
            "type": "object", "additionalProperties": {}}}}}}),
    "/docs": _op("getDocs", "This document, browsable (Swagger UI, works offline)", {"200": {
        "description": "an HTML page", "content": {"text/html": {"schema": {"type": "string"}}}}}),
}


def document(api: Api, app) -> None:
    """Add the named shapes, the moves and the operational endpoints (registered on
    ``app`` already) to the document, and document each schema with
    ``Meta.openapi`` as that."""
    for name, schema in components.COMPONENTS.items():
        api.spec.components.schema(name, schema)
    for name, (_type, schema) in moves.TYPES.items():
        api.spec.components.schema(name, schema)
    api.spec.components.schema("Move", moves.MOVE)
    documented = api.spec.components.schemas
    for name in list(documented):
        told = getattr(getattr(getattr(schemas, name, None), "Meta", None), "openapi", None)
        if told is not None:
            documented[name] = dict(told)
    # flask-smorest's pagination schema: this API paginates otherwise.
    api.spec.components.schemas.pop("PaginationMetadata", None)
    rules = {rule.rule: rule for rule in app.url_map.iter_rules()}
    for path, operations in OPS.items():
        api.spec.path(rule=rules[path], operations=operations)
