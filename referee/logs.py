"""Structured logs: one JSON line per request and one per referee job.

An organiser's log collector (journald, Loki, a file) gets lines it can filter by
game, status or request id without parsing prose. The JSON formatting is
python-json-logger's; this module only decides what each line says.

* ``referee.access``: one line per HTTP request: method, path (never the query
  string or headers, so no token can reach a log), status, game, duration in
  milliseconds, request id (the client's ``X-Request-ID`` when it is sane, else a
  new one; echoed in the answer's ``X-Request-ID``). On by default; off with
  ``referee serve --no-access-log`` or ``REFEREE_ACCESS_LOG=0``.
* ``referee.jobs``: one line per referee job (kind, game, duration, how many
  events it appended, or the error).
"""

from __future__ import annotations

import json
import logging
import os
import random
import re
import sys
import time
from contextlib import contextmanager

from pythonjsonlogger.json import JsonFormatter

access = logging.getLogger("referee.access")
jobs = logging.getLogger("referee.jobs")

_SANE_ID = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")
_configured = False

# The fields of the access line, in its order (install's _done passes exactly these).
ACCESS_FIELDS = ("method", "path", "status", "game", "duration_ms", "request_id", "remote")


class Lines(JsonFormatter):
    """python-json-logger's JSON lines, the access line (one per request) made
    straight from its known fields: the library's general path walks every
    attribute of the record to find the extra ones, about 6 % of what a move
    costs the server. The text is the same (tests/test_ops.py compares them)."""

    def format(self, record: logging.LogRecord) -> str:
        fields = record.__dict__
        if (record.name != access.name or len(fields) != _ACCESS_ATTRS or record.exc_info
                or record.exc_text or record.stack_info or record.args or not isinstance(record.msg, str)):
            return super().format(record)  # not the access line as _done logs it
        line = {"time": self.formatTime(record, self.datefmt), "level": record.levelname,
                "logger": record.name, "message": record.msg}
        try:
            for key in ACCESS_FIELDS:
                line[key] = fields[key]
        except KeyError:
            return super().format(record)
        return json.dumps(line)


# A record of the access line as _done logs it has a plain record's attributes and
# its fields, no more (anything else there would belong in the line too).
_ACCESS_ATTRS = len(logging.LogRecord("", 0, "", 0, "", None, None).__dict__) + len(ACCESS_FIELDS)


def formatter() -> Lines:
    return Lines("{asctime}{levelname}{name}{message}", style="{",
                 rename_fields={"asctime": "time", "levelname": "level", "name": "logger"})


def configure(level: int = logging.INFO) -> None:
    """Send the ``referee`` loggers to stderr as JSON lines (once per process).
    Left alone when the host program already gave them a handler."""
    global _configured
    root = logging.getLogger("referee")
    if _configured or root.handlers:
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(formatter())
    root.addHandler(handler)
    root.setLevel(level)
    root.propagate = False
    _configured = True


def access_log_enabled() -> bool:
    return os.environ.get("REFEREE_ACCESS_LOG", "1").lower() not in ("0", "false", "no", "off")


def request_id(given: str | None) -> str:
    """The client's request id if it is a plain token of at most 128 characters
    (anything else could forge log lines), else a fresh one."""
    if given and _SANE_ID.match(given):
        return given
    # 128 random bits in uuid4's hex form, without its read of the system's
    # randomness on every request: an id must be unique, not unguessable (the
    # random module is reseeded in every forked worker).
    return f"{random.getrandbits(128):032x}"


def install(app) -> None:
    """Time every request and log it as one JSON line (see the module's docstring)."""
    from flask import g, request

    enabled = access_log_enabled()

    @app.before_request
    def _start():
        here = g._get_current_object()  # one look-up through the proxy, not one per use
        here.request_started = time.perf_counter()
        here.request_id = request_id(request.headers.get("X-Request-ID"))

    @app.after_request
    def _done(response):
        here = g._get_current_object()
        rid = getattr(here, "request_id", None) or request_id(None)
        response.headers["X-Request-ID"] = rid
        if enabled:
            req = request._get_current_object()
            started = getattr(here, "request_started", None)
            took = (time.perf_counter() - started) * 1000 if started else None
            game = (req.view_args or {}).get("game_id")
            access.info("request", extra={
                "method": req.method, "path": req.path, "status": response.status_code,
                "game": game, "duration_ms": round(took, 3) if took is not None else None,
                "request_id": rid, "remote": req.remote_addr})
        return response


@contextmanager
def job(kind: str, game_id: str | None, **fields):
    """Log one referee job as it ends: ``with logs.job("settle", gid) as line:
    line["appended"] = n``. An exception is logged with the line and re-raised."""
    line: dict = {"job": kind, "game": game_id, **fields}
    started = time.perf_counter()
    try:
        yield line
    except Exception as err:
        line.update(outcome="error", error=f"{type(err).__name__}: {err}",
                    duration_ms=round((time.perf_counter() - started) * 1000, 3))
        jobs.error("job", extra=line)
        raise
    line.setdefault("outcome", "done")
    line["duration_ms"] = round((time.perf_counter() - started) * 1000, 3)
    jobs.info("job", extra=line)
