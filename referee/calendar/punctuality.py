"""How punctual a player is, over every game they finished: ``moves`` (their own,
not the ones the referee made for them after a timeout), ``timeouts``, and
``on_time``, the moves made in time over moves and timeouts (a move made after the
seat's deadline had passed, under ``on_timeout: remind``, is not in time).

Counted from each game's log when it ends (its seed revealed, or aborted), by
replaying it with the referee's own table, so the counts follow from the logs;
each game is counted once per player (referee/calendar/keeping.py).
"""

from __future__ import annotations

import logging

from referee import clock as clockmod
from referee.appended import Appended
from referee.table import SEAT_TIMED_OUT, Table

log = logging.getLogger("referee.calendar")
ENDS = ("seed-revealed", "game-aborted")


def counts(events) -> dict[int, dict]:
    """{seat: {moves, late, timeouts}} over a whole log."""
    table = Table.from_created(events[0])
    out = {seat: {"moves": 0, "late": 0, "timeouts": 0} for seat in range(table.state.players)}
    for ev in events[1:]:
        seat = ev.actor
        if ev.type == SEAT_TIMED_OUT and ev.actor == "referee":
            out[ev.payload["seat"]]["timeouts"] += 1
        elif isinstance(seat, int) and not isinstance(seat, bool) and isinstance(ev.payload, dict) \
                and ev.payload.get("move") is not None and seat not in table.owed and seat not in table.bots:
            out[seat]["moves"] += 1
            if clockmod.timed_out(table, seat):
                out[seat]["late"] += 1
        table.apply(ev)
    return out


def players_of(first) -> dict[int, str]:
    return {s["seat"]: s["player"] for s in first.payload.get("seats") or []
            if isinstance(s, dict) and s.get("player")}


def follow(service, calendar_store):
    """The reaction to a game's end: each player seat's counts, once."""

    def ended(appended: Appended) -> None:
        if not set(appended.types) & set(ENDS):
            return
        events = service.store.events(appended.game_id)
        seated = players_of(events[0])
        for ev in events:  # a seat handed on is counted for its last holder
            if ev.type == "seat-replaced" and ev.actor == "referee":
                seated.pop(ev.payload.get("seat"), None)
                if ev.payload.get("player"):
                    seated[ev.payload["seat"]] = ev.payload["player"]
        if not seated:
            return
        try:
            made = counts(events)
        except Exception:  # a count is a courtesy: never in the way of the game's end
            log.warning("could not count game %s's timekeeping", appended.game_id, exc_info=True)
            return
        for seat, pid in seated.items():
            c = made.get(seat)
            if c:
                calendar_store.count_game(pid, appended.game_id, c["moves"], c["late"], c["timeouts"])

    return ended


def shown(calendar_store, player_id: str) -> dict:
    """What a profile shows: ``{moves, timeouts, on_time}`` (``on_time`` null before
    any move or timeout)."""
    kept = calendar_store.timekeeping(player_id)
    total = kept["moves"] + kept["timeouts"]
    return {"moves": kept["moves"], "timeouts": kept["timeouts"],
            "on_time": round((kept["moves"] - kept["late"]) / total, 4) if total else None}
