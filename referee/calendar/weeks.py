"""A player's weekends into their games' logs: the ``seat-calendar`` event
(referee/weekends.py), so that every deadline stays a function of the log.

It is written when a game of the player's starts (if their weekends are off) and
when the player changes their zone or their weekends (into each game they hold a
seat in, where it differs from what the log says). It is the referee's event,
appended compare-and-set like an admin's change; a race with a move is tried again.
"""

from __future__ import annotations

import logging

from referee.appended import Appended
from referee.caller import Caller
from referee.errors import RefereeError, VersionConflict
from referee.games.base import ADMIN
from referee.players.store import players_of
from referee.weekends import SEAT_CALENDAR

log = logging.getLogger("referee.calendar")
TRIES = 5


def zone_of(settings: dict) -> str | None:
    """The zone whose weekends a player's clock leaves out (None: it runs every day)."""
    return settings["timezone"] if settings.get("weekends_off") else None


def write(service, game_id: str, seat: int, settings: dict) -> bool:
    """Record the seat's calendar in the game's log, unless the log says so already
    (or the game is over). True when an event was appended."""
    zone = zone_of(settings)
    payload = {"seat": seat, "timezone": settings["timezone"], "weekends_off": bool(settings.get("weekends_off"))}
    for _ in range(TRIES):
        rec = service.record(game_id)
        table = service.load(game_id, rec)
        if table.over or table.calendars.get(seat) == zone:
            return False
        try:
            service.admin_event(game_id, Caller(ADMIN, record=rec), "set a seat's calendar",
                                lambda table, at, key: table.propose_calendar(payload, at, salt_key=key))
            return True
        except VersionConflict:
            continue  # a move came first: read again
    log.warning("could not record seat %s's calendar in game %s", seat, game_id)
    return False


def follow(service, calendar_store):
    """The reaction to a game's start: each player seat whose weekends are off gets
    its calendar in the log."""

    def started(appended: Appended) -> None:
        first = appended.events[0]
        if first.type != "game-created":
            return
        for entry in first.payload.get("seats") or []:
            pid = entry.get("player") if isinstance(entry, dict) else None
            if not pid:
                continue
            settings = calendar_store.settings(pid)
            if settings.get("weekends_off"):
                try:
                    write(service, appended.game_id, entry["seat"], {"timezone": "UTC", **settings})
                except RefereeError:
                    log.warning("seat calendar of game %s not written", appended.game_id, exc_info=True)

    return started


def spread(service, player_id: str, settings: dict) -> int:
    """After a change of the player's zone or weekends: into each of their games.
    Returns how many games' logs were written."""
    written = 0
    for game_id, seat in players_of(service).seats(player_id).items():
        try:
            written += write(service, game_id, seat, settings)
        except RefereeError:  # a game gone or over: nothing to keep there
            continue
    return written


__all__ = ["SEAT_CALENDAR", "follow", "spread", "write", "zone_of"]
