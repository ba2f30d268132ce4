"""The calendar as the service is handed it (referee/system.py): what the players'
endpoints ask of it (the settings shown and changed) and what the notices ask
(whether a seat's player wants a notice), and the daily digests (scheduled again
when their settings change)."""

from __future__ import annotations

from referee.calendar import feed, notices, punctuality, settings, weeks
from referee.calendar.keeping import CalendarStore

# the settings a game's clock counts by: a change of either is written into the games
CLOCKED = ("timezone", "weekends_off")


class Calendar:
    FIELDS = settings.FIELDS

    def __init__(self, store: CalendarStore, service=None, digests=None):
        self.store, self.service, self.digests = store, service, digests
        self.vacations = None  # (referee/calendar/pausing.py, wired in referee/system.py)

    def check(self, body: dict) -> dict:
        """The settings a ``PATCH /v1/players/me`` body changes, checked; raises
        ``MalformedMove`` naming the field (before anything is written)."""
        return settings.check(body)

    def change(self, player_id: str, changes: dict) -> None:
        """Keep the changed settings; a change of zone or weekends goes into the
        logs of the player's games (their clocks count by it from then on)."""
        if not changes:
            return
        before = self.store.settings(player_id)
        after = {**before, **changes}
        self.store.set_settings(player_id, after)
        if self.service is not None and any(settings.complete(before)[k] != settings.complete(after)[k]
                                            for k in CLOCKED):
            weeks.spread(self.service, player_id, settings.complete(after))
        if self.digests is not None and any(settings.complete(before)[k] != settings.complete(after)[k]
                                            for k in settings.DIGEST_TIMING):
            self.digests.reschedule(player_id, after)  # daily, or no more, or at another hour

    def show(self, player_id: str) -> dict:
        """The player's settings as ``GET /v1/players/me`` shows them, and their
        calendar feed's address."""
        return {**settings.complete(self.store.settings(player_id)),
                "calendar_url": feed.url_of(self.store, player_id),
                **(self.vacations.shown(player_id) if self.vacations else {})}

    def public(self, player_id: str) -> dict:
        """What every profile shows of the player's timekeeping: moves, timeouts, on_time;
        and of their vacation, only the last day of the one under way."""
        return {**punctuality.shown(self.store, player_id),
                **({"on_vacation_until": self.vacations.on_vacation_until(player_id)} if self.vacations else {})}

    def wants_notice(self, record, seat: int, reason: str) -> bool:
        return notices.wanted(self.store, record, seat, reason)
