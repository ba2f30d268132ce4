"""What a request body may be: its media type and its size, per endpoint.

JSON endpoints take ``application/json`` (or any ``+json`` type): a move sent as a
form or as text would otherwise reach the schema as "missing field" and get a
misleading answer; it gets 415 ``unsupported-media-type`` instead. The few
endpoints that take something else (an exported log, a raw e-mail) say so here.

Sizes: an export may be large (an audit takes up to 16 MiB); everything else is
small, and a smaller cap keeps a flood of large bodies cheap to refuse. A body over
its cap is 413 ``too-large`` however it is sent: with ``Content-Length`` it is
refused before a byte is read; sent in chunks (``Transfer-Encoding: chunked``) it
is read up to one byte past the cap, then refused, never read to its end.
"""

from __future__ import annotations

import io
import json

from flask import Flask, g, request
from webargs.core import parse_json
from webargs.flaskparser import FlaskParser, is_json_request

from referee.api.numbers import TooManyDigits, loads_keeping_long_numbers
from referee.games.base import MalformedMove, RefereeError

MiB = 1024 * 1024
AUDIT_MAX = 16 * MiB  # the contract's cap for POST /v1/audit
DEFAULT_MAX = 1 * MiB  # every other body

# endpoint -> (media types it takes besides none at all, its size cap). The raw
# endpoints also take the form type that `curl --data-binary @file` and urllib
# send by default: the body is read as it is, never parsed as a form.
FORM = "application/x-www-form-urlencoded"
RAW_BODIES = {
    "games.audit": ({"application/jsonl", "application/x-ndjson", "application/json-lines",
                     "text/plain", "application/octet-stream", FORM}, AUDIT_MAX),
    "games.inbound_email": ({"message/rfc822", "text/plain", "application/octet-stream", FORM}, DEFAULT_MAX),
}


# No request of this API nests deeper than a few levels (an options object holding
# a list of decks); a body nested deeper is refused before anything walks it, so
# no code further on can run out of stack on it.
MAX_DEPTH = 32


class UnsupportedMediaType(RefereeError):
    code, status = "unsupported-media-type", 415


class TooLarge(RefereeError):
    code, status = "too-large", 413


def _within_cap(req, cap: int) -> None:
    """Refuse (413) a body over ``cap`` without reading past it. A chunked body has
    no length to look at: werkzeug would read it up to the cap and stop there
    silently, handing on a body cut short (a JSON body then "invalid", an export
    then a different log). So it is read here, one byte past the cap at most, and
    what was read is handed on as the request's body."""
    length = req.content_length
    if length is not None:
        if length > cap:
            raise TooLarge(f"the body is over its cap of {cap // MiB} MiB ({cap} bytes)", limit=cap)
        return
    environ = req.environ
    if "wsgi.input_terminated" not in environ:
        return  # a server that does not end the stream itself: werkzeug reads no body then
    stream, got = environ["wsgi.input"], bytearray()
    while len(got) <= cap:
        piece = stream.read(min(64 * 1024, cap + 1 - len(got)))
        if not piece:
            break
        got += piece
    if len(got) > cap:
        raise TooLarge(f"the body is over its cap of {cap // MiB} MiB ({cap} bytes)", limit=cap)
    environ["wsgi.input"] = io.BytesIO(got)


def check_json(value) -> None:
    """Refuse (400, naming where) what would trip code further on: nesting deeper
    than MAX_DEPTH, text that is no Unicode (a lone UTF-16 surrogate, which JSON's
    \\u escapes can spell but UTF-8 cannot hold) and integers too long to read
    (referee/api/numbers.py). Iterative: it cannot overflow."""
    stack = [(value, "body", 1)]
    while stack:
        v, where, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise MalformedMove(f"the JSON nests deeper than {MAX_DEPTH} levels", field=where)
        if isinstance(v, str):
            _check_text(v, where)
        elif isinstance(v, dict):
            for k, item in v.items():
                _check_text(k, where)
                stack.append((item, f"{where}.{k}" if where != "body" else k, depth + 1))
        elif isinstance(v, list):
            stack.extend((item, f"{where}[{i}]", depth + 1) for i, item in enumerate(v))
        elif type(v) is TooManyDigits:
            raise MalformedMove(f"a number of {v.digits} digits is past any this API takes", field=where)


def _check_text(text: str, where: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise MalformedMove("text with a lone UTF-16 surrogate is not Unicode", field=where) from None


def _long_numbers(data: bytes):
    """A body the JSON parser refused for an integer too long to read, parsed again
    keeping such integers (so the check names their field)."""
    try:
        return loads_keeping_long_numbers(data.decode("utf-8"))
    except RecursionError:
        raise MalformedMove(f"the JSON nests deeper than {MAX_DEPTH} levels", field="body") from None
    except ValueError:  # no JSON further on either (webargs' words for it: it never gets there)
        raise MalformedMove("body: Invalid JSON body.", field="body") from None


def _has_body(req) -> bool:
    return bool(req.content_length) or "chunked" in req.headers.get("Transfer-Encoding", "").lower()


def install(app: Flask) -> None:
    app.config["MAX_CONTENT_LENGTH"] = AUDIT_MAX

    @app.before_request
    def _check_body():
        req = request._get_current_object()  # the request itself: one look-up, not one per use
        if req.method not in ("POST", "PUT", "PATCH"):
            return
        if req.routing_exception is not None:
            return  # 404 or 405: answered without reading the body
        raw = RAW_BODIES.get(req.endpoint or "")
        cap = req.max_content_length = raw[1] if raw else DEFAULT_MAX
        if not _has_body(req):
            return
        mimetype = req.mimetype
        if raw is not None:
            if mimetype and mimetype not in raw[0]:
                raise UnsupportedMediaType(f"send this body as one of {', '.join(sorted(raw[0]))}",
                                           accepted=sorted(raw[0]))
        elif not (mimetype == "application/json" or mimetype.endswith("+json")):
            raise UnsupportedMediaType("send the body as JSON with Content-Type: application/json",
                                       accepted=["application/json"])
        _within_cap(req, cap)
        if raw is None:
            data = req.get_data(cache=True)
            try:
                body = parse_json(data)  # as the schema's parser reads it
            except RecursionError:
                raise MalformedMove(f"the JSON nests deeper than {MAX_DEPTH} levels", field="body") from None
            except json.JSONDecodeError:
                return  # not JSON: the schema's parser says so, as for any bad body
            except ValueError:  # an integer too long to read (referee/api/numbers.py)
                body = _long_numbers(data)
            check_json(body)
            if is_json_request(req):
                g.referee_body = body


_UNREAD = object()  # no body parsed above (none, or not JSON): webargs reads it


class Parser(FlaskParser):
    """webargs' parser for the API's blueprints: a JSON body already parsed and
    checked above is taken as it is instead of being parsed a second time; and a
    schema's refusal is 400 ``malformed`` (flask-smorest's default is 422, which
    here means an illegal move)."""

    DEFAULT_VALIDATION_STATUS = 400

    def load_json(self, req, schema):
        body = g.get("referee_body", _UNREAD)
        return super().load_json(req, schema) if body is _UNREAD else body


PARSER = Parser()
