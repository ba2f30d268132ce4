"""What the player endpoints do: register, profile, the player's own page, contacts,
confirmation, rating history. Each refusal is a RefereeError (problem+json naming
the field) and writes nothing.

What a profile shows is public: name, bot, ratings, games played and won. Never a
token or its hash, never contacts (those only in the player's own ``me``), never
a hand (a profile holds no game's state at all).
"""

from __future__ import annotations

import hmac
import time

from referee.caller import token_hash
from referee.entries import check_name
from referee.errors import Unauthenticated
from referee.events import utcnow
from referee.games.base import MalformedMove, RefereeError
from referee.mail.contacts import check_email, check_webhook, new_webhook_secret
from referee.players import confirmation, current, recovery
from referee.players.ratings import initial
from referee.players.store import new_player_id, new_player_token, player_of_token, players_of

BOTS = ("random", "basic")


class NoSuchPlayer(RefereeError):
    code, status = "no-such-player", 404


def _name(value) -> str:
    if not isinstance(value, str) or not 1 <= len(value) <= 100 or not value.strip():
        raise MalformedMove("name is a string of 1 to 100 characters", field="name")
    return check_name(value, "name")


def register(service, body: dict) -> dict:
    """A new player: ``{name, email?, webhook?}`` or ``{name, bot}``. Returns
    ``{id, name, token, bot?, webhook_secret?, email?, email_confirmed?}``; the token
    and the webhook secret are shown this once (only their hash and the secret's
    signing use are kept)."""
    if not isinstance(body, dict):
        raise MalformedMove("the body is an object {name, email?, webhook?} or {name, bot}", field="body")
    unknown = sorted(set(body) - {"name", "email", "webhook", "bot"})
    if unknown:
        raise MalformedMove(f"unknown field {unknown[0]!r}", field=unknown[0])
    name = _name(body.get("name"))
    bot = body.get("bot")
    if bot is not None and bot not in BOTS:
        raise MalformedMove(f"bot is one of {', '.join(BOTS)}", field="bot")
    email = check_email(body.get("email"), "email")
    webhook = check_webhook(body.get("webhook"), "webhook")
    if bot and (email or webhook):
        raise MalformedMove("a bot has no contacts", field="email" if email else "webhook")
    pid = new_player_id()
    token = new_player_token(pid)
    contacts: dict = {}
    if webhook:
        contacts.update(webhook=webhook, webhook_secret=new_webhook_secret())
    confirm = None
    if email:
        contacts.update(email=email, email_confirmed=False)
        confirm = confirmation.issue(service, pid, email)
    player = {"id": pid, "name": name, "bot": bot, "created": utcnow()}
    players_of(service).create(player, token_hash(token), contacts, confirm)
    confirmation.send_soon(service, pid, confirm)
    out = {"id": pid, "name": name, "token": token}
    if bot:
        out["bot"] = bot
    if email:
        out.update(email=email, email_confirmed=False)
    if webhook:
        out["webhook_secret"] = contacts["webhook_secret"]
    return out


def _player(service, player_id) -> dict:
    found = players_of(service).get(player_id) if isinstance(player_id, str) and len(player_id) <= 100 else None
    if found is None:
        raise NoSuchPlayer(f"no player {player_id!r}")
    return found


def player_record(service, player_id) -> dict:
    """The player's whole record, private parts too, or 404 ``no-such-player``: for a
    caller that needs to know the player exists, not its profile."""
    return _player(service, player_id)


def profile(service, player_id: str, after: str | None = None, limit: int = current.PAGE) -> dict:
    """The public profile: read from the player's aggregates, never its history; its
    current games a page at a time (``after``: the cursor of the page before)."""
    player = _player(service, player_id)
    return public(service, player, current.read(service, player["id"]), after, limit)


def public(service, player: dict, games: list, after: str | None = None, limit: int = current.PAGE) -> dict:
    """The profile of ``player`` with a page of ``games`` (``current.read``)."""
    players = players_of(service)
    stats = players.stats(player["id"])
    shown, more = current.page(service, games, after, limit)
    return {"id": player["id"], "name": player["name"], "bot": player["bot"], "created": player["created"],
            "ratings": players.ratings(player["id"]), "games": stats,
            "played": sum(s["played"] for s in stats.values()), "won": sum(s["won"] for s in stats.values()),
            "current_games": shown, "current_games_next": more,
            # (the leagues room follows the players': referee/system.py hands its finder over)
            "leagues": [lg for find in service.leagues_of for lg in find(service, player["id"])],
            **(service.player_settings.public(player["id"]) if service.player_settings else {})}


def authenticate(service, token: str | None) -> dict:
    """The player a bearer token belongs to; 401 otherwise."""
    if not token:
        raise Unauthenticated("send Authorization: Bearer <player token>")
    pid = player_of_token(token)
    player = players_of(service).get(pid) if pid else None
    if player is None:
        raise Unauthenticated("the token is no player's")
    presented = token_hash(token)
    if not hmac.compare_digest(player["token_hash"], presented):
        player = recovery.take_over(service, player, presented)  # a mailed token's first use, or None
        if player is None:
            raise Unauthenticated("the token is no player's")
    return player


def is_players_token(service, token: str | None) -> bool:
    """Whether the token is some player's (asked by the service of a token that no
    seat of a game holds: a known caller is refused 403 there, not 401)."""
    try:
        authenticate(service, token)
    except Unauthenticated:
        return False
    return True


def me(service, token: str | None, after: str | None = None, limit: int = current.PAGE) -> dict:
    """The caller's own profile: a page of its current games, its contacts and the
    games waiting on it (at most ``current.WAITING``)."""
    player = authenticate(service, token)
    games = current.read(service, player["id"])
    settings = service.player_settings.show(player["id"]) if service.player_settings else {}
    return {**public(service, player, games, after, limit), "contacts": private(player),
            "waiting": current.waiting(service, games), **settings}


def private(player: dict) -> dict:
    """The player's contacts as shown to the player (the webhook secret never again)."""
    contacts, confirm = player["contacts"], player.get("confirm") or {}
    return {"email": contacts.get("email"), "email_confirmed": bool(contacts.get("email_confirmed")),
            "confirmation_mailed": bool(contacts.get("email") and not contacts.get("email_confirmed")
                                        and confirm.get("email") == contacts.get("email") and confirm.get("mailed")),
            "webhook": contacts.get("webhook")}


def change(service, token: str | None, body: dict) -> dict:
    """Change or remove the caller's contacts, and change their calendar settings
    (referee/calendar, when the service was handed it): a key given replaces (null
    removes a contact), a key left out stays. A changed address starts unconfirmed, with a new
    confirmation (mailed only if the address has had none within the window); a
    new webhook URL gets a new secret, shown in this answer once."""
    player = authenticate(service, token)
    if not isinstance(body, dict):
        raise MalformedMove("the body is an object {email?, webhook?, settings...}", field="body")
    calendar = service.player_settings
    known = {"email", "webhook"} | set(calendar.FIELDS if calendar else ())
    unknown = sorted(set(body) - known)
    if unknown:
        raise MalformedMove(f"unknown field {unknown[0]!r}; the fields are {', '.join(sorted(known))}",
                            field=unknown[0])
    if player["bot"] and any(body.get(k) is not None for k in ("email", "webhook")):
        raise MalformedMove("a bot has no contacts", field="email" if body.get("email") else "webhook")
    contacts, confirm = dict(player["contacts"]), player.get("confirm")
    email = check_email(body["email"], "email") if "email" in body else contacts.get("email")
    webhook = check_webhook(body["webhook"], "webhook") if "webhook" in body else contacts.get("webhook")
    # every field is checked before anything is written: a bad one changes nothing
    settings = calendar.check({k: v for k, v in body.items() if k in calendar.FIELDS}) if calendar else {}
    secret = None
    if webhook != contacts.get("webhook"):
        contacts.pop("webhook", None)
        contacts.pop("webhook_secret", None)
        if webhook:
            contacts.update(webhook=webhook, webhook_secret=(secret := new_webhook_secret()))
    fresh = False
    if "email" in body and email and email == contacts.get("email") and not contacts.get("email_confirmed") \
            and (confirm is None or not confirm.get("mailed") or confirm["expires"] < time.time()):
        # the same address again, its code never mailed or expired: a new one, if the
        # address's window allows a message
        confirm, fresh = confirmation.issue(service, player["id"], email), True
    elif email != contacts.get("email"):
        contacts.pop("email", None)
        contacts.pop("email_confirmed", None)
        confirm = None
        if email:
            contacts.update(email=email, email_confirmed=False)
            confirm, fresh = confirmation.issue(service, player["id"], email), True
    players_of(service).update(player["id"], contacts, confirm)
    if settings:
        calendar.change(player["id"], settings)
    if fresh or confirm is None:
        confirmation.send_soon(service, player["id"], confirm)
    out = me(service, token)
    if secret:
        out["webhook_secret"] = secret
    return out


def confirm(service, player_id: str, code, client: str) -> dict:
    """Confirm the player's address with the code from its message, sent by the
    client at address ``client`` (its tries are counted apart from others')."""
    player = _player(service, player_id)
    done = confirmation.check(service, player, code, client)
    contacts = {**player["contacts"], "email_confirmed": True}
    if not player["contacts"].get("email_confirmed"):
        players_of(service).update(player["id"], contacts, done)
        players_of(service).own_address(confirmation.address_key(done["email"]), player["id"])
        confirmation.send_soon(service, player["id"], done)  # nothing more to send
    return {"id": player["id"], "email_confirmed": True}


def history(service, player_id: str, game: str, after: int = 0, limit: int = 100) -> dict:
    """One page of the player's rating history for ``game``, oldest first."""
    player = _player(service, player_id)
    entries = players_of(service).history(player["id"], game, after, limit + 1)
    page = entries[:limit]
    return {"id": player["id"], "game": game,
            "rating": players_of(service).ratings(player["id"]).get(game) or initial(),
            "history": page, "next": page[-1]["n"] if len(entries) > limit else None}


def seat_resolver(service, player_id, field: str) -> dict:
    """A seat given as ``{"player": ID}`` (registered with referee/entries.py)."""
    return seat_of(service, player_id, field)


def seat_of(service, player_id, field: str = "players") -> dict:
    """What a game seat ``{"player": ID}`` takes from the player (for the game
    layer): ``{name, player, bot?, email?, webhook?, webhook_secret?}`` with the
    e-mail only once confirmed, and ``token_hash``, the hash of the player's token,
    to put among the game's token hashes so the player's token acts for the seat.
    Unknown player: 400 naming ``field``."""
    player = players_of(service).get(player_id) if isinstance(player_id, str) and len(player_id) <= 100 else None
    if player is None:
        raise MalformedMove(f"no player {player_id!r}", field=field)
    out = {"name": player["name"], "player": player["id"], "token_hash": player["token_hash"]}
    if player["bot"]:
        out["bot"] = player["bot"]
    contacts = player["contacts"]
    if contacts.get("email") and contacts.get("email_confirmed"):
        out["email"] = contacts["email"]
    if contacts.get("webhook"):
        out.update(webhook=contacts["webhook"], webhook_secret=contacts["webhook_secret"])
    return out
