"""Where referee jobs go: run in-process (embedded mode) or onto RQ.

A job only names the game; it re-reads the log and does whatever step is due,
appending compare-and-set. So a job enqueued twice, retried after a crash, or
run by two workers at once appends each step exactly once.

The service's own job is ``settle`` (the referee's steps). Every other kind of
job belongs to a reaction and is registered, with what it runs, where the
referee is put together (referee/system.py: ``queue.register(JobKind(...))``);
this module names none of them. On RQ a job of kind K runs
``workers.jobs.run(K, game_id)`` in a worker, which puts the referee together
the same way and runs K's function there.

Two RQ queues, taken in that order: ``referee`` for live play (a move's step, a
deal, a bot's move, a clock's tick, the reactions' jobs) and ``referee-sweep``
for what a worker's start-up sweep queues again. A worker takes the next job of
the first queue that has one, so thousands of games left settling by a crash
wait behind the games being played instead of in front of them.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from referee import logs

log = logging.getLogger("referee.queue")

QUEUE_NAME = "referee"  # live play
SWEEP_QUEUE_NAME = "referee-sweep"  # start-up sweeps: after live play
QUEUE_NAMES = (QUEUE_NAME, SWEEP_QUEUE_NAME)  # the order `referee worker` takes them in

# The queue's Redis may be down or silent while the store is fine: play goes on.
# A job is queued after its step is written and only names its game, so a job
# that could not be queued is re-derived from the store (a worker's sweep of the
# settling games when it reaches the queue again, a reader's kick): an enqueue
# waits at most DOWN_TIMEOUT seconds, and after a failure none is tried for
# DOWN_PAUSE seconds, so that no request waits on a Redis known to be down.
# The process also keeps the jobs it could not queue (at most LEFT_MAX; the
# sweep finds the others) and queues them again, LEFT_AT_ONCE at a time, after
# its next enqueue that succeeds: a worker that never lost its connection (the
# queue's Redis silent for a moment, or out of this process's reach alone)
# sweeps nothing.
DOWN_TIMEOUT = 0.5
DOWN_PAUSE = 1.0
LEFT_MAX = 10000
LEFT_AT_ONCE = 100


@dataclass(frozen=True)
class JobKind:
    """A reaction's kind of job. ``run(service, game_id)`` does it and returns what
    its log line says (a dict is merged into the line, anything else is its
    ``done``). ``once_within``: at most one job of this kind per game waits on RQ
    for that many seconds (a marker that expires, so a job lost with a killed
    worker is queued again after it)."""

    name: str
    run: Callable
    timeout: int = 120
    retry: tuple[int, ...] = (1, 2, 5, 10, 30)
    once_within: int | None = None


class _Kinds:
    """What both queues share: the registered kinds of job."""

    def register(self, kind: JobKind) -> None:
        self.kinds = {**getattr(self, "kinds", {}), kind.name: kind}

    def kind(self, name: str) -> JobKind:
        kind = getattr(self, "kinds", {}).get(name)
        if kind is None:
            raise LookupError(f"no job kind {name!r}: referee.system.assemble registers them")
        return kind


def run_job(kind: JobKind, service, game_id: str, mode: str) -> dict:
    """Run one job of ``kind`` with its log line."""
    with logs.job(kind.name, game_id, mode=mode) as line:
        done = kind.run(service, game_id)
        if isinstance(done, dict):
            line.update(done)
        else:
            line["done"] = done
    return line


class InlineQueue(_Kinds):
    """Embedded mode: the step runs at once, in the caller's process."""

    def bind(self, service) -> None:
        self.service = service

    def enqueue_settle(self, game_id: str, seq: int, kick: bool = False, force: bool = False,
                       sweep: bool = False) -> None:
        try:
            with logs.job("settle", game_id, mode="inline") as line:
                line["appended"] = self.service.settle(game_id)
        except Exception:  # logged; the game stays "settling" and the next read retries it
            pass

    def enqueue(self, kind: str, game_id: str) -> None:
        """Run a reaction's job of ``kind`` now, here."""
        run_job(self.kind(kind), self.service, game_id, "inline")


class RQQueue(_Kinds):
    """Jobs for `referee worker`, through RQ on Redis."""

    def __init__(self, url: str):
        import redis
        from rq import Queue

        self.url = url  # the rate limits count here when the store is no plain Redis
        self.redis = redis.Redis.from_url(url, socket_connect_timeout=DOWN_TIMEOUT,
                                          socket_timeout=DOWN_TIMEOUT)
        self.rq = Queue(QUEUE_NAME, connection=self.redis)
        self.sweep_rq = Queue(SWEEP_QUEUE_NAME, connection=self.redis)
        self._down = (redis.ConnectionError, redis.TimeoutError)
        self._paused_until = 0.0
        self._left: dict[tuple, tuple] = {}  # (what, game) -> the call that failed and its arguments
        self._left_lock = threading.Lock()

    def bind(self, service) -> None:
        self.service = service

    def _reach(self, what: str, game_id: str, call, *args) -> None:
        """``call(*args)`` unless the queue's Redis failed in the last DOWN_PAUSE
        seconds; a job not queued is kept to be queued again, and left to the
        sweep (the module's note)."""
        if time.monotonic() < self._paused_until or not self._try(what, game_id, call, args):
            with self._left_lock:
                if len(self._left) < LEFT_MAX:
                    self._left[(what, game_id)] = (call, args)
            return
        if self._left:
            self._again()

    def _try(self, what: str, game_id: str, call, args: tuple) -> bool:
        try:
            call(*args)
            return True
        except self._down as err:
            self._paused_until = time.monotonic() + DOWN_PAUSE
            log.warning("queue unreachable, %s of game %s left to the sweep: %s", what, game_id, err)
            return False

    def _again(self) -> None:
        """Queue again some of the jobs that could not be queued (the module's note)."""
        with self._left_lock:
            some = [(key, self._left.pop(key)) for key in list(self._left)[:LEFT_AT_ONCE]]
        for n, ((what, game_id), (call, args)) in enumerate(some):
            if not self._try(what, game_id, call, args):
                with self._left_lock:  # down again: kept for the next time
                    for key, value in some[n:]:
                        self._left.setdefault(key, value)
                return

    def enqueue_settle(self, game_id: str, seq: int, kick: bool = False, force: bool = False,
                       sweep: bool = False) -> None:
        if force:  # a worker's sweep: a queue still down fails it, and the worker tries again
            self._enqueue_settle(game_id, seq, kick, force, sweep)
        else:
            self._reach("settle", game_id, self._enqueue_settle, game_id, seq, kick, force, sweep)

    def _enqueue_settle(self, game_id: str, seq: int, kick: bool, force: bool, sweep: bool) -> None:
        """Queue the game's referee step. ``kick``: a reader found the game settling;
        queue a fresh job unless one is still waiting (a "started" one may belong to
        a worker that was killed: a duplicate is harmless, a lost step is not).
        ``force``: queue a fresh job whatever (the sweep when a worker starts).
        ``sweep``: onto the low queue, behind live play. A reader's kick of a game
        whose sweep job still waits there queues a live job of its own (the sweep's
        has another id), so a game someone is looking at does not wait its turn."""
        from rq import Retry
        from rq.exceptions import NoSuchJobError
        from rq.job import Job, JobStatus

        job_id = f"settle-{game_id}-{seq}"
        if kick or force:
            if kick and not force:
                # Readers of a settling game call this often: look every few seconds.
                if not self.redis.set(f"{{g:{game_id}}}:kick", 1, nx=True, ex=3):
                    return
                try:
                    if Job.fetch(job_id, connection=self.redis).get_status() == JobStatus.QUEUED:
                        return
                except NoSuchJobError:
                    pass
            # a fresh id of its own (RQ keeps a finished job's id a while); random,
            # so that no counter key grows for every game ever kicked
            job_id = f"{job_id}-k{secrets.token_hex(6)}"
        (self.sweep_rq if sweep else self.rq).enqueue(
            "workers.jobs.settle", game_id, job_id=job_id, job_timeout=120,
                        retry=Retry(max=5, interval=[1, 2, 5, 10, 30]),
                        description=f"settle game {game_id}", result_ttl=600, failure_ttl=86400)

    def enqueue(self, kind: str, game_id: str) -> None:
        """Queue a reaction's job of ``kind`` for ``referee worker``."""
        self._reach(kind, game_id, self._enqueue, kind, game_id)

    def _enqueue(self, kind: str, game_id: str) -> None:
        from rq import Retry

        k = self.kind(kind)
        if k.once_within is not None and not self.redis.set(once_key(kind, game_id), 1, nx=True,
                                                            ex=k.once_within):
            return
        self.rq.enqueue("workers.jobs.run", kind, game_id, job_timeout=k.timeout,
                        retry=Retry(max=len(k.retry), interval=list(k.retry)),
                        description=f"{kind} of game {game_id}", result_ttl=600, failure_ttl=86400)


def once_key(kind: str, game_id: str) -> str:
    """The marker of a kind's one waiting job per game (its game's hash tag)."""
    return f"{{g:{game_id}}}:{kind}"


def make_queue(url: str):
    if url == "inline":
        return InlineQueue()
    return RQQueue(url)
