"""What `referee worker` does when the queue's Redis goes away and comes back.

RQ's own worker waits out a lost Redis inside its dequeue loop, sleeping 1, 2,
4... up to 60 seconds between tries, and when it reaches Redis again it only
takes the next job. Neither suits the referee: the API processes could not queue
the steps of the moves and games they accepted meanwhile (referee/queue.py), so
those steps are found again only by a sweep of the store's settling games, and a
Redis back for ten seconds should not wait for a worker asleep for sixty.

So the worker here leaves RQ's loop at the first lost connection, and
`referee worker` (referee/cli.py) tries the queue again every RETRY_PAUSE
seconds at most, sweeping the settling games each time it is back."""

from __future__ import annotations

import redis
from rq import Queue, SimpleWorker

# The longest wait between two tries to reach the queue's Redis again: a worker
# is back at work within about this long of Redis' return.
RETRY_PAUSE = 0.5
FIRST_PAUSE = 0.1

LOST = (redis.ConnectionError, redis.TimeoutError)


class QueueLost(Exception):
    """The queue's Redis went away under the worker."""


class _WatchedQueue(Queue):
    """A queue whose blocking wait for a job ends the worker's loop when the
    connection is lost, instead of sleeping in RQ's backoff."""

    @classmethod
    def dequeue_any(cls, *args, **kw):
        try:
            return super().dequeue_any(*args, **kw)
        except LOST as err:
            raise QueueLost(str(err)) from err


class RefereeWorker(SimpleWorker):
    """RQ's in-process worker, leaving its loop when the queue's Redis is lost
    (``queue_lost`` then says so). Jobs run in this process, no fork per job."""

    queue_class = _WatchedQueue
    queue_lost = False

    def _watched(self, call, *args, **kw):
        try:
            return call(*args, **kw)
        except (QueueLost, *LOST) as err:
            self.queue_lost = True
            raise QueueLost(str(err)) from err

    # What RQ's loops call on Redis between jobs: a lost connection there ends
    # the loop (RQ's work() quits on an exception it does not know).
    def heartbeat(self, *args, **kw):
        return self._watched(super().heartbeat, *args, **kw)

    def check_for_suspension(self, *args, **kw):
        return self._watched(super().check_for_suspension, *args, **kw)

    def run_maintenance_tasks(self, *args, **kw):
        return self._watched(super().run_maintenance_tasks, *args, **kw)

    def execute_job(self, *args, **kw):
        # a job whose end (its result, its registries) cannot be written: its step
        # is written or not, and the sweep at the return re-derives whatever is owed
        return self._watched(super().execute_job, *args, **kw)

    def dequeue_job_and_maintain_ttl(self, *args, **kw):
        try:
            return self._watched(super().dequeue_job_and_maintain_ttl, *args, **kw)
        except QueueLost:
            return None  # work() ends its loop on it, quietly

    def teardown(self) -> None:
        """RQ's teardown, whose last words to a Redis that is gone are let go."""
        try:
            super().teardown()
        except LOST:
            try:
                self.unsubscribe()
            except LOST:
                pass


def queues(names, connection) -> list[Queue]:
    """The worker's queues, in the order it takes them."""
    return [_WatchedQueue(name, connection=connection) for name in names]
