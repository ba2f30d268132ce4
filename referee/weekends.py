"""Weekends off: a seat's clock that stops on Saturday and Sunday, the player's
local time (referee/calendar keeps the setting; the game's log records it, as a
``seat-calendar`` event, so deadlines stay a function of the log).

An instant is in a seat's weekend when its local date, in the seat's IANA zone, is
a Saturday or a Sunday. The weekend from an instant on runs to the first instant
whose local date is a Monday: local midnight read the first way the zone reads it
(``fold=0``). On a day a zone changes its clocks at midnight (a few do: Santiago,
Havana, Cairo) that is the very moment of the change, so a weekend is never an hour
too long or too short across a change of daylight saving time.

Durations are whole microseconds, the log's own resolution, so every replay, in
any process, computes the very same instants (with the same tz database: an
amended zone's future rules move only deadlines that fall after the amendment).
"""

from __future__ import annotations

import functools
from datetime import UTC, datetime, time, timedelta

from referee.games.base import MalformedMove

# zoneinfo (with sysconfig and struct, ~2 ms) is imported where a zone is first
# read: every table imports this module, and only a seat's calendar needs a zone
# (none of the games `referee audit` checks has one, most of the time)
TYPE_CHECKING = False  # (typing itself is ~2 ms no audit needs)
if TYPE_CHECKING:
    from zoneinfo import ZoneInfo

SATURDAY = 5
WEEK = timedelta(days=7)


@functools.lru_cache(maxsize=256)
def zone(name: str) -> ZoneInfo:
    from zoneinfo import ZoneInfo

    return ZoneInfo(name)


@functools.cache
def zones() -> frozenset[str]:
    """The IANA zone names the referee knows (the tzdata package's, where the system
    has none): a name outside them is refused, not guessed at. The system's own
    files that name no zone of the database (its local time, its rules' copies) are
    left out."""
    from zoneinfo import available_timezones

    return frozenset(z for z in available_timezones()
                     if z not in ("localtime", "posixrules", "Factory") and not z.startswith(("posix/", "right/")))


SEAT_CALENDAR = "seat-calendar"


def check_calendar(payload) -> dict:
    """A ``seat-calendar`` event's payload ``{seat, timezone, weekends_off}``, checked
    (``MalformedMove`` naming the field); the seat's range is the table's to check."""
    if not isinstance(payload, dict) or set(payload) != {"seat", "timezone", "weekends_off"}:
        raise MalformedMove("a seat's calendar is {seat, timezone, weekends_off}", field="body")
    seat, tz, off = payload["seat"], payload["timezone"], payload["weekends_off"]
    if not isinstance(seat, int) or isinstance(seat, bool) or seat < 0:
        raise MalformedMove("seat must be a seat number", field="seat")
    if not isinstance(tz, str) or tz not in zones():
        raise MalformedMove("timezone must be an IANA time zone name", field="timezone")
    if not isinstance(off, bool):
        raise MalformedMove("weekends_off must be true or false", field="weekends_off")
    return {"seat": seat, "timezone": tz, "weekends_off": off}


def _midnight(day, tz: ZoneInfo, after: datetime) -> datetime:
    """Local midnight of ``day`` as an instant later than ``after``: read the first
    way (``fold=0``), else the second (a zone whose clocks go back across midnight)."""
    for fold in (0, 1):
        at = datetime.combine(day, time(0), tzinfo=tz).replace(fold=fold).astimezone(UTC)
        if at > after:
            return at
    return after + timedelta(minutes=1)  # (no zone in the database: a step forward all the same)


def _monday_after(moment: datetime, tz: ZoneInfo) -> datetime:
    """The end of the weekend ``moment`` (UTC) is in."""
    local = moment.astimezone(tz)
    return _midnight(local.date() + timedelta(days=7 - local.weekday()), tz, moment)


def _saturday_from(moment: datetime, tz: ZoneInfo) -> datetime:
    """The start of the next weekend after ``moment`` (UTC), which is in none."""
    local = moment.astimezone(tz)
    return _midnight(local.date() + timedelta(days=SATURDAY - local.weekday()), tz, moment)


def in_weekend(moment: datetime, tz: ZoneInfo) -> bool:
    return moment.astimezone(tz).weekday() >= SATURDAY


def _micro(delta: timedelta) -> int:
    return delta // timedelta(microseconds=1)


def running(start: datetime, end: datetime, tz_name: str | None) -> int:
    """Microseconds of ``start`` .. ``end`` (UTC) that are not in a weekend of the
    zone (all of them without one)."""
    if end <= start:
        return 0
    if tz_name is None:
        return _micro(end - start)
    tz, total, at = zone(tz_name), 0, start
    while at < end:
        if in_weekend(at, tz):
            at = _monday_after(at, tz)
            continue
        stop = min(end, _saturday_from(at, tz))
        total += _micro(stop - at)
        at = stop
    return total


def advance(start: datetime, budget: int, tz_name: str | None) -> datetime:
    """The instant at which ``budget`` microseconds of running time, counted from
    ``start`` (UTC), are used up: weekends of the zone do not count. A budget used
    up exactly at a weekend's start ends there."""
    if tz_name is None:
        return start + timedelta(microseconds=budget)
    tz, left, at = zone(tz_name), budget, start
    while True:
        if in_weekend(at, tz):
            at = _monday_after(at, tz)
        saturday = _saturday_from(at, tz)
        span = _micro(saturday - at)
        if left <= span:
            return at + timedelta(microseconds=left)
        left -= span
        at = saturday
