"""A seat's clock stopped while its player is away: ``clock-paused`` and
``clock-resumed``, the referee's events (referee/calendar/pausing.py writes them
from the player's bookings and their auto vacation).

``clock-paused {seat, reason, from, until}``: the seat's own time does not run
from ``from`` until ``until`` (UTC instants), or until a ``clock-resumed {seat,
reason}`` that comes first (a vacation cancelled). ``reason`` is ``vacation`` (a
booking: ``until`` is 00:00 UTC the day after its last day) or ``auto-vacation``
(a deadline that would have passed: ``from`` is that deadline, ``until`` a day
later). ``from`` may be earlier than the event (the keeper came late), never
earlier than the seat's time this turn started: what the log shows happened
before the pause stays as it was counted.

Everything here is a function of the log, as every deadline is: the seat's time
used is kept in its mark (referee/clock.py), the pause only decides from when it
runs again (clock.running_from). The other seats' clocks run as ever. Under a bank
clock the bank is kept through the pause, since no time of it is used.
"""

from __future__ import annotations

from datetime import timedelta

from referee import clock as clockmod
from referee.events import REFEREE, Draft
from referee.games.base import MalformedMove, RefereeError

CLOCK_PAUSED, CLOCK_RESUMED = "clock-paused", "clock-resumed"
VACATION, AUTO = "vacation", "auto-vacation"
REASONS = (VACATION, AUTO)
AUTO_DAY = timedelta(days=1)
# The longest pause a log may hold: a vacation is booked at most a year ahead, one
# calendar year's days at most (referee/calendar/booking.py), so two years bound it.
LONGEST = timedelta(days=2 * 366)


class NotPausable(RefereeError):
    code, status = "no-pause-due", 409


def draws_days(clock: dict) -> bool:
    """Whether a clock's timeouts may draw days of auto vacation: one of play by post,
    whose time a move (or bank, at its fullest) is a day or more. A live game's
    minutes are no place for a day's pause."""
    most = clock["max_seconds"] if clock.get("kind") == clockmod.BANK else clock["move_seconds"]
    return most >= AUTO_DAY.total_seconds() and clock["on_timeout"] != "remind"


def _at(value, field: str):
    try:
        return clockmod.parse_at(value)
    except (TypeError, ValueError):
        raise MalformedMove(f"{field} must be a UTC instant as the log writes them", field=field) from None


def check_pause(table, payload, at: str) -> dict:
    """A ``clock-paused`` payload checked against the table it would go into at
    ``at`` (the audit asks the same of every logged pause)."""
    if not isinstance(payload, dict) or set(payload) != {"seat", "reason", "from", "until"}:
        raise MalformedMove("a pause is {seat, reason, from, until}", field="body")
    seat, reason = payload["seat"], payload["reason"]
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < table.state.players:
        raise MalformedMove("seat must be a seat of the game", field="seat")
    if reason not in REASONS:
        raise MalformedMove(f"reason must be one of {', '.join(REASONS)}", field="reason")
    start, end = _at(payload["from"], "from"), _at(payload["until"], "until")
    if table.over or table.clock is None:
        raise NotPausable("the game has no running clock to pause")
    if not start < end <= start + LONGEST or payload["from"] > at:
        raise NotPausable("a pause starts no later than it is written, and ends after it starts, "
                          "within two years")
    most = table.clock.get("vacation_days")
    if most == 0:
        raise NotPausable("this game's clock stops for no vacation (vacation_days: 0)")
    if reason == AUTO and most is not None and table.drawn.get(seat, 0) >= most:
        raise NotPausable(f"seat {seat} drew the {most} days of auto vacation this game allows")
    if reason == VACATION and (end.hour, end.minute, end.second, end.microsecond) != (0, 0, 0, 0):
        raise NotPausable("a vacation ends at 00:00 UTC")
    if reason == VACATION and deadline_first(table, seat, payload["from"]):
        raise NotPausable(f"seat {seat}'s deadline passed before its vacation began: its timeout comes first")
    if reason == AUTO:
        # a day drawn where a deadline passes: the seat is to act, its deadline is
        # ``from``, and it has passed by the time the pause is written
        deadline = clockmod.seat_deadline(table, seat) if seat in table.to_act() else None
        if (table.paused or clockmod.timed_out(table, seat) or deadline != payload["from"]
                or end - start != AUTO_DAY or not draws_days(table.clock)):
            raise NotPausable("an auto vacation starts at the seat's deadline and lasts a day, under a clock "
                              "of a day or more a move whose timeout costs the seat something")
    return {"seat": seat, "reason": reason, "from": payload["from"], "until": payload["until"]}


def deadline_first(table, seat: int, start: str) -> bool:
    """Whether the seat's deadline passed at or before ``start`` and its timeout has
    not yet come: a vacation beginning then (written late) cannot save it."""
    if table.paused or table.held or table.due() is not None or seat not in table.to_act():
        return False
    if seat not in table.since or clockmod.timed_out(table, seat) or seat in table.away:
        return False
    return clockmod.seat_deadline(table, seat) <= start


def check_resume(table, payload, at: str) -> dict:
    if not isinstance(payload, dict) or set(payload) != {"seat", "reason"}:
        raise MalformedMove("a resume is {seat, reason}", field="body")
    away = table.away.get(payload["seat"]) if isinstance(payload["seat"], int) else None
    if away is None or away["reason"] != payload["reason"]:
        raise NotPausable(f"seat {payload['seat']} is not paused for {payload['reason']}")
    if away["reason"] == AUTO and at < away["until"]:  # a day drawn is never handed back
        raise NotPausable("an auto vacation's day ends when its day is over")
    return {"seat": payload["seat"], "reason": payload["reason"]}


def propose_pause(table, payload, at: str, salt_key: str | None = None):
    return table._extend([Draft(CLOCK_PAUSED, check_pause(table, payload, at))], REFEREE, at, salt_key)


def propose_resume(table, payload, at: str, salt_key: str | None = None):
    return table._extend([Draft(CLOCK_RESUMED, check_resume(table, payload, at))], REFEREE, at, salt_key)


def _remark(table, seat: int, moment: str) -> None:
    """The seat's time used until ``moment`` kept in its mark (from ``moment`` on,
    counted as the pause now says)."""
    if seat in table.since and table.clock is not None and not table.paused:
        m_at = clockmod.mark_of(table, seat)[0]
        moment = max(moment, m_at)
        table.marks = {**table.marks, seat: (moment, clockmod.used(table, seat, moment), table.calendars.get(seat))}


def apply_pause(table, ev) -> None:
    p = ev.payload
    _remark(table, p["seat"], p["from"])
    table.away = {**table.away, p["seat"]: {"reason": p["reason"], "from": p["from"], "until": p["until"]}}
    if p["reason"] == AUTO:
        table.drawn = {**table.drawn, p["seat"]: table.drawn.get(p["seat"], 0) + 1}


def apply_resume(table, ev) -> None:
    seat = ev.payload["seat"]
    _remark(table, seat, min(ev.at, table.away[seat]["until"]))
    table.away = {k: v for k, v in table.away.items() if k != seat}


def until_date(until: str) -> str:
    """The last day of a vacation whose pause ends at ``until`` (00:00 UTC after it)."""
    return (clockmod.parse_at(until) - timedelta(days=1)).date().isoformat()
