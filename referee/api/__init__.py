"""The Flask app: the contract's endpoints, problem+json refusals, OpenAPI and docs."""

from __future__ import annotations

import os

from flask import Flask

import referee
import schemas
from referee import logs, web
from referee.api import bodies, lane, limits, numbers, openapi, problems
from referee.api.ops import ops
from referee.api.routes import blp


class ProblemApi(openapi.ProblemApi):
    # Document refusals as they are answered: problem+json with a code.
    ERROR_SCHEMA = schemas.Problem


class RefereeFlask(Flask):
    """Flask, remembering which functions are coroutines. Flask asks
    ``inspect.iscoroutinefunction`` of every view, wrapper and hook on every request
    (some twenty times for a move); a function's answer never changes."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._plain: set = set()
        # a seat of 5,000 digits in a path is a 400 naming it, not a 500 (referee/api/numbers.py)
        self.url_map.converters["int"] = numbers.WholeNumber

    def ensure_sync(self, func):
        try:
            if func in self._plain:
                return func
        except TypeError:  # unhashable: ask each time
            return super().ensure_sync(func)
        made = super().ensure_sync(func)
        if made is func and len(self._plain) < 10_000:
            self._plain.add(func)
        return made


def create_app(service=None, config=None) -> Flask:
    from referee.system import build as build_service

    app = RefereeFlask("referee")
    app.config.update(
        API_TITLE="castle-referee", API_VERSION=referee.__version__, OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX="/", OPENAPI_JSON_PATH="openapi.json",
        OPENAPI_SWAGGER_UI_PATH="docs", OPENAPI_SWAGGER_UI_URL="/docs-assets/",
        JSON_SORT_KEYS=False,
        API_SPEC_OPTIONS={
            "info": {"description": "An event-sourced referee for King of Danger, Castle Danger, "
                                    "King of the Castle and King's Keys. Every refusal is "
                                    "application/problem+json with a `code`.",
                     "license": {"name": "MIT", "url": "https://opensource.org/licenses/MIT"}},
            # relative: the server that serves this document (behind any proxy or prefix)
            "servers": [{"url": "/", "description": "the server this document comes from"}],
            "components": {"securitySchemes": {"bearer": {
                "type": "http", "scheme": "bearer",
                "description": "a seat's token or the game's admin token, both returned once by "
                               "`createGame` (docs/api.md, \"Who is calling\")"}}},
        },
    )
    service = app.extensions["referee"] = service or build_service(config)
    api = ProblemApi(app)
    api.register_blueprint(blp)
    app.register_blueprint(ops)
    web.install(app, api)  # pictures, pages, CORS (referee/web/)
    from referee.players.api import install as install_players  # players (referee/players/)
    install_players(app, api)
    from referee.leagues.api import install as install_leagues  # leagues (referee/leagues/)
    install_leagues(app, api)
    from referee.trust.api import install as install_trust  # keys and receipts (referee/trust/)
    install_trust(app, api)
    from referee.calendar.api import install as install_calendar  # calendars (referee/calendar/)
    install_calendar(app, api)
    from referee.transparency.api import install as install_tlog  # its tree (referee/transparency/)
    install_tlog(app, api)
    from referee.disputes.api import install as install_disputes  # votes, disputes, rulings
    install_disputes(app, api)
    openapi.document(api, app)
    problems.install(app)  # after Api: our problem+json handlers replace its JSON ones
    logs.install(app)  # one JSON line per request, and X-Request-ID on every answer
    bodies.install(app)  # media types (415) and size caps (413) per endpoint
    limiter = limits.install(app, service)  # 429 for floods: moves per token, audits and bad tokens per client
    lane.install(app, service, limiter)  # the usual accepted move, answered in front of the app
    hops = os.environ.get("REFEREE_PROXY_HOPS", "0")
    if hops != "0":
        # Behind TLS-terminating reverse proxies: trust that many X-Forwarded-*
        # hops, so logs and per-client limits see the real client, not the proxy.
        from werkzeug.middleware.proxy_fix import ProxyFix

        n = int(hops)
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=n, x_proto=n, x_host=n, x_port=n, x_prefix=n)
    return app
