"""The league store's interface (see referee/leagues/keeping/__init__.py)."""

from __future__ import annotations

from referee.events import Event
from referee.store.base import Conflict  # noqa: F401 - raised by ``append``


class LeagueStore:
    """The interface; sqlite.py and redis.py implement it."""

    def create(self, meta: dict, first: Event) -> None:
        """A new league with its first event (``ValueError`` if its id exists); its
        status ``meta["status"]`` (``waiting``: players join until it starts), else running."""
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

    def index_player(self, league_id: str, player_id: str) -> None:
        """Add the league to the player's (``of_player``): a player who joined it."""
        raise NotImplementedError

    def keep_entropy(self, league_id: str, player_id: str, entropy: str | None) -> None:
        """Keep (None: forget) the entropy a player's join carries, unseen by anyone
        until the league's start records it (from league version 2)."""
        raise NotImplementedError

    def entropies(self, league_id: str) -> dict[str, str]:
        """``{player: entropy}`` kept for the league's start."""
        raise NotImplementedError

    # ---- what a league owes (the index the heal walks: referee/leagues/healing.py) ----

    def owe(self, league_id: str, mark: int) -> None:
        """Mark the league as owing a step (``mark``: a number that says from which
        version of its log on, referee/leagues/healing.py); a mark only rises."""
        raise NotImplementedError

    def paid(self, league_id: str, mark: int) -> None:
        """Unmark the league, found owing nothing: only if its mark is at most
        ``mark``, so a debt marked higher since is never unmarked."""
        raise NotImplementedError

    def owing(self) -> dict[str, int]:
        """The leagues marked as owing, each with its mark: small, whatever the
        number of leagues ever (a mark lasts from a debt to its payment)."""
        raise NotImplementedError

    def note_games(self, league_id: str, number: int, games: list[str]) -> None:
        """Note the ``games`` of a pairing of round ``number``, before they are created
        and the pairing is appended, so that a game made for a pairing that never
        became the league's can be found and ended."""
        raise NotImplementedError

    def noted_games(self, league_id: str) -> dict[str, int]:
        """``{game: round}``: the games noted and not yet done with."""
        raise NotImplementedError

    def drop_games(self, league_id: str, games: list[str]) -> None:
        """Done with these noted games (listed by the league, or ended)."""
        raise NotImplementedError

    # The point just before a write becomes final: tests make it raise, as a
    # process killed there would stop.
    def _commit_point(self, where: str) -> None:
        pass


PUBLIC = ("id", "name", "game", "format", "created_at", "status", "version", "organiser")
