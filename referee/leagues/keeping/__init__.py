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

from referee.leagues.keeping.base import PUBLIC, Conflict, LeagueStore  # noqa: F401 - the store's names


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

