"""The referee's own players, handed to the table where the referee is put together.

Bot seats and the moves a timeout owes are played by referee/bots, which the
table never imports: whoever puts the referee together hands it over
(referee/system.py, ``table.use_bots``), so the rules' side of the house names no
player.
"""

from __future__ import annotations

_BOT_PLAYERS: list = []


def use_bots(players) -> None:
    """The referee's players: anything with ``KINDS`` (the bot kinds a seat may be)
    and ``choose(kind, table, seat, rng) -> move``."""
    _BOT_PLAYERS[:] = [players]


def bot_players():
    if not _BOT_PLAYERS:
        raise RuntimeError("no bot players: referee.system.wire() hands referee.bots to the table")
    return _BOT_PLAYERS[0]


def bot_kinds() -> tuple[str, ...]:
    """The kinds a bot seat may be (none before the referee is put together)."""
    return tuple(_BOT_PLAYERS[0].KINDS) if _BOT_PLAYERS else ()
