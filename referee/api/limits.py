"""Rate limits (flask-limiter), so no client can starve the others.

Three limits, each configurable by environment (see docs/running.md), with
defaults no real player, organiser or test suite meets:

* moves per token (``REFEREE_MOVE_RATE``, default 1200/minute): a seat's client
  gone wrong cannot flood its game's log;
* failed token checks per client address (``REFEREE_AUTH_FAIL_RATE``, default
  120/minute): tokens cannot be guessed at speed (they are 144 random bits anyway);
* audits per client address (``REFEREE_AUDIT_RATE``, default 60/minute): an audit
  of a large log is work, and one client looping audits must not slow play.

Counters live in memory in embedded mode and in Redis where the store or the
queue is Redis, so every API process counts together. Over a limit: 429
``too-many-requests`` problem+json with ``Retry-After``.
"""

from __future__ import annotations

import hashlib
import os

from flask import Flask, request
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address

DEFAULTS = {"REFEREE_MOVE_RATE": "1200/minute", "REFEREE_AUTH_FAIL_RATE": "120/minute",
            "REFEREE_AUDIT_RATE": "60/minute"}


def rate(name: str):
    return lambda: os.environ.get(name) or DEFAULTS[name]


def token_key() -> str:
    """Moves are counted per bearer token (its hash: no token is kept in the
    limiter's storage), or per address for a request without one."""
    header = request.headers.get("Authorization", "")
    if header:
        return "token:" + hashlib.sha256(header.encode("utf-8", "replace")).hexdigest()
    return "addr:" + (get_remote_address() or "")


def storage_uri(service) -> str:
    url = getattr(service.store, "url", None) or getattr(service.queue, "url", None)
    if isinstance(url, str) and url.startswith(("redis://", "rediss://")):
        return url
    return "memory://"


def install(app: Flask, service) -> Limiter:
    """One limiter per app (its own counters), with the three limits above."""
    limiter = Limiter(get_remote_address, app=app, storage_uri=storage_uri(service),
                      key_prefix="referee-limits", headers_enabled=False, swallow_errors=True,
                      application_limits=[rate("REFEREE_AUTH_FAIL_RATE")],
                      application_limits_deduct_when=lambda response: response.status_code == 401)
    views = app.view_functions
    for endpoint in ("games.moves", "games.inbound_email"):
        views[endpoint] = limiter.limit(rate("REFEREE_MOVE_RATE"), key_func=token_key)(views[endpoint])
    views["games.audit"] = limiter.limit(rate("REFEREE_AUDIT_RATE"))(views["games.audit"])
    # liveness, metrics and the docs answer whatever a client did before
    limiter.exempt(app.blueprints["ops"])
    for endpoint in ("api-docs.openapi_json", "api-docs.openapi_swagger_ui"):
        if endpoint in views:
            views[endpoint] = limiter.exempt(views[endpoint])
    return limiter
