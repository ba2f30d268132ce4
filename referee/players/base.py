"""Where players live: one small interface, beside the game store, on SQLite or Redis.

A player is ``{id, name, bot, created}`` (public) plus private parts: the SHA-256
hash of its token (never the token), its contacts (``email`` with
``email_confirmed``, ``webhook`` with ``webhook_secret``) and its pending e-mail
confirmation. Its results are kept as aggregates, so a profile reads a few small
records however many games the player has finished: a rating per game, games
played and won per game, and the rating history (paged, never read whole).

Recording a finished game is the one multi-player write (``record``). It is a
compare-and-set on the ratings' ``order`` (how many games have been recorded) and
writes the game's marker, its order number and every player's part at once (SQLite:
one transaction; Redis: the plan first, in one script, then each player's part, each
once; see referee/players/redis.py), so a job retried after a crash records a game
exactly once and a game recorded meanwhile by another job sends this one back to read
the ratings again.
"""

from __future__ import annotations

import secrets

from referee.store import Conflict  # noqa: F401 - raised by ``record``; callers import it here


def new_player_id() -> str:
    # as game ids (referee/service.py new_game_id): no '-', '_' or '.', which the token uses
    return secrets.token_urlsafe(9).replace("-", "x").replace("_", "y")


def new_player_token(player_id: str) -> str:
    """A player's token names its player (``ID.SECRET``), so checking it reads only
    that player's record, which a Redis Cluster keeps in the player's own slot."""
    return f"{player_id}.{secrets.token_urlsafe(24)}"


def player_of_token(token: str) -> str | None:
    pid, dot, rest = token.partition(".")
    return pid if dot and pid and rest and len(token) <= 200 else None


class PlayerStore:
    """The interface; referee/players/sqlite.py and redis.py implement it."""

    # ---- players ---------------------------------------------------------------------

    def create(self, player: dict, token_hash: str, contacts: dict, confirm: dict | None) -> None:
        """A new player: public ``player`` {id, name, bot, created}, private parts."""
        raise NotImplementedError

    def names_after(self, after: str, prefix: str, limit: int) -> list[str]:
        """The name index's entries (referee/players/names.py) after ``after`` that
        begin with ``prefix``, in order, at most ``limit``. ``create`` writes a
        player's entries; a store made before the index fills it when opened."""
        raise NotImplementedError

    def get(self, player_id: str) -> dict | None:
        """The whole record, private parts too: {id, name, bot, created, token_hash,
        contacts, confirm}. None: no such player."""
        raise NotImplementedError

    def update(self, player_id: str, contacts: dict, confirm: dict | None) -> None:
        """Rewrite the private parts; a new ``confirm`` starts its codes' tries afresh."""
        raise NotImplementedError

    def take_try(self, player_id: str, client: str, most: int, ttl: float) -> bool:
        """Count one confirmation code tried for the player from ``client`` (a client
        address's hash), in one atomic step: True if fewer than ``most`` were tried
        from it since the player's confirmation was last set, else False (nothing
        counted). Each client's count is its own, so nobody's guesses use up another
        client's tries; a count lives ``ttl`` seconds at least (a code's life)."""
        raise NotImplementedError

    # ---- a lost token's recovery (referee/players/recovery.py) --------------------------

    def recovery_set(self, player_id: str, token_hash: str, expires: float) -> None:
        """Keep the hash of the token just mailed to the player's address, until
        ``expires`` (one at a time: a later one replaces it)."""
        raise NotImplementedError

    def recovery_get(self, player_id: str) -> dict | None:
        """``{hash, expires}`` of the mailed token not yet used, or None."""
        raise NotImplementedError

    def recovery_take(self, player_id: str, old_hash: str, new_hash: str) -> bool:
        """In one atomic step: if the player's token hash is still ``old_hash`` and the
        mailed token's is ``new_hash``, make it the player's token (the old one stops
        working) and forget the mailed one. False: either has changed meanwhile."""
        raise NotImplementedError

    # ---- confirmation mail ------------------------------------------------------------

    def claim_address(self, address_key: str, now: float, window: float) -> bool:
        """Whether a confirmation may be mailed to this address now: true (and the
        window starts) when none was mailed to it in the last ``window`` seconds."""
        raise NotImplementedError

    def queue_mail(self, player_id: str, at: float) -> None:
        """Queue a message: a player's confirmation, or an invitation (``invite.GAME.SEAT``:
        no player id holds a dot), sent by referee/players/confirmation.py or invitations.py."""
        raise NotImplementedError

    def own_address(self, address_key: str, player_id: str) -> None:
        """Note that ``player_id`` confirmed the address (its hash): it asked for mail."""
        raise NotImplementedError

    def address_owner(self, address_key: str) -> str | None:
        """The player who last confirmed the address (the caller checks it still has it)."""
        raise NotImplementedError

    def due_mail(self, now: float, limit: int = 100) -> list[dict]:
        """[{player, next_try, attempts}] due now, earliest first."""
        raise NotImplementedError

    def claim_mail(self, entry: dict, until: float) -> bool:
        """Take a due mail for sending (its next try moved to ``until``), only if
        nobody else has since it was read."""
        raise NotImplementedError

    def mail_done(self, player_id: str) -> None:
        raise NotImplementedError

    def mail_failed(self, player_id: str, attempts: int, next_try: float, error: str) -> None:
        raise NotImplementedError

    # ---- the games a player holds a seat in -------------------------------------------

    def seat_in(self, player_id: str, game_id: str, seat: int) -> None:
        """Note that the player holds ``seat`` of ``game_id`` (idempotent)."""
        raise NotImplementedError

    def unseat(self, player_id: str, game_id: str) -> None:
        """The player holds no seat of ``game_id`` any more, or the game is over."""
        raise NotImplementedError

    def seats(self, player_id: str) -> dict[str, int]:
        """{game_id: seat} of the games the player holds a seat in and that have not
        been seen to end: read whole, so kept small (``unseat`` once a game ends)."""
        raise NotImplementedError

    # ---- open games (referee/players/lobby.py) -----------------------------------------

    def open_create(self, game: dict) -> None:
        """A new open game ``{id, created, status, ...}``, in the lobby while open."""
        raise NotImplementedError

    def open_get(self, game_id: str) -> str | None:
        """The open game's text as stored (the compare-and-set's key), or None."""
        raise NotImplementedError

    def open_swap(self, game_id: str, old_text: str, game: dict) -> bool:
        """Replace the open game only if its text is still ``old_text`` (two joiners
        racing for the last seat: one wins, the other reads again). False: it changed."""
        raise NotImplementedError

    def invite(self, address_key: str, game_id: str) -> None:
        """Note that ``game_id`` keeps a seat for the address (``address_key``: its hash)."""
        raise NotImplementedError

    def invited(self, address_key: str, limit: int = 100) -> list[str]:
        """The open games that kept a seat for the address, oldest first (some may have
        started or been cancelled since: the caller reads each)."""
        raise NotImplementedError

    def lobby(self, limit: int, after: str | None) -> list[dict]:
        """Open games (status ``open``), oldest first, after the id ``after``."""
        raise NotImplementedError

    # ---- invitations (referee/players/invitations.py) ------------------------------------

    def invitation_add(self, player_id: str, what: str, now: float, expires: float, most: int) -> float | None:
        """Note that the player is invited to ``what`` (``game:ID``, ``league:ID``) until
        ``expires``, unless ``most`` invitations are pending already (those expired by
        ``now`` dropped first): None when noted (or noted before: its expiry moves),
        else the time the earliest pending one expires. Atomic for the player."""
        raise NotImplementedError

    def invitation_drop(self, player_id: str, what: str) -> None:
        """The invitation was answered or withdrawn: it is pending no more."""
        raise NotImplementedError

    def invitations_of(self, player_id: str, now: float) -> list[str]:
        """The player's pending invitations (``what`` each), the oldest first."""
        raise NotImplementedError

    def invitation_mail_claim(self, player_id: str, inviter: str, now: float, seconds: float) -> bool:
        """Whether the player may be mailed an invitation from ``inviter`` (a hash: no
        address in a key's name) now: true, and the next ``seconds`` are taken, when
        none was mailed from that inviter within them."""
        raise NotImplementedError

    # ---- results ---------------------------------------------------------------------

    def ratings(self, player_id: str) -> dict[str, dict]:
        """{game: rating}."""
        raise NotImplementedError

    def stats(self, player_id: str) -> dict[str, dict]:
        """{game: {played, won}}: every finished game the player held a seat in."""
        raise NotImplementedError

    def history(self, player_id: str, game: str, after: int = 0, limit: int = 100,
                newest: bool = False) -> list[dict]:
        """Rating history entries ``{n, game_id, ended_at, order, place, before,
        after}`` of one game, ``n`` counting from 1: those after ``n = after``, at
        most ``limit``; ``newest``: the last ``limit`` instead (a picture's)."""
        raise NotImplementedError

    def rating_read(self, player_ids: list[str], game: str) -> tuple[int, dict | None, dict]:
        """(order, the pending plan if a recording was cut short, {player: rating or None})."""
        raise NotImplementedError

    def recorded(self, game_id: str) -> dict | None:
        """The marker of a recorded game {order, game, ended_at, rated}, or None."""
        raise NotImplementedError

    def record(self, made: dict, expected_order: int) -> bool:
        """Record a finished game's plan (referee/players/ratings.py ``plan``) as
        game number ``expected_order + 1``: False if the game is recorded already;
        ``Conflict`` if another game was recorded since ``expected_order`` was read
        (or a cut-short recording is to be finished first: ``finish_pending``)."""
        raise NotImplementedError

    def finish_pending(self) -> None:
        """Finish a recording a crash cut short (where one can be: Redis)."""

    def caught_up(self) -> str | None:
        """The ratings catch-up's mark: every game created before it had ended, and
        was looked at, when a catch-up last finished (a creation time); None: never."""
        raise NotImplementedError

    def mark_caught_up(self, mark: str) -> None:
        """Keep the catch-up's mark (any mark a catch-up worked out is safe, so the
        last writer wins)."""
        raise NotImplementedError

    def recorded_games(self) -> list[tuple[str, dict]]:
        """Every recorded game (id, marker), in the order recorded."""
        raise NotImplementedError

    def all_ratings(self) -> dict[str, dict[str, dict]]:
        """{player: {game: rating}} of every player (the check's; never on a request)."""
        raise NotImplementedError

    # The point just before a write becomes final. Tests make it raise, as a
    # process killed there would stop.
    def _commit_point(self, where: str) -> None:
        pass
