"""Weekends off, as pure arithmetic (referee/weekends.py), against a brute force
that looks at every minute's local weekday: across zones, across the changes of
daylight saving time (and the zones that change their clocks at midnight)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from hypothesis import given, settings
from hypothesis import strategies as st

from referee import weekends

# zones with daylight saving at 02:00 or 03:00, at midnight (Santiago, Havana, Asuncion,
# Beirut, Cairo), half and quarter hours (Adelaide, Kathmandu, Chatham), south and north
ZONES = ["UTC", "Europe/Berlin", "Europe/London", "America/New_York", "America/Santiago", "America/Havana",
         "America/Asuncion", "Asia/Beirut", "Africa/Cairo", "Australia/Adelaide", "Asia/Kathmandu",
         "Pacific/Chatham", "Pacific/Auckland", "Asia/Tokyo", "America/Sao_Paulo", "Pacific/Apia"]
MINUTE = timedelta(minutes=1)

starts = st.datetimes(min_value=datetime(2015, 1, 1), max_value=datetime(2035, 1, 1)).map(
    lambda d: d.replace(second=0, microsecond=0, tzinfo=UTC))


def brute_deadline(start: datetime, minutes: int, tz: ZoneInfo) -> datetime:
    """Minute by minute: each minute whose start is on a local weekday counts."""
    at, left = start, minutes
    while True:
        if at.astimezone(tz).weekday() < 5:
            if left == 0:
                return at
            left -= 1
        elif left == 0 and at > start and (at - MINUTE).astimezone(tz).weekday() < 5:
            return at  # used up exactly as the weekend began
        at += MINUTE


def test_a_friday_evening_in_berlin_across_the_spring_change():
    # Friday 27 March 2026, 20:00 in Berlin (19:00 UTC); clocks go forward on Sunday
    # the 29th. Four hours until the weekend, then on from Monday 00:00 CEST (22:00 UTC Sunday).
    start = datetime(2026, 3, 27, 19, 0, tzinfo=UTC)
    deadline = weekends.advance(start, 24 * 3600 * 10**6, "Europe/Berlin")
    assert deadline == datetime(2026, 3, 29, 22, 0, tzinfo=UTC) + timedelta(hours=20)
    assert weekends.running(start, deadline, "Europe/Berlin") == 24 * 3600 * 10**6


def test_a_saturday_move_in_santiago_whose_clocks_change_at_midnight():
    # Chile falls back at local midnight between Saturday 5 and Sunday 6 April 2025
    # (24:00 -04 becomes 23:00 -03): the weekend is Saturday 00:00 -03... to Monday 00:00 -04
    start = datetime(2025, 4, 5, 15, 0, tzinfo=UTC)  # Saturday, 11:00 local
    tz = ZoneInfo("America/Santiago")
    deadline = weekends.advance(start, 60 * 10**6, "America/Santiago")
    assert deadline.astimezone(tz).weekday() == 0 and deadline.astimezone(tz).hour == 0
    assert deadline == brute_deadline(start, 1, tz)


@settings(max_examples=150, deadline=None)
@given(start=starts, minutes=st.integers(min_value=0, max_value=4 * 24 * 60), name=st.sampled_from(ZONES))
def test_deadlines_equal_the_minute_by_minute_count(start, minutes, name):
    tz = ZoneInfo(name)
    got = weekends.advance(start, minutes * 60 * 10**6, name)
    assert got == brute_deadline(start, minutes, tz)
    # and the time counted back from it is the budget
    assert weekends.running(start, got, name) == minutes * 60 * 10**6


@settings(max_examples=150, deadline=None)
@given(start=starts, minutes=st.integers(min_value=0, max_value=10 * 24 * 60), name=st.sampled_from(ZONES))
def test_running_time_counts_the_weekday_minutes(start, minutes, name):
    tz = ZoneInfo(name)
    end = start + minutes * MINUTE
    counted = sum(1 for k in range(minutes) if (start + k * MINUTE).astimezone(tz).weekday() < 5)
    assert weekends.running(start, end, name) == counted * 60 * 10**6
    assert weekends.running(start, end, None) == minutes * 60 * 10**6
