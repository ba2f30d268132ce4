"""Vacations booked, and the days of the allowance: the rules, apart from where
they are kept (referee/calendar/vacation_store.py) and from the games' logs
(referee/calendar/pausing.py).

A player's vacation record is ``{"bookings": [...], "drawn": {key: year}}``:

* a booking ``{from, to, start, cut}``: its days (UTC dates, both included), the
  moment its pause starts (``from`` 00:00 UTC, or the booking if later) and, once
  cancelled while under way, the moment it was cut short (null before);
* ``drawn``: the days auto vacation took, each under the key of the deadline it
  moved (game, seat, deadline), so a keeper that draws the same day twice after a
  crash takes it once.

A day counts in its own calendar year: a vacation from 28 December to 3 January
takes four days of one year's allowance and three of the next.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta

from referee import config
from referee.clock import format_at, parse_at
from referee.games.base import MalformedMove, RefereeError

# How far ahead a vacation may be booked: its last day at most a year after today,
# so a booking never reaches a year whose allowance is not yet known.
AHEAD = timedelta(days=365)


class VacationRefused(RefereeError):
    code, status = "vacation-refused", 409

    def __init__(self, rule: str, detail: str, **extra):
        super().__init__(detail, rule=rule, **extra)


def allowance() -> int:
    """Vacation days a player has each calendar year: the site's setting."""
    return config.vacation_days()


def parse_date(value, field: str) -> date:
    if not isinstance(value, str) or len(value) != 10:
        raise MalformedMove(f"{field} must be a date, YYYY-MM-DD (UTC)", field=field)
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise MalformedMove(f"{field} must be a date, YYYY-MM-DD (UTC)", field=field) from None


def midnight(day: date) -> str:
    return format_at(datetime.combine(day, time(0), tzinfo=UTC))


def until_of(booking: dict) -> str:
    """When the booking's pause ends as booked: 00:00 UTC the day after its last day."""
    return midnight(date.fromisoformat(booking["to"]) + timedelta(days=1))


def end_of(booking: dict) -> str:
    """When the booking's pause ends: as booked, or when it was cut short."""
    return min(until_of(booking), booking["cut"]) if booking.get("cut") else until_of(booking)


def days_of(booking: dict) -> list[date]:
    """The days the booking takes from the allowance: every day from ``from`` to
    ``to``, or, cut short, those begun by the cut."""
    first, last = date.fromisoformat(booking["from"]), date.fromisoformat(booking["to"])
    if booking.get("cut"):
        last = min(last, parse_at(booking["cut"]).date())
    return [first + timedelta(days=i) for i in range((last - first).days + 1)]


def days_left(record: dict, year: int, allowed: int) -> int:
    taken = sum(1 for b in record.get("bookings", []) for d in days_of(b) if d.year == year)
    taken += sum(1 for y in record.get("drawn", {}).values() if int(y) == year)
    return max(0, allowed - taken)


def pruned(record: dict, today: date) -> dict:
    """The record without what no longer counts: bookings and drawn days of past years."""
    return {"bookings": [b for b in record.get("bookings", []) if date.fromisoformat(b["to"]).year >= today.year],
            "drawn": {k: y for k, y in record.get("drawn", {}).items() if int(y) >= today.year}}


def book(record: dict, first: date, last: date, now: str, allowed: int) -> tuple[dict, dict]:
    """The record with a new booking (and the booking), or ``VacationRefused``
    naming the rule. ``now``: the moment of the booking (UTC)."""
    today = parse_at(now).date()
    if last < first:
        raise MalformedMove("to must be the same day as from or later", field="to")
    if first < today:
        raise VacationRefused("vacation-in-the-past", f"a vacation starts today ({today}) or later")
    if last > today + AHEAD:
        raise VacationRefused("vacation-too-far-ahead",
                              f"a vacation's last day is at most a year ahead ({today + AHEAD})")
    record = pruned(record, today)
    for b in record["bookings"]:
        if end_of(b) > midnight(first) and b["start"] < midnight(last + timedelta(days=1)):
            held = (f"the vacation from {b['from']} cut short at {b['cut'][11:16]} UTC holds its days begun"
                    if b.get("cut") else f"the vacation booked from {b['from']} to {b['to']} overlaps it: "
                    "cancel or shorten it first")
            raise VacationRefused("vacation-overlaps", held)
    booking = {"from": first.isoformat(), "to": last.isoformat(), "start": max(midnight(first), now), "cut": None}
    for year in sorted({d.year for d in days_of(booking)}):
        wanted = sum(1 for d in days_of(booking) if d.year == year)
        left = days_left(record, year, allowed)
        if wanted > left:
            raise VacationRefused("vacation-allowance", f"{wanted} days in {year}, but {left} of the "
                                  f"{allowed} days of {year} are left", year=year, days_left=left)
    return {**record, "bookings": sorted([*record["bookings"], booking], key=lambda b: b["from"])}, booking


def cancel(record: dict, now: str) -> tuple[dict, list[dict]]:
    """The record with every booking not yet over cancelled: one not begun is
    dropped (its days given back), one under way is cut short now (the days begun
    stay taken). Returns the record and the bookings that were under way."""
    kept, cut = [], []
    for b in pruned(record, parse_at(now).date())["bookings"]:
        if end_of(b) <= now:
            kept.append(b)
        elif b["start"] <= now:
            cut.append({**b, "cut": now})
            kept.append(cut[-1])
    return {**record, "bookings": kept}, cut


def shorten(record: dict, last: date, now: str) -> tuple[dict, dict]:
    """The record with the booking that holds ``last`` (under way or to come, not
    cut) ending on it instead: the days after it given back. ``last`` is today or
    later."""
    today = parse_at(now).date()
    if last < today:
        raise VacationRefused("vacation-in-the-past", f"a vacation can end today ({today}) at the earliest")
    record = pruned(record, today)
    for i, b in enumerate(record["bookings"]):
        if not b.get("cut") and end_of(b) > now and b["from"] <= last.isoformat() < b["to"]:
            changed = {**b, "to": last.isoformat()}
            return {**record, "bookings": [*record["bookings"][:i], changed, *record["bookings"][i + 1:]]}, changed
    raise VacationRefused("vacation-not-shortened", f"no vacation booked runs past {last} from that day or "
                          "before it: nothing to shorten")


def draw(record: dict, key: str, year: int, allowed: int) -> tuple[dict, bool]:
    """One day drawn for auto vacation under ``key`` (once: a key drawn already is
    drawn), or False when the year's allowance is spent."""
    if key in record.get("drawn", {}):
        return record, True
    if days_left(record, year, allowed) <= 0:
        return record, False
    return {**record, "drawn": {**record.get("drawn", {}), key: str(year)}}, True


def current(record: dict, now: str) -> dict | None:
    """The booking under way at ``now``, if any."""
    return next((b for b in record.get("bookings", []) if b["start"] <= now < end_of(b)), None)


def next_start(record: dict, now: str) -> str | None:
    """The next moment a booking's pause starts after ``now`` (the player's timer)."""
    starts = [b["start"] for b in record.get("bookings", []) if b["start"] > now and not b.get("cut")]
    return min(starts) if starts else None


def shown(record: dict, now: str, allowed: int) -> dict:
    """What ``GET /v1/players/me`` shows: the days left this year and the bookings
    not yet over."""
    year = parse_at(now).year
    return {"vacation_days_left": days_left(record, year, allowed),
            "vacations": [{"from": b["from"], "to": b["to"]} for b in record.get("bookings", []) if end_of(b) > now]}


def on_vacation_until(record: dict, now: str) -> str | None:
    """What every profile shows: the last day of the vacation under way, or None."""
    b = current(record, now)
    return b["to"] if b else None
