"""The league store's interface (see referee/leagues/keeping/__init__.py)."""

from __future__ import annotations

from referee.events import Event
from referee.store.base import Conflict  # noqa: F401 - raised by ``append``


class LeagueStore:
    """The interface; sqlite.py and redis.py implement it."""

    def create(self, meta: dict, first: Event) -> None:
        """A new league with its first event (``ValueError`` if its id exists)."""
        raise NotImplementedError

    def meta(self, league_id: str) -> dict | None:
        """The meta with ``status`` and ``version`` (the log's length); None: no such league."""
        raise NotImplementedError

    def raw_events(self, league_id: str, after: int = 0) -> list[str]:
        """The log exactly as stored, one canonical JSON text per event (those after
        the first ``after``)."""
        raise NotImplementedError

    def events(self, league_id: str, after: int = 0) -> list[Event]:
        return [Event.from_json(t) for t in self.raw_events(league_id, after)]

    def append(self, league_id: str, expected: int, events: list[Event], status: str) -> None:
        """Append if the log's length is ``expected``, else raise ``Conflict``."""
        raise NotImplementedError

    def page(self, limit: int = 100) -> list[dict]:
        """The newest leagues first: ``[{id, name, game, format, created_at, status, version}]``."""
        raise NotImplementedError

    def of_player(self, player_id: str, limit: int = 100) -> list[dict]:
        """A player's leagues, the newest first, as ``page`` gives them: read from an
        index kept per player, so a profile never scans the leagues."""
        raise NotImplementedError

    # The point just before a write becomes final: tests make it raise, as a
    # process killed there would stop.
    def _commit_point(self, where: str) -> None:
        pass


PUBLIC = ("id", "name", "game", "format", "created_at", "status", "version")
