"""The one hook between the service and what follows it: what an append wrote.

The service leads: it loads a game, decides, appends. Whatever reacts to a game's
log (notices, clocks' reminders, bots through the referee's steps, ratings,
leagues, live pages) follows: it subscribes to ``Appended`` where the referee is
put together (referee/system.py) and the service never names it. This is the
shape of the eventsourcing library's process applications, with ``System`` as
the one place that says who follows whom.

A reaction runs in the appending thread, after the events are safely in the log
and the game's lock is released. It must be quick (queue a job, not do the work:
``service.queue.enqueue(kind, game_id)``) and idempotent, because a job may run
twice and because the same events may be published again after a crash (a
reaction keyed by the events it saw does nothing twice). A reaction that raises
is logged and never fails the request whose events it followed: those events
are already the game's.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from referee.events import Event
from referee.store.base import GameRecord

if TYPE_CHECKING:  # types only: the table is the service's, read here, never changed
    from referee.table import Table

log = logging.getLogger("referee.appended")

# What made the append: a seat's move, a referee step (deal, scoring, a bot's move,
# the seed's reveal), an admin's tool (abort, clock, timeout, seat replaced), or
# the game's creation.
CAUSES = ("created", "move", "step", "admin")


@dataclass(frozen=True)
class Appended:
    """One append, published once its events are in the log."""

    game_id: str
    events: tuple[Event, ...]  # what was appended, in order (never empty)
    table: Table  # the game after them: read it, never change it
    record: GameRecord  # the game's record as the append found it (players, contacts)
    cause: str  # one of CAUSES

    @property
    def version(self) -> int:
        return self.events[-1].seq

    @property
    def at_rest(self) -> bool:
        """No referee step is owed: what players see now stays until someone moves."""
        return self.table.due() is None

    @property
    def types(self) -> tuple[str, ...]:
        return tuple(ev.type for ev in self.events)


Reaction = Callable[[Appended], None]


class Followers:
    """The reactions that follow a service's appends, in the order they subscribed."""

    def __init__(self) -> None:
        self._reactions: list[tuple[str, Reaction]] = []

    def subscribe(self, name: str, reaction: Reaction) -> None:
        """Follow every append from now on; ``name`` says who in logs (and once only)."""
        if any(n == name for n, _ in self._reactions):
            raise ValueError(f"a reaction named {name!r} already follows")
        self._reactions.append((name, reaction))

    @property
    def names(self) -> list[str]:
        return [n for n, _ in self._reactions]

    def publish(self, appended: Appended) -> None:
        for name, reaction in self._reactions:
            try:
                reaction(appended)
            except Exception:  # the events stand; the reaction's own sweep catches up
                log.exception("reaction %s failed after game %s's version %d",
                              name, appended.game_id, appended.version)
