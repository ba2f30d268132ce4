"""Where leagues live: a small store beside the game store, on SQLite or Redis
(as referee/players/ keeps players), with a game's guarantees for the league's log.

A league is ``{id, name, game, format, created_at, admin_hash, seed, players}``
(its *meta*; the seed and the admin token's hash never leave the referee) plus its
log: append-only, each event sealed and chained (referee/leagues/league.py), and
appended only by ``append``, a compare-and-set on the log's length exactly like a
game's (referee/store/base.py): it writes every event and the league's status, or,
if another writer got there first, nothing and raises ``Conflict``. So two workers
advancing the same league write each step once.
"""

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

    def raw_events(self, league_id: str) -> list[str]:
        """The log exactly as stored, one canonical JSON text per event."""
        raise NotImplementedError

    def events(self, league_id: str) -> list[Event]:
        return [Event.from_json(t) for t in self.raw_events(league_id)]

    def append(self, league_id: str, expected: int, events: list[Event], status: str) -> None:
        """Append if the log's length is ``expected``, else raise ``Conflict``."""
        raise NotImplementedError

    def page(self, limit: int = 100) -> list[dict]:
        """The newest leagues first: ``[{id, name, game, format, created_at, status, version}]``."""
        raise NotImplementedError

    # The point just before a write becomes final: tests make it raise, as a
    # process killed there would stop.
    def _commit_point(self, where: str) -> None:
        pass


def open_leagues(store) -> LeagueStore:
    """The league store beside a game store, on the same file or the same Redis."""
    if hasattr(store, "path"):
        from referee.leagues.keeping.sqlite import SqliteLeagues

        return SqliteLeagues(store)
    from referee.leagues.keeping.redis import RedisLeagues

    return RedisLeagues(store.r)


def leagues_of(service) -> LeagueStore:
    """The league store beside the service's game store (made once, kept on it)."""
    found = getattr(service, "_leagues", None)
    if found is None:
        found = service._leagues = open_leagues(service.store)
    return found


PUBLIC = ("id", "name", "game", "format", "created_at", "status", "version")
