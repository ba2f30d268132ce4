"""Audits off the request threads: a small bounded pool of low-priority processes.

An audit of a long log is seconds of pure Python. Run on a request thread it
would hold the interpreter lock that every move of the same process needs, so one
client looping audits could starve every player of that process. Here each API
process hands audits to its own small pool of worker processes (spawned, never
forked from a threaded server) that run at a lower CPU priority, so moves win the
processor whenever both want it. The pool is bounded: ``REFEREE_AUDIT_WORKERS``
audits run at once (default 1) and ``REFEREE_AUDIT_QUEUE`` more may wait (default
2); beyond that an audit is refused at once with 503 ``audits-busy`` and a
``Retry-After``, rather than queued without end. ``REFEREE_AUDIT_WORKERS=0`` runs
audits in the request thread (a single-user set-up, or a debugger).
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context

from referee import audit as auditmod
from referee import standalone
from referee.games.base import RefereeError


class AuditsBusy(RefereeError):
    code, status = "audits-busy", 503


def _lower_priority() -> None:
    """A pool worker's start: a lower priority, and the referee's bot players handed
    to the table (a spawned process starts with nothing wired)."""
    standalone.wire()  # the rules and the bots only: no web framework, store or queue to load
    try:
        os.nice(10)
    except OSError:  # not allowed here: run at the same priority
        pass


class AuditPool:
    def __init__(self, workers: int | None = None, waiting: int | None = None):
        self.workers = int(os.environ.get("REFEREE_AUDIT_WORKERS", "1")) if workers is None else workers
        waiting = int(os.environ.get("REFEREE_AUDIT_QUEUE", "2")) if waiting is None else waiting
        self._slots = threading.BoundedSemaphore(max(1, self.workers) + max(0, waiting))
        self._lock = threading.Lock()
        self._executor: ProcessPoolExecutor | None = None
        self._pid = os.getpid()

    def _pool(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._executor is None or self._pid != os.getpid():
                self._executor = ProcessPoolExecutor(self.workers, mp_context=get_context("spawn"),
                                                     initializer=_lower_priority)
                self._pid = os.getpid()
            return self._executor

    def audit(self, text: str | bytes, audit=None) -> dict:
        """The audit's report, computed in the pool; AuditsBusy when it is full.
        ``audit``: another audit of the same shape (a league's bundle's)."""
        audit = audit or auditmod.audit
        if not self._slots.acquire(blocking=False):
            raise AuditsBusy("every audit slot is taken; try again in a few seconds", retry_after=5)
        try:
            if self.workers <= 0:
                return audit(text)
            try:
                return self._pool().submit(audit, text).result()
            except BrokenProcessPool:  # a worker died (killed, out of memory): a fresh pool next time
                with self._lock:
                    self._executor = None
                raise AuditsBusy("the audit worker stopped; try again", retry_after=1) from None
        finally:
            self._slots.release()

    def close(self) -> None:
        with self._lock:
            if self._executor is not None and self._pid == os.getpid():
                self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None


_shared: AuditPool | None = None
_shared_lock = threading.Lock()


def shared() -> AuditPool:
    """This process's pool (made on first use, so a forked worker makes its own)."""
    global _shared
    with _shared_lock:
        if _shared is None or _shared._pid != os.getpid():
            _shared = AuditPool()
        return _shared
