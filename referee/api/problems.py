"""Every refusal as application/problem+json (RFC 9457), with the contract's ``code``."""

from __future__ import annotations

import logging

from flask import Flask, jsonify
from marshmallow import ValidationError
from werkzeug.exceptions import HTTPException

from referee import metrics
from referee.games.base import RefereeError
from referee.store import NotReplicated, StoreUnavailable

log = logging.getLogger("referee.api")

TITLES = {
    "malformed": "Malformed request", "unauthenticated": "Unauthenticated",
    "not-your-seat": "Not your seat", "not-your-turn": "Not your turn",
    "no-such-game": "No such game", "version-conflict": "Version conflict",
    "game-over": "Game over", "illegal-move": "Illegal move", "settling": "Referee step due",
    "forbidden": "Forbidden", "idempotency-key-reused": "Idempotency key reused",
    "not-found": "Not found", "method-not-allowed": "Method not allowed",
    "too-large": "Request too large", "internal": "Internal error",
    "unsupported-media-type": "Unsupported media type", "store-unavailable": "Store unavailable",
    "too-many-requests": "Too many requests",
}

HTTP_CODES = {404: "not-found", 405: "method-not-allowed", 413: "too-large",
              415: "unsupported-media-type", 401: "unauthenticated", 429: "too-many-requests"}


def problem(status: int, code: str, detail: str, **extra):
    body = {"type": f"https://castle-referee.invalid/problems/{code}",
            "title": TITLES.get(code, code.replace("-", " ").capitalize()),
            "status": status, "detail": detail, "code": code, **extra}
    metrics.refusals.labels(code).inc()
    resp = jsonify(body)
    resp.status_code = status
    resp.mimetype = "application/problem+json"
    if status == 401:
        resp.headers["WWW-Authenticate"] = 'Bearer realm="castle-referee"'
    return resp


def path(prefix: str, key) -> str:
    """A field's name as every refusal writes it: ``options.target``, ``players[1]``,
    ``players[0].name`` (a list's items by index in brackets, an object's keys after a dot)."""
    if isinstance(key, int) or (isinstance(key, str) and key.isdigit()):
        return f"{prefix}[{key}]"
    return f"{prefix}.{key}" if prefix else str(key)


def first_field(messages, prefix="") -> tuple[str, str]:
    """The first field named in marshmallow's error messages, and its message."""
    if isinstance(messages, dict):
        for key, sub in messages.items():
            if key == "_schema":
                return first_field(sub, prefix)
            return first_field(sub, path(prefix, key))
    if isinstance(messages, list) and messages:
        return first_field(messages[0], prefix) if not isinstance(messages[0], str) else (prefix or "body", messages[0])
    return prefix or "body", str(messages)


def allowed(schema, field: str) -> list[str]:
    """The fields the object holding ``field`` may have, by the schema (empty when
    the schema does not say: an open object, a list's item)."""
    parts = field.split(".")
    for part in parts[:-1]:
        nested = getattr(schema, "fields", {}).get(part) if schema is not None else None
        schema = getattr(nested, "schema", None)
    fields = getattr(schema, "fields", None)
    if not fields:
        return []
    return sorted(f.data_key or name for name, f in fields.items() if not f.dump_only)


def install(app: Flask) -> None:
    @app.errorhandler(RefereeError)
    def referee_error(err: RefereeError):
        extra = {k: v for k, v in err.extra.items() if v is not None}
        resp = problem(err.status, err.code, err.detail, **extra)
        if "retry_after" in extra:  # a refusal that passes with time (audits-busy)
            resp.headers["Retry-After"] = str(extra["retry_after"])
        return resp

    @app.errorhandler(ValidationError)
    def validation_error(err: ValidationError):
        field, msg = first_field(err.messages)
        return problem(400, "malformed", f"{field}: {msg}", field=field)

    def schema_refusal(messages, schema):
        field, msg = first_field(messages)
        if msg == "Unknown field.":  # say which fields there are
            known = allowed(schema, field)
            if known:
                msg = f"unknown field; the fields are {', '.join(known)}"
        return problem(400, "malformed", f"{field}: {msg}", field=field)

    @app.errorhandler(HTTPException)
    def http_error(err: HTTPException):
        code = HTTP_CODES.get(err.code, "malformed" if err.code == 400 else "internal")
        messages = getattr(err, "data", {}).get("messages") if hasattr(err, "data") else None
        if messages:  # webargs' validation errors, reported on the field they name
            for location in messages.values():
                return schema_refusal(location, err.data.get("schema"))
        resp = problem(err.code or 500, code, err.description or err.name)
        allow = dict(err.get_headers()).get("Allow")
        if allow:  # RFC 9110: a 405 says which methods the resource has
            resp.headers["Allow"] = allow
        if err.code == 429:  # referee/api/limits.py says when its window ends
            resp.headers["Retry-After"] = str(getattr(err, "retry_after", 60))
        return resp

    def store_down(err: Exception):
        # The store (Redis) cannot be reached: nothing was recorded that was not
        # acknowledged, and a retry later is the cure.
        log.warning("store unavailable: %s", err)
        resp = problem(503, "store-unavailable", "the referee's store cannot be reached; "
                       "nothing was changed: try again in a few seconds")
        resp.headers["Retry-After"] = "5"
        return resp

    for unavailable in StoreUnavailable:
        app.register_error_handler(unavailable, store_down)

    @app.errorhandler(NotReplicated)
    def not_replicated(err: NotReplicated):
        # REFEREE_WAIT_REPLICAS: the move is on the primary, not yet on enough
        # replicas; the same request again (its Idempotency-Key) learns its fate.
        log.warning("not replicated: %s", err)
        resp = problem(503, "not-replicated", "the move was written but not yet confirmed by enough of the "
                       "store's replicas; send the same request again, with the same Idempotency-Key, to "
                       "learn whether it stands")
        resp.headers["Retry-After"] = "1"
        return resp

    @app.errorhandler(Exception)
    def unexpected(err: Exception):
        log.exception("unexpected error")
        return problem(500, "internal", "the referee failed on this request; the log shows whether anything was recorded")
