"""Where referee jobs go: run in-process (embedded mode) or onto RQ.

A job only names the game; it re-reads the log and does whatever step is due,
appending compare-and-set. So a job enqueued twice, retried after a crash, or
run by two workers at once appends each step exactly once.
"""

from __future__ import annotations

from referee import logs

QUEUE_NAME = "referee"


class InlineQueue:
    """Embedded mode: the step runs at once, in the caller's process."""

    def bind(self, service) -> None:
        self.service = service

    def enqueue_settle(self, game_id: str, seq: int, kick: bool = False, force: bool = False) -> None:
        try:
            with logs.job("settle", game_id, mode="inline") as line:
                line["appended"] = self.service.settle(game_id)
        except Exception:  # logged; the game stays "settling" and the next read retries it
            pass

    def enqueue_notices(self, game_id: str) -> None:
        from referee.mail import outbox

        with logs.job("notices", game_id, mode="inline") as line:
            line["queued"] = len(outbox.sweep(self.service, game_id))


    def enqueue_tick(self, game_id: str) -> None:
        """A game's timer is due (referee/timeouts.py): fire it now, here."""
        from referee import timeouts

        with logs.job("tick", game_id, mode="inline") as line:
            line.update(timeouts.tick(self.service, game_id))


class RQQueue:
    """Jobs for `referee worker`, through RQ on Redis."""

    def __init__(self, url: str):
        import redis
        from rq import Queue

        self.url = url  # the rate limits count here when the store is no plain Redis
        self.redis = redis.Redis.from_url(url)
        self.rq = Queue(QUEUE_NAME, connection=self.redis)

    def bind(self, service) -> None:
        self.service = service

    def enqueue_settle(self, game_id: str, seq: int, kick: bool = False, force: bool = False) -> None:
        """Queue the game's referee step. ``kick``: a reader found the game settling;
        queue a fresh job unless one is still waiting (a "started" one may belong to
        a worker that was killed: a duplicate is harmless, a lost step is not).
        ``force``: queue a fresh job whatever (the sweep when a worker starts)."""
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
            job_id = f"{job_id}-k{self.redis.incr(f'{{g:{game_id}}}:kicks')}"
        self.rq.enqueue("workers.jobs.settle", game_id, job_id=job_id, job_timeout=120,
                        retry=Retry(max=5, interval=[1, 2, 5, 10, 30]),
                        description=f"settle game {game_id}", result_ttl=600, failure_ttl=86400)


    def enqueue_notices(self, game_id: str) -> None:
        """Queue the job that writes the game's due notices into the outbox (the
        outbox's ids make a job run twice harmless)."""
        from rq import Retry

        self.rq.enqueue("workers.jobs.notices", game_id, job_timeout=120,
                        retry=Retry(max=5, interval=[1, 2, 5, 10, 30]),
                        description=f"notices of game {game_id}", result_ttl=600, failure_ttl=86400)


    def enqueue_tick(self, game_id: str) -> None:
        """Queue the job that fires a game's due timer. The keeper asks every second
        while the timer is due: one job at a time per game (a marker that expires,
        so a job lost with a killed worker is queued again ten seconds on)."""
        from rq import Retry

        if not self.redis.set(f"{{g:{game_id}}}:tick", 1, nx=True, ex=10):
            return
        self.rq.enqueue("workers.jobs.tick", game_id, job_timeout=60,
                        retry=Retry(max=3, interval=[1, 2, 5]),
                        description=f"clock of game {game_id}", result_ttl=600, failure_ttl=86400)


def make_queue(url: str):
    if url == "inline":
        return InlineQueue()
    return RQQueue(url)
