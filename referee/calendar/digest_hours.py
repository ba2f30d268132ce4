"""When a player's daily digest is due: at ``digest_hour`` on each day of the
player's own calendar (``timezone``), said as a moment in UTC.

A day on which the clocks change may lack that hour or have it twice:

* the hour does not exist (the clocks jump over it, e.g. 02:00 in Paris on the
  last Sunday of March): the digest comes at the moment the clocks jump to
  (03:00 that day), one hour of the player's day that does exist;
* the hour happens twice (the clocks go back over it, e.g. 02:00 in Paris on the
  last Sunday of October): the digest comes the first time; the second is the
  same local day, which has had its digest.

A digest belongs to the local date it is due on (``day``): the claim that makes
it once a day is named by that date, so a player's digest is sent once per date
of their own calendar, whatever the hour changes in between.
"""

from __future__ import annotations

import datetime
from zoneinfo import ZoneInfo

UTC = datetime.UTC


def moment(day: datetime.date, hour: int, timezone: str) -> datetime.datetime:
    """``hour`` o'clock on ``day`` in ``timezone``, in UTC. ``fold=0`` is the
    first of an hour that happens twice; for an hour the clocks jump over it
    reads the hour with the offset before the jump, which is the moment they
    jump to (02:00 +01:00 is 03:00 +02:00)."""
    local = datetime.datetime(day.year, day.month, day.day, hour, tzinfo=ZoneInfo(timezone), fold=0)
    return local.astimezone(UTC)


def local_day(at: datetime.datetime, timezone: str) -> datetime.date:
    """The date on the player's calendar at the moment ``at``."""
    return at.astimezone(ZoneInfo(timezone)).date()


def next_due(now: datetime.datetime, hour: int, timezone: str,
             after_day: datetime.date | None = None) -> tuple[datetime.datetime, datetime.date]:
    """The next digest moment after ``now`` and its local date: today's if its
    hour is still to come, else tomorrow's; never for ``after_day`` or a date
    before it (a day that has had its digest, or its turn, is done)."""
    day = local_day(now, timezone)
    if after_day is not None and day <= after_day:
        day = after_day + datetime.timedelta(days=1)
    while True:
        at = moment(day, hour, timezone)
        if at > now:
            return at, day
        day += datetime.timedelta(days=1)
