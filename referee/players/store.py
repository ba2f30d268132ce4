"""The player store: its interface (base.py) and ``open_players`` / ``players_of``
to find the one beside a game store (sqlite.py, redis.py behind it)."""

from __future__ import annotations

from referee.players.base import (  # noqa: F401 - the player store's public names
    PlayerStore,
    new_player_id,
    new_player_token,
    player_of_token,
)
from referee.store import Conflict  # noqa: F401 - raised by ``record``; callers import it here


def open_players(store) -> PlayerStore:
    """The player store beside a game store, on the same file or the same Redis."""
    if hasattr(store, "path"):
        from referee.players.sqlite import SqlitePlayers

        return SqlitePlayers(store)
    from referee.players.redis import RedisPlayers

    return RedisPlayers(store.r)


def players_of(service) -> PlayerStore:
    """The player store beside the service's game store (made once, kept on it)."""
    found = getattr(service, "_players", None)
    if found is None:
        found = service._players = open_players(service.store)
    return found
