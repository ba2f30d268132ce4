"""The referee's own events a table takes on itself, no engine's business: a clock's
change, a seat's calendar, a seat's pause and resume, a timeout, a seat's
replacement (referee/table.py)."""

from __future__ import annotations

from referee import clock as clockmod
from referee import vacations
from referee.weekends import SEAT_CALENDAR


def take_on(table, ev) -> None:
    """What ``ev`` (one of ``TABLE_EVENTS``, by the referee) changes of ``table``."""
    seat = ev.payload.get("seat")
    if ev.type == clockmod.CLOCK_CHANGED:
        clockmod.apply_change(table, ev)
    elif ev.type == SEAT_CALENDAR:
        clockmod.apply_calendar(table, ev)
    elif ev.type == vacations.CLOCK_PAUSED:
        vacations.apply_pause(table, ev)
    elif ev.type == vacations.CLOCK_RESUMED:
        vacations.apply_resume(table, ev)
    elif ev.type == "seat-timed-out":  # (SEAT_TIMED_OUT)
        table.timed_out = {**table.timed_out, seat: table.since.get(seat)}
        table.missed = {**table.missed, seat: table.missed.get(seat, 0) + 1}
        if ev.payload["on_timeout"] in ("autoplay", "forfeit", clockmod.TURN):
            table.owed = {**table.owed, seat: ev.payload["on_timeout"]}
    else:  # seat-replaced: a person (or a bot) takes the seat ...
        table.replaced = (*table.replaced, (ev.seq, seat, ev.payload.get("name")))
        table.bots = {k: v for k, v in table.bots.items() if k != seat}
        if ev.payload.get("bot"):
            table.bots = {**table.bots, seat: ev.payload["bot"]}
        # ... whose calendar is not the last holder's (a player's own comes in the log)
        table.calendars = {k: v for k, v in table.calendars.items() if k != seat}
        table.marks = {k: v for k, v in table.marks.items() if k != seat}
        table.away = {k: v for k, v in table.away.items() if k != seat}  # nor their vacation
        if seat in table.since:  # ... and gets a full move_seconds
            table.since = {**table.since, seat: ev.at}
            table.since_seq = {**table.since_seq, seat: ev.seq}
