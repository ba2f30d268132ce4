"""Creating a game: its seats and their tokens, its first event, its record."""

from __future__ import annotations

import secrets

from referee import clock as clockmod
from referee import entries as entriesmod
from referee.appended import Appended
from referee.caller import new_token, token_hash
from referee.errors import MalformedMove
from referee.games.base import ADMIN
from referee.service.shared import DECK_OPTIONS
from referee.store.base import GameRecord
from referee.table import Table


def seed_text(seed) -> str | None:
    """The ``seed`` option as the text the shuffles hash: a string as given, an
    integer in decimal (``11`` deals exactly as ``"11"``). None when not given."""
    if seed is None:
        return None
    if isinstance(seed, int) and not isinstance(seed, bool) and abs(seed) < 10**100:
        return str(seed)
    if isinstance(seed, str) and 0 < len(seed) <= 1000:
        return seed
    raise MalformedMove("seed must be a string of 1 to 1000 characters or an integer of at most 100 digits",
                        field="options.seed")


def contributions_of(entries: list[dict], stacked: bool) -> list | None:
    """Each seat's entropy (None where it gave none) for a game whose seed derives
    from them; None for a stacked game, which takes none: 400 naming the seat's
    ``entropy`` when one is given beside a seed or a deck."""
    if not stacked:
        return [e.get("entropy") for e in entries]
    given = next((i for i, e in enumerate(entries) if e.get("entropy") is not None), None)
    if given is not None:
        raise MalformedMove("a game dealt from a given seed or deck takes no entropy: its deal is "
                            "chosen already", field=f"players[{given}].entropy")
    return None


def new_game_id() -> str:
    return secrets.token_urlsafe(9).replace("-", "x").replace("_", "y")


class Creating:
    """GameService's part that makes new games (see referee/service/__init__.py)."""

    def create(self, game: str, players: list, options: dict | None = None, spectators: dict | None = None,
               rated: bool = True, game_id: str | None = None, extra_more: dict | None = None,
               organiser: dict | None = None, admin_hash: str | None = None,
               secret: str | None = None) -> dict:
        # ``game_id``, ``extra_more``, ``admin_hash`` and ``secret`` are for the referee's
        # own callers, never for a client: a league names its games and marks them in
        # their private record; a game opened earlier (referee/players/lobby.py) keeps
        # the id, the admin token and the secret part of the seed it committed to then.
        # Players are names or objects {name, email, webhook, bot}: only the names
        # (and which seats are bots) go into the log; what the registered features
        # keep of the rest (contacts, the spectators' webhook) is kept private
        # beside the record (referee/entries.py).
        entries = entriesmod.parse_players(players, self)
        players = [e["name"] for e in entries]
        bots = {i: e["bot"] for i, e in enumerate(entries) if e.get("bot")}
        accounts = {i: e["player"] for i, e in enumerate(entries) if e.get("player")}
        for i, pid in accounts.items():
            if pid in [accounts[j] for j in accounts if j < i]:
                raise MalformedMove("a player takes one seat of a game", field=f"players[{i}].player")
        if not isinstance(rated, bool):
            raise MalformedMove("rated is true or false", field="rated")
        extra, shown, shown_once = entriesmod.keep(entries, {"spectators": spectators, "organiser": organiser})
        extra = {**extra, **(extra_more or {})}
        if not isinstance(game, str):
            raise MalformedMove("game must be a string", field="game")
        if not isinstance(options or {}, dict):
            raise MalformedMove("options must be an object", field="options")
        options = dict(options or {})
        seed = seed_text(options.pop("seed", None))
        stacked = seed is not None or any(options.get(k) is not None for k in DECK_OPTIONS)
        contributions = contributions_of(entries, stacked)
        # what the referee keeps: the seed of a stacked game, else the secret part the
        # seed derives from with the seats' contributions (referee/entropy.py)
        seed = seed or secret or secrets.token_hex(32)
        salt_key = secrets.token_hex(32)
        game_id = game_id or new_game_id()
        created = Table.created_event(game, game_id, players, options, seed, stacked, salt_key=salt_key,
                                      bots=bots, accounts=accounts, rated=rated, contributions=contributions)
        table = Table.from_created(created)
        # A bot seat has no token: the referee alone moves for it.
        seats = [{"seat": i, "name": n, "bot": bots[i]} if i in bots else
                 {"seat": i, "name": n, "token": new_token()} for i, n in enumerate(players)]
        for seat in seats:  # a seat's contacts, and its webhook secret shown this once
            seat.update(shown.get(seat["seat"], {}))
        admin = new_token()
        tokens = {token_hash(s["token"]): s["seat"] for s in seats if "token" in s} | \
            {admin_hash or token_hash(admin): ADMIN}
        # a seated player's own token acts for the seat too (referee/entries.py resolvers)
        tokens |= {e["token_hash"]: i for i, e in enumerate(entries) if e.get("token_hash") and i not in bots}
        extra |= entriesmod.on_tokens(self, game_id, tokens)  # e.g. each seat's page link in notices
        record = GameRecord(game_id, game, created.at, list(players), tokens, seed,
                            status=table.status, version=1, salt_key=salt_key,
                            extra=extra)
        self.store.create(record, created, timer=clockmod.next_timer(table), to_act=table.to_act())
        self._remember(game_id, table)
        # published before the deal is queued: followers hear the events in their order
        self.followers.publish(Appended(game_id, (created,), table, record, "created"))
        self.queue.enqueue_settle(game_id, table.seq)
        now = self.record(game_id)  # after the deal, when the queue ran it already (embedded)
        out = {"id": game_id, "game": game, "options": self._public_options(table, ADMIN),
               "version": now.version, "status": now.status, "seats": seats, "admin_token": admin,
               "seed_commitment": table.seed_commitment}
        self.receipted(out, game_id, created)
        out.update(shown_once)  # the spectators' webhook, the organiser's: secrets shown this once
        return out
