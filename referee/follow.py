"""Following a game as it is played: the long poll of
``GET /v1/games/{id}/events?after=N&wait=S``.

A waiting request holds its thread until the game's log is longer than ``N``
or ``S`` seconds have passed, then answers as ``wait=0`` would (the events
after ``N``, redacted for the caller, or none).

How a waiter learns of a move: it reads the game's version from the store
(``Store.version``: one indexed row in SQLite, one hash field in Redis) every
``POLL`` seconds. Polling the store, not Redis pub/sub, because

- it works the same with both stores, and across processes and machines: a move
  written by another gunicorn process, a worker's referee step or a keeper's
  timeout is seen on the next read, whoever wrote it;
- there is nothing to lose: a pub/sub message published while a waiter was
  between subscribing and reading the log would leave it asleep for the whole
  wait, while a version read is always current;
- it needs no connection, subscription or listener thread per waiter, and
  Redis Cluster's pub/sub (broadcast to every node) would cost more than the reads.

At ``POLL`` = 0.2 s a waiter makes five cheap reads a second, and waiters are
bounded per process (``REFEREE_MAX_WAITERS``): past the bound a request is
answered at once, as with ``wait=0``, with ``Retry-After``, so long polls can
never take every request thread and the moves keep being answered.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass

# Seconds between two reads of a waited-for game's version: a move made anywhere
# reaches its waiters within this (plus the answer's own time).
POLL = 0.2
# The longest wait a client may ask for (seconds): under the usual 30 to 60 s idle
# timeouts of proxies and load balancers, and under gunicorn's worker timeout.
LONGEST = 25
# What a client refused a place among the waiters is told to wait before asking again.
BUSY_RETRY = 2
# Set when the process is asked to stop: every wait ends at once (answered with
# what there is), so a restart is not held up by long polls for their whole wait.
STOPPING = threading.Event()


def stop_waiting() -> None:
    STOPPING.set()


def on_worker_start(worker) -> None:
    """gunicorn's ``post_worker_init`` hook: on SIGTERM (a graceful stop or a
    reload), end every wait first, then stop as gunicorn would. Without it a
    stopping worker would keep its long polls up to 25 s, past gunicorn's
    graceful timeout, and their clients would see the connection cut."""
    import signal

    before = signal.getsignal(signal.SIGTERM)

    def term(signum, frame):
        stop_waiting()
        if callable(before):
            before(signum, frame)

    signal.signal(signal.SIGTERM, term)
    signal.siginterrupt(signal.SIGTERM, False)  # as gunicorn has it: requests run on


def _default_waiters() -> int:
    """Half the request threads of a process (``REFEREE_THREADS``, 8 by default):
    the other half always stays free for moves, views and pages."""
    try:
        threads = int(os.environ.get("REFEREE_THREADS", "8"))
    except ValueError:
        threads = 8
    return max(1, threads // 2)


@dataclass(frozen=True)
class Held:
    """How a request went: ``waited`` (it held a place and waited, perhaps not at
    all if news was there already), ``busy`` (every place was taken: answered at once)."""

    waited: bool = False
    busy: bool = False


class Waiters:
    """The places for waiting requests in this process, and the wait itself."""

    def __init__(self, places: int | None = None, longest: float | None = None, poll: float = POLL):
        if places is None:
            places = int(os.environ.get("REFEREE_MAX_WAITERS") or _default_waiters())
        if longest is None:
            # An operator behind a proxy with a short idle timeout may hold long
            # polls for less than a client asks; 0 turns long polling off.
            longest = float(os.environ.get("REFEREE_LONGEST_WAIT") or LONGEST)
        self.places = max(0, places)
        self.longest = max(0.0, min(float(LONGEST), longest))
        self.poll = poll
        self._lock = threading.Lock()
        self.waiting = 0  # requests holding a place now (read by tests and metrics)

    def _take(self) -> bool:
        with self._lock:
            if self.waiting >= self.places:
                return False
            self.waiting += 1
            return True

    def _give_back(self) -> None:
        with self._lock:
            self.waiting -= 1

    def wait(self, version, after: int, seconds: float) -> Held:
        """Wait until ``version()`` (the game's version now; None once there is no
        such game) is above ``after``, at most ``seconds`` (cut to ``longest``)."""
        seconds = min(seconds, self.longest)
        if seconds <= 0:
            return Held()
        if not self._take():
            return Held(busy=True)
        try:
            until = time.monotonic() + seconds
            while True:
                now = version()
                if now is None or now > after:
                    return Held(waited=True)
                left = until - time.monotonic()
                if left <= 0 or STOPPING.wait(min(self.poll, left)):
                    return Held(waited=True)
        finally:
            self._give_back()


def of(app) -> Waiters:
    """The app's waiters, made on first use from the environment."""
    waiters = app.extensions.get("referee-waiters")
    if waiters is None:
        waiters = app.extensions.setdefault("referee-waiters", Waiters())
    return waiters
