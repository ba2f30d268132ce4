"""The calendar as the service is handed it (referee/system.py): what the players'
endpoints ask of it (the settings shown and changed) and what the notices ask
(whether a seat's player wants a notice)."""

from __future__ import annotations

from referee.calendar import notices, settings
from referee.calendar.keeping import CalendarStore


class Calendar:
    FIELDS = settings.FIELDS

    def __init__(self, store: CalendarStore):
        self.store = store

    def check(self, body: dict) -> dict:
        """The settings a ``PATCH /v1/players/me`` body changes, checked; raises
        ``MalformedMove`` naming the field (before anything is written)."""
        return settings.check(body)

    def change(self, player_id: str, changes: dict) -> None:
        if changes:
            self.store.set_settings(player_id, {**self.store.settings(player_id), **changes})

    def show(self, player_id: str) -> dict:
        """The player's settings as ``GET /v1/players/me`` shows them."""
        return settings.complete(self.store.settings(player_id))

    def wants_notice(self, record, seat: int, reason: str) -> bool:
        return notices.wanted(self.store, record, seat, reason)
