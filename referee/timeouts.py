"""What happens at a seat's reminder and deadline, and the keeper that fires them.

Deadlines are a pure function of the log (referee/clock.py). Each append writes
the game's next timer (its earliest reminder or deadline) into its record, in the
same atomic write as the events, and the store's deadline index holds it (Redis'
may hold it early, never late: referee/store/redis_timers.py); the keeper asks the
index for the timers that are due (an index lookup, never a scan of the games)
and has each game ``tick`` (a tick that finds nothing due moves the timer on):

* a reminder due: a ``reminder`` notice to the seat (named by the version its
  time started at, so it is queued once however often the tick runs);
* a deadline passed: a ``seat-timed-out`` referee event, appended
  compare-and-set on the version the tick read. A move that lands first wins
  (the seat is no longer to act, nothing is appended); two keepers ticking at
  once append it once. What follows is the clock's ``on_timeout``: ``remind``
  nothing more (the seat stays to act, marked overdue), ``autoplay`` the basic
  bot's move for the seat and ``forfeit`` the seat's loss, both referee steps
  the settle job takes like a deal (referee/table.py);
* a vacation's end due (a seat's clock paused, referee/vacations.py): its
  ``clock-resumed``; a deadline passing for a seat whose player is away or has
  auto vacation: the calendar's ``before_timeout`` pauses the seat instead
  (referee/calendar/pausing.py), and the deadline is read again;
* then the timer moves on to the next moment, unless the log moved meanwhile
  (the append that moved it wrote a fresher one).

Everything the tick does is idempotent, so the keeper may run in several
processes, and a process killed at any point leaves a timer that is still due:
the next keeper fires it, once.

The keeper runs as a thread of ``referee serve`` in embedded mode (ticks run in
that process) and of ``referee worker`` with Redis (ticks go to RQ as jobs, like
every other referee job). RQ's own scheduler is not where deadlines live: its
scheduled jobs are a second copy in the queue's Redis, which may keep nothing
across a restart; the store's index is the one source of truth, and the keeper
reads it every second.
"""

from __future__ import annotations

import logging
import threading

from referee import clock, vacations
from referee.caller import Caller
from referee.errors import RefereeError
from referee.events import utcnow
from referee.games.base import ADMIN
from referee.mail import outbox
from referee.narration import duration
from referee.queue import JobKind

log = logging.getLogger("referee.timeouts")


def tick(service, game_id: str, now: str | None = None) -> dict:
    """Fire what is due in ``game_id`` at ``now`` (UTC, as events write it; the
    wall clock when None). Returns ``{"reminders": [notice ids], "timeout": seat
    or None}``, and ``"resumed": [seats]`` when vacations ended."""
    now = now or utcnow()
    fired: dict = {"reminders": [], "timeout": None}
    # each pass writes at most one event (a seat's clock resumed or paused, which
    # moves its deadline), then reads the game again; a timeout ends the tick
    for _ in range(MOST_PASSES):
        rec = service.record(game_id)
        with service._lock(game_id):
            table = service.load(game_id, rec)
            timers = clock.timers(table)
            version = table.seq
        back = next((t for t in timers if t["kind"] == clock.RESUME and t["at"] <= now), None)
        if back is not None:  # a vacation over: the seat's clock runs again (referee/vacations.py)
            payload = {"seat": back["seat"], "reason": back["reason"]}
            if not _write(service, game_id, rec, "resume a seat's clock", lambda table, at, key, payload=payload: (
                    vacations.propose_resume(table, payload, max(at, now), key))):
                return fired
            fired.setdefault("resumed", []).append(back["seat"])
            continue
        late = [t for t in timers if t["kind"] == clock.DEADLINE and t["at"] <= now]
        if late and any(ask(game_id, table, late[0]["seat"], late[0]["at"], now)
                        for ask in getattr(service, "before_timeout", ())):
            continue  # the seat's player is away, or drew a day of auto vacation: read it again
        if late:
            seat = late[0]["seat"]
            if not _write(service, game_id, rec, "time out a seat", lambda table, at, key, seat=seat: (
                    table.propose_timeout(seat, max(at, now), salt_key=key))):
                return fired
            fired["timeout"] = seat
            service.queue.enqueue_settle(game_id, version + 1)  # autoplay's move or the forfeit
            # the seat's (and the organiser's) timeout notice, or the game-over that tells of
            # it, is the sweep's: written once, after what the timeout led to (outbox.sweep),
            # which the notices' reaction queues once the game is at rest
            return fired
        break
    for t in timers:
        if t["kind"] == clock.REMINDER and t["at"] <= now:
            left = clock.parse_at(clock.seat_deadline(table, t["seat"])) - clock.parse_at(now)
            nid = _tell(service, game_id, rec, t["seat"], "reminder",
                        f"{duration(left.total_seconds())} left to move.", t["started"])
            if nid:
                fired["reminders"].append(nid)
    service.store.set_timer(game_id, version, clock.next_timer(table, after=now))
    return fired


# A tick's passes: a keeper days late catches up a day of auto vacation and its end
# a pass each, up to a year's allowance and more.
MOST_PASSES = 1000


def _write(service, game_id: str, rec, what: str, propose) -> bool:
    """Append the referee's event; False when a move, another keeper or the admin
    came first (nothing is owed now, and the append that won wrote the next timer)."""
    try:
        service.admin_event(game_id, Caller(ADMIN, record=rec), what, propose)
        return True
    except RefereeError:
        return False


def _tell(service, game_id: str, rec, seat: int, reason: str, note: str, version: int | None) -> str | None:
    """Queue a notice for ``seat`` if it has a channel to hear it on."""
    if str(seat) not in rec.extra.get("contacts", {}):
        return None
    return outbox.queue_notice(service, game_id, seat, reason, note, version=version)


# The clock's job: one waiting per game at a time on RQ (the keeper asks every
# second while a timer is due); a marker that expires, so a job lost with a killed
# worker is queued again ten seconds on.
TICK = JobKind("tick", tick, timeout=60, retry=(1, 2, 5), once_within=10)


class Keeper(threading.Thread):
    """Every ``interval`` seconds, hand each game whose timer is due to the queue
    (the ``tick`` job). A daemon thread: it dies with its process, and the next
    keeper finds the same timers still due in the store."""

    def __init__(self, service, interval: float = 1.0):
        super().__init__(name="clock-keeper", daemon=True)
        self.service, self.interval = service, interval
        self.stopping = threading.Event()

    def run(self) -> None:
        try:  # timers a crash left out of a second-write index
            self.service.store.repair_timers()
        except Exception:
            log.warning("could not repair the deadline index", exc_info=True)
        while not self.stopping.is_set():
            try:
                self.round()
            except Exception:  # the store away for a moment: the timers wait for us
                log.warning("clock keeper round failed", exc_info=True)
            self.stopping.wait(self.interval)

    def round(self) -> int:
        for look in getattr(self.service, "keeper_rounds", ()):  # (the vacations' starts)
            try:
                look(utcnow())
            except Exception:
                log.warning("keeper look %s failed", look, exc_info=True)
        due = self.service.store.due_timers(utcnow())
        for game_id in due:
            try:
                self.service.queue.enqueue(TICK.name, game_id)
            except Exception:  # one game's trouble never holds up the others' clocks
                log.warning("tick of game %s failed", game_id, exc_info=True)
        return len(due)

    def stop(self) -> None:
        self.stopping.set()


def start_keeper(service, interval: float = 1.0) -> Keeper:
    keeper = Keeper(service, interval)
    keeper.start()
    return keeper
