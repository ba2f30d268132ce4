"""Who sees what of a game: the one decision every channel asks.

The referee is the one party at the table that sees every card. A **game of
players** (every seat in its first event a registered player's, made by an engine
version that knows such games: open seats taken, every league game) is neutral
by construction: while it runs nobody but a seat sees that seat's hidden cards,
not its admin token (which a creator who also plays holds, as does a league's
organiser), so its admin manages blind and sees what a spectator sees. A game
with a seat given by name is its creator's table (the creator holds that seat's
token anyway): its admin sees everything, as every admin did before games of
players; so does the admin of an older game, under the rule it began with.

Views, events, the log in words, pictures, pages, long polls, notices and the
export all ask ``Table.seen_as`` / ``Table.sees_all`` (``Table`` mixes in
``Seeing``), never ``viewer == ADMIN`` on their own, so no channel can decide it
apart from the others.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from referee.games.base import ADMIN, SPECTATOR, Engine, Viewer


@dataclass
class Seeing:
    """The part of ``Table`` that says who sees what (a dataclass base: the field
    comes after the table's own, and is named when a table is made)."""

    # Whether the game is one of players (``of_players``, from its first event).
    of_players: bool = field(default=False, kw_only=True)

    def seen_as(self, viewer) -> Viewer:
        """The viewer the rules show the game to when ``viewer`` asks: the admin
        of a game of players is a spectator to them; anyone else as it is."""
        return SPECTATOR if viewer == ADMIN and self.of_players else viewer

    def sees_all(self, viewer) -> bool:
        """Whether ``viewer`` sees every event whole (its salt, the deck, every
        hidden card): anyone once the game is over and its seed revealed; before,
        an admin the rules see as the admin (``seen_as``), and nobody else."""
        return (self.over and self.seed_revealed) or self.seen_as(viewer) == ADMIN


def of_players(engine: Engine, created: dict) -> bool:
    """Whether the game whose first event's payload is ``created`` is a game of
    players: every seat a registered player's (a registered bot player's too) and
    made by an engine version from ``players_since`` on. A seat given by name, or a
    bot of the referee's own, makes it its creator's table."""
    since = engine.players_since
    return (since is not None and engine.made_by(created) >= since
            and all(s.get("player") for s in created["seats"]))
