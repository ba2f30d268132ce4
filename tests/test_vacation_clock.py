"""A seat's deadline with a vacation's pause in its log, on the table alone: equal to
a minute-by-minute count of its own time (weekends off or not, across a change of
daylight saving time; the pause from its start, or the seat's, to its end or its
resume), by hypothesis; and a pause that comes after the seat's deadline is
refused (its timeout comes first), as the audit refuses it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee import clock, vacations
from referee.table import Table

MINUTE = timedelta(minutes=1)
BERLIN = "Europe/Berlin"
SEED = "vacation-clock"


def at(moment: datetime) -> str:
    return clock.format_at(moment)


def table_at(start: datetime, move_minutes: int, weekends: bool) -> tuple[Table, int]:
    options = {"clock": {"move_seconds": move_minutes * 60, "on_timeout": "forfeit"}}
    created = Table.created_event("castle-danger", "g-vac", ["Ann", "Bob"], options, SEED, False, at=at(start))
    table = Table.from_created(created)
    table.settle_all(SEED, at=at(start))
    seat = table.to_act()[0]
    if weekends:
        _, fork = table.propose_calendar({"seat": seat, "timezone": BERLIN, "weekends_off": True}, at=at(start))
        table.commit(fork)
    return table, seat


def counted(start, minutes, weekends, window) -> datetime:
    """Minute by minute: a minute counts when it is on a Berlin weekday (with
    weekends off) and outside the pause's window [from, to); the deadline is the
    end of the last minute counted."""
    tz, moment, left = ZoneInfo(BERLIN), start, minutes
    while left:
        if (not weekends or moment.astimezone(tz).weekday() < 5) and not window[0] <= moment < window[1]:
            left -= 1
        moment += MINUTE
    return moment


@settings(max_examples=300, deadline=None)
@given(start=st.integers(0, 60 * 24 * 30), move=st.integers(1, 60 * 24 * 3), weekends=st.booleans(),
       pause_at=st.integers(0, 60 * 24 * 4), days=st.integers(1, 4), late=st.integers(0, 180),
       resume=st.one_of(st.none(), st.integers(1, 60 * 24 * 4)))
def test_the_deadline_with_a_pause_is_the_minute_count(start, move, weekends, pause_at, days, late, resume):
    t0 = datetime(2026, 3, 10, tzinfo=UTC) + start * MINUTE  # the spring change in Berlin is in reach
    table, seat = table_at(t0, move, weekends)
    before = clock.seat_deadline(table, seat)
    frm = t0 + pause_at * MINUTE
    until = datetime.combine(frm.date() + timedelta(days=days), datetime.min.time(), tzinfo=UTC)
    written = min(frm + late * MINUTE, until - MINUTE)  # the keeper a little late, before the end
    payload = {"seat": seat, "reason": "vacation", "from": at(frm), "until": at(until)}
    if before <= at(frm):  # the deadline passed before the vacation: the timeout first
        with pytest.raises(vacations.NotPausable):
            vacations.propose_pause(table, payload, at(written))
        return
    _, fork = vacations.propose_pause(table, payload, at(written))
    table.commit(fork)
    end = until
    if resume is not None and written + resume * MINUTE < until:  # cancelled under way
        end = written + resume * MINUTE
        _, fork = vacations.propose_resume(table, {"seat": seat, "reason": "vacation"}, at(end))
        table.commit(fork)
    assert clock.seat_deadline(table, seat) == at(counted(t0, move, weekends, (frm, end)))
