"""Healing leagues: every league whose log owes a step gets it, once, after a process
was killed in the middle of advancing it or a job of it was lost.

A league owes a step while it has a game ended and not recorded, a round complete
and not closed, a pairing due (and the games it names), a finish or its seed's
reveal, or the notices of a close. Whoever is about to make such a debt marks the
league first, in the league store beside its log (``LeagueStore.owe``): the job
before an append that closes a round or pairs one (and before creating the
pairing's games), a league's creation and a withdrawal before theirs, and the
reaction to a league game's end (its last move's append and its seed's reveal)
before it queues the job. A mark is written before, never after, the write it
covers, so a process killed anywhere between leaves the league marked; a mark
whose debt was paid costs one look.

A mark is a number that only rises: ``2 at + 2`` for a debt a write about to be
made at the log's length ``at`` makes (``mark_before``), ``2 v + 1`` for a debt
found in a game while the log has ``v`` events (``mark_at``). A call of the job
that has looked at every game of the open round and found the league owing
nothing at version ``v`` unmarks it (``paid``) only if its mark is at most
``2 v + 1``, then looks at the games once more. A write about to be made at ``v``
or later marks at least ``2 v + 2`` and stays marked; a game that ended while the
call looked was marked higher (the log had moved on) or is seen by the second
look, which marks the league again and records it. So the marks are the leagues
being advanced, never every league; the heal reads them alone.

``heal(service)`` advances every marked league as the job does, looking at every
game of its open round (``advance(..., heal=True)``: it also does the steps a game
left settling owes, creates games a round was paired without, ends games made for
a pairing that never became the league's, and tells a close's standings again).
``referee serve`` (embedded) and ``referee worker`` run it when they start, then
every ``REFEREE_LEAGUE_HEAL_INTERVAL`` seconds for the leagues whose mark has not
moved since the last look (a job lost: nothing is advancing them).
"""

from __future__ import annotations

import logging
import threading

from referee.leagues.advancing import advance
from referee.leagues.keeping import leagues_of

log = logging.getLogger("referee.leagues")


def heal(service, marks: dict[str, int] | None = None) -> int:
    """Advance every marked league (or those of ``marks``, ``{league: mark}``), each
    step once; returns how many were looked at. Harmless at any time, in any
    number of processes: every step is appended compare-and-set."""
    store = leagues_of(service)
    marks = store.owing() if marks is None else marks
    for league_id, mark in marks.items():
        try:
            if store.meta(league_id) is None:  # marked by a creation that never finished
                store.paid(league_id, mark)
            else:
                advance(service, league_id, heal=True)
        except Exception:  # logged; the mark stays and the next look tries again
            log.exception("league %s: healing failed", league_id)
    return len(marks)


class Healer(threading.Thread):
    """``heal`` at start, then every ``interval`` seconds for the leagues whose mark
    has not moved since the last look. A daemon thread: it dies with its process,
    and the marks wait in the store for the next one."""

    def __init__(self, service, interval: float = 30.0):
        super().__init__(name="league-healer", daemon=True)
        self.service, self.interval = service, interval
        self.stopping = threading.Event()

    def run(self) -> None:
        seen = None
        while not self.stopping.is_set():
            try:
                marks = leagues_of(self.service).owing()
                due = marks if seen is None else {k: v for k, v in marks.items() if seen.get(k) == v}
                if due:
                    heal(self.service, due)
                seen = marks
            except Exception:  # the store away for a moment: the marks wait for us
                log.warning("league healer round failed", exc_info=True)
            self.stopping.wait(self.interval)

    def stop(self) -> None:
        self.stopping.set()


def start_healer(service, interval: float = 30.0) -> Healer:
    healer = Healer(service, interval)
    healer.start()
    return healer
