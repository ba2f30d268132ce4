"""CORS on the JSON API, by flask-cors.

Tokens travel as bearer headers, never cookies, so a page on another site gains
nothing by calling the API from a visitor's browser that it could not do itself;
credentials (cookies) are never allowed. ``REFEREE_CORS_ORIGINS``: ``*`` (the
default) or a comma-separated list of origins.

flask-cors works its options out again for every answer, about a twentieth of
what a move costs the server. An answer under ``/v1/`` to a request that is no
preflight and carries no ``Origin`` (no browser sent it) always gets the same
headers from it, so those are taken from flask-cors once and copied after that;
every other answer (a browser's, a preflight, a refusal) is still its work. The
move lane (referee/api/lane.py) adds the same headers to the moves it answers.
"""

from __future__ import annotations

import os

from flask import Flask, Response, request

HEADERS_SET = "Access-Control-Allow-Origin"
# app.extensions' key for the headers every plain answer under /v1/ gets (the move lane's too)
PLAIN = "referee-cors-plain"


def install(app: Flask) -> None:
    from flask_cors import CORS

    origins = os.environ.get("REFEREE_CORS_ORIGINS", "*")
    allowed = "*" if origins.strip() == "*" else [o.strip() for o in origins.split(",") if o.strip()]
    hooks = app.after_request_funcs.setdefault(None, [])
    before = list(hooks)
    CORS(app, resources={r"/v1/*": {"origins": allowed}}, supports_credentials=False,
         send_wildcard=allowed == "*",
         allow_headers=["Authorization", "Content-Type", "Idempotency-Key"],
         expose_headers=["ETag", "Retry-After", "X-Request-ID", "Location"], max_age=600)
    added = [f for f in hooks if f not in before]
    if len(added) != 1:  # not the flask-cors we know: leave its hook as it is
        return
    cors_after_request = added[0]
    with app.test_request_context("/v1/", method="POST"):
        probe = cors_after_request(Response())
    known = [(k, v) for k, v in probe.headers.items() if k.startswith("Access-Control-") or k == "Vary"]
    app.extensions[PLAIN] = tuple(known)

    def after_request(response: Response) -> Response:
        req = request._get_current_object()  # one look-up through the proxy, not four
        if (req.method == "OPTIONS" or "Origin" in req.headers
                or not req.path.startswith("/v1/") or "%" in req.path):
            return cors_after_request(response)
        if HEADERS_SET in response.headers:  # set already (a refusal's, by flask-cors)
            return response
        for key, value in known:
            response.headers.add(key, value)
        return response

    hooks[hooks.index(cors_after_request)] = after_request
