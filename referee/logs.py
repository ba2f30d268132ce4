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

import collections
import json
import logging
import os
import random
import re
import sys
import threading
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
    straight from its known fields instead of by the library's general path,
    which walks every attribute of the record to find the extra ones. The text
    is the same (tests/test_ops.py compares them)."""

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


class Batches(logging.StreamHandler):
    """Lines written in batches: a record is kept on the caller's thread (a deque
    append), and a writer thread of the process formats and writes what gathered
    every ``interval`` seconds, in one write. A WARNING or worse is written at
    once by its caller, after every line before it; what is left is written at
    exit (logging's own shutdown flushes every handler).

    Why: a server logs a line per request, and formatting and writing each on the
    request's own thread cost a move 4 to 7 % of the server's CPU at 8 threads
    (benchmarks/compare.py): every write lets the interpreter pass to another
    request thread, and the threads queue for the stream. The price: a line
    appears up to ``interval`` seconds late, and a process killed with -9 loses at
    most that much of its last lines (REFEREE_LOG_INTERVAL=0 writes each line at
    once)."""

    def __init__(self, stream, interval: float):
        super().__init__(stream)
        self.interval = interval
        self._records: collections.deque = collections.deque()
        self._writing = threading.Lock()  # one batch at a time: lines never reorder
        self._writer_pid = 0
        os.register_at_fork(after_in_child=self._forked)

    def _forked(self) -> None:
        """In a child just forked: the lines still here are its parent's to write,
        and the parent's writer thread, which may have held the lock, is not here."""
        self._records.clear()
        self._writing = threading.Lock()

    def emit(self, record: logging.LogRecord) -> None:
        # (logging calls this under the handler's lock: one thread at a time)
        self._records.append(record)
        if record.levelno >= logging.WARNING:
            self.flush()
        elif self._writer_pid != os.getpid():  # one writer thread per process, forks too
            self._writer_pid = os.getpid()
            threading.Thread(target=self._write_on, name="referee-log-writer", daemon=True).start()

    def _write_on(self) -> None:
        while True:
            time.sleep(self.interval)
            self.flush()

    def flush(self) -> None:
        """Write every line gathered so far, in order, in one write."""
        with self._writing:
            lines = []
            while self._records:
                record = self._records.popleft()
                try:
                    lines.append(self.format(record) + self.terminator)
                except Exception:
                    self.handleError(record)
            if lines and self.stream is not None:
                try:
                    self.stream.write("".join(lines))
                    self.stream.flush()
                except Exception:
                    self.handleError(record)


def log_interval() -> float:
    """REFEREE_LOG_INTERVAL: seconds between the writes of gathered lines (0:
    each line at once); refused at start when it is no number of 0 or more."""
    given = os.environ.get("REFEREE_LOG_INTERVAL", "0.2")
    try:
        value = float(given)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 60:
        raise ValueError(f"REFEREE_LOG_INTERVAL must be seconds from 0 to 60, not {given!r}")
    return value


def configure(level: int = logging.INFO) -> None:
    """Send the ``referee`` loggers to stderr as JSON lines (once per process),
    in batches (see Batches). Left alone when the host program already gave them
    a handler."""
    global _configured
    root = logging.getLogger("referee")
    if _configured or root.handlers:
        return
    interval = log_interval()
    handler = Batches(sys.stderr, interval) if interval > 0 else logging.StreamHandler(sys.stderr)
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
            access_line(req.method, req.path, response.status_code, (req.view_args or {}).get("game_id"),
                        started, rid, req.remote_addr)
        return response


def access_line(method: str, path: str, status: int, game: str | None, started: float | None,
                rid: str, remote: str | None) -> None:
    """Log a request's one access line (``started``: its perf_counter at the start)."""
    took = (time.perf_counter() - started) * 1000 if started else None
    access.info("request", extra={
        "method": method, "path": path, "status": status, "game": game,
        "duration_ms": round(took, 3) if took is not None else None, "request_id": rid, "remote": remote})


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
