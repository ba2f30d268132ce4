"""The move lane: the accepted move answered in front of Flask.

A move is the referee's busiest request by far, and most of what the app spends on
one is not the move: Flask's request context, the before- and after-request hooks
one by one, webargs' and flask-smorest's wrappers, the response object
(benchmarks/README.md, "Where a move's time goes"). This WSGI layer sits in front
of the app and answers the usual move itself, with the same parts the app uses:
the body checks of ``bodies``, the request schema, the limiter's counting, the
service, the access line of ``logs``, the CORS headers of ``web/cors.py`` and the
JSON encoding of the app. Its answer is the app's, byte for byte
(tests/test_lane.py holds it to that over random games).

It answers only a move the service accepts. Every other request goes to the app
as it came, and so does every move that is not the usual kind (another media
type, no length, a browser's with an ``Origin``, a body the checks or the schema
refuse, no bearer token) and every move the service refuses: a refusal changes
nothing, so the app judges it again from the start, as if the request had come a
moment later, and answers it as it answers every refusal. (Any other error the
lane meets is not judged again: the move may have been written before it; the
app answers that error as it would have, ``MET``.) What the limiter
decided for a request here (counted once) goes along with it (``limits.ADMITTED``),
so nothing is counted twice. A refused move thus costs about two judgements; an
accepted one about half of what the app's way costs.
"""

from __future__ import annotations

import io
import json
import re
import time

from marshmallow import ValidationError

import schemas
from referee import logs, metrics
from referee.api import bodies, limits
from referee.api.limits import ADMITTED, Admission
from referee.games.base import RefereeError
from referee.web import cors

MOVES = "games.moves"  # the endpoint whose usual request the lane answers
_PATH = re.compile(r"/v1/games/([^/]+)/moves")
_SCHEMA = schemas.MoveRequest()
# The WSGI environ key under which the lane hands the app an error it met after
# the move may have been written (the store gone, a fault): the move route raises
# it for the app's own handlers to answer, rather than judging the move again.
MET = "referee.lane-met"


class Lane:
    def __init__(self, app, inner, service, limiter):
        self.inner, self.service, self.limiter = inner, service, limiter
        self.headers = list(app.extensions[cors.PLAIN])
        self.access_log = logs.access_log_enabled()
        # Flask's JSON provider makes a response with json.dumps, which builds an
        # encoder for every call; this is that encoder, with the provider's
        # options, built once: the same text (compact unless debugging)
        provider = app.json
        compact = provider.compact
        spacing = ({"indent": 2} if (compact is None and app.debug) or compact is False
                   else {"separators": (",", ":")})
        self.encode = json.JSONEncoder(default=provider.default, ensure_ascii=provider.ensure_ascii,
                                       sort_keys=provider.sort_keys, **spacing).encode

    def __call__(self, environ, start_response):
        if environ.get("REQUEST_METHOD") != "POST" or environ.get("HTTP_ORIGIN") is not None:
            return self.inner(environ, start_response)
        path = environ.get("PATH_INFO", "")
        found = _PATH.fullmatch(path)
        if found is None or "%" in path:
            return self.inner(environ, start_response)
        return self.move(environ, start_response, found.group(1))

    def move(self, environ, start_response, game_id: str):
        started = time.perf_counter()
        rid = logs.request_id(environ.get("HTTP_X_REQUEST_ID"))
        authorization = environ.get("HTTP_AUTHORIZATION", "")
        scheme, _, token = authorization.partition(" ")
        token = token.strip()
        length = environ.get("CONTENT_LENGTH", "")
        if (scheme.lower() != "bearer" or not token or not length.isdigit() or "HTTP_TRANSFER_ENCODING" in environ
                or int(length) > bodies.DEFAULT_MAX
                or environ.get("CONTENT_TYPE", "").partition(";")[0].strip().lower() != "application/json"):
            return self.inner(environ, start_response)
        raw = environ["wsgi.input"].read(int(length))
        environ["wsgi.input"] = io.BytesIO(raw)  # the app reads it again, if it is the app's to answer
        try:
            body = bodies.parse_json(raw)
            bodies.check_json(body)
            args = _SCHEMA.load(body)
        except (ValueError, RecursionError, RefereeError, ValidationError):
            return self.inner(environ, start_response)  # the app says what is wrong with it
        remote = environ.get("REMOTE_ADDR")
        admitted = self.limiter.admit(MOVES, game_id, authorization, remote)
        if admitted.over is None:
            try:
                who = self.service.caller(game_id, token, admitted.record, kept=True)
                answer = self.service.submit(game_id, who, args, environ.get("HTTP_IDEMPOTENCY_KEY"),
                                             admitted.tally)
            except limits.Limited as over:  # the append's counters said no
                admitted = Admission(over=over)
            except RefereeError:
                admitted = Admission(tally=admitted.tally)  # its counting, if still to do, goes along
            except Exception as err:  # noqa: BLE001 - not judged again: answered by the app as it is
                environ[MET] = err
                admitted = Admission(tally=admitted.tally)
            else:
                over = self.limiter.settle(admitted.tally)
                if over is None:
                    return self.accepted(environ, start_response, game_id, answer, started, rid, remote)
                admitted = Admission(over=over)  # a replayed answer over the limit: 429, as the app says
        environ[ADMITTED] = admitted
        environ["HTTP_X_REQUEST_ID"] = rid
        return self.inner(environ, start_response)

    def accepted(self, environ, start_response, game_id, answer, started, rid, remote):
        data = (self.encode(answer) + "\n").encode()
        metrics.labelled(metrics.requests, "moves").observe(time.perf_counter() - started)
        start_response("201 CREATED", [("Content-Type", "application/json"), ("Content-Length", str(len(data))),
                                       ("X-Request-ID", rid), *self.headers])
        if self.access_log:
            logs.access_line("POST", environ["PATH_INFO"], 201, game_id, started, rid, remote)
        return [data]


def install(app, service, limiter) -> None:
    """Put the lane in front of the app (before any proxy fix, which goes in front of it)."""
    if cors.PLAIN not in app.extensions:  # not the CORS set-up the lane copies: leave every move to the app
        return
    app.wsgi_app = Lane(app, app.wsgi_app, service, limiter)
