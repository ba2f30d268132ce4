"""Players at creation and their private contacts.

A player is given as a name (``"Ann"``) or as an object ``{"name": "Ann",
"email": "ann@example.org", "webhook": "https://..."}``, each contact optional.
Only the name goes into the game's log; the contacts are kept beside the game's
record (never in the log, its export or any event), shown only to the admin and
to that seat, and the admin may change them.

``parse_players`` is the one place player entries are read: other features that
add a key to a player object (a bot, say) register it in ``PLAYER_FIELDS`` with
a checker and read it from the returned entries, so every key is checked once
and an unknown key is refused by name.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable
from urllib.parse import urlsplit

from referee.games.base import MalformedMove
from referee.mail import webhooks

# A plain address check, not RFC 5322 in full: one @, no spaces or angle brackets,
# a dotted domain. Whether the address exists only the mail system can tell.
EMAIL = re.compile(r"^[^@\s<>,;\"]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?"
                   r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?)+$")
MAX_URL = 2000
# The contact keys this module keeps private; every other registered key is the
# business of whoever registered it.
CONTACT_KEYS = ("email", "webhook")


def check_email(value, field: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or len(value) > 254 or not EMAIL.match(value):
        raise MalformedMove("email must be an address such as ann@example.org", field=field)
    return value


def check_webhook(value, field: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or len(value) > MAX_URL:
        raise MalformedMove(f"webhook must be an http(s) URL of at most {MAX_URL} characters", field=field)
    try:
        parts = urlsplit(value)
        scheme, host = parts.scheme, parts.hostname
        parts.port  # noqa: B018 - raises on a bad port
    except ValueError:  # a bad port, or brackets that hold no IPv6 address
        scheme = host = None
    if scheme not in ("http", "https") or not host:
        raise MalformedMove("webhook must be an http(s) URL", field=field)
    why = webhooks.host_refusal(host)  # the referee calls no address of its own network
    if why:
        raise MalformedMove(f"webhook refused: {why}; only globally routable addresses are called "
                            "(REFEREE_WEBHOOK_ALLOW_PRIVATE=1 allows others)", field=field)
    return value


# key -> checker(value, field) returning the value to keep. Other features add
# theirs here (e.g. PLAYER_FIELDS["bot"] = check_bot) at import time.
PLAYER_FIELDS: dict[str, Callable] = {"email": check_email, "webhook": check_webhook}


def parse_player(entry, index: int) -> dict:
    """One player entry as ``{"name": ..., <registered key>: value, ...}``."""
    where = f"players[{index}]"
    if isinstance(entry, str):
        entry = {"name": entry}
    if not isinstance(entry, dict):
        raise MalformedMove("a player is a name or an object {name, email, webhook}", field=where)
    name = entry.get("name")
    if not isinstance(name, str) or not 1 <= len(name) <= 100:
        raise MalformedMove("a player's name is a string of 1 to 100 characters", field=f"{where}.name")
    out = {"name": name}
    for key, value in entry.items():
        if key == "name":
            continue
        checker = PLAYER_FIELDS.get(key)
        if checker is None:
            raise MalformedMove(f"unknown player field {key!r}; a player may have "
                                f"{', '.join(['name', *PLAYER_FIELDS])}", field=f"{where}.{key}")
        checked = checker(value, f"{where}.{key}")
        if checked is not None:
            out[key] = checked
    return out


def parse_players(players) -> list[dict]:
    """Every player entry checked: a list of ``{"name", ...}`` in seat order."""
    if not isinstance(players, list) or not 1 <= len(players) <= 16:
        raise MalformedMove("players must be a list of 1 to 16 names or objects", field="players")
    return [parse_player(p, i) for i, p in enumerate(players)]


def new_webhook_secret() -> str:
    """A Standard Webhooks secret: ``whsec_`` and base64 of 24 random bytes."""
    import base64

    return "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode()


def contacts_of(entries: list[dict]) -> tuple[dict[str, dict], dict[int, str]]:
    """The private contacts to keep (seat number as text -> {email, webhook,
    webhook_secret}) and the webhook secrets to show once, by seat."""
    kept: dict[str, dict] = {}
    secrets_once: dict[int, str] = {}
    for seat, entry in enumerate(entries):
        contact = {k: entry[k] for k in CONTACT_KEYS if k in entry}
        if not contact:
            continue
        if "webhook" in contact:
            contact["webhook_secret"] = secrets_once[seat] = new_webhook_secret()
        kept[str(seat)] = contact
    return kept, secrets_once


def public_contact(contact: dict | None) -> dict:
    """A contact as shown to the admin or its seat: the secret is shown only once."""
    contact = contact or {}
    return {"email": contact.get("email"), "webhook": contact.get("webhook")}


def _owns(caller) -> bool:
    from referee.games.base import ADMIN

    return caller.viewer == ADMIN


def contacts(service, game_id: str, caller) -> dict:
    """The contacts a caller may see: every seat's for the admin, its own for a
    seat; a spectator none (refused)."""
    from referee.service import Forbidden

    rec = caller.record if caller.record is not None and caller.record.id == game_id else service.record(game_id)
    kept = rec.extra.get("contacts", {})
    if _owns(caller):
        seats = range(len(rec.players))
    elif caller.seat is not None:
        seats = [caller.seat]
    else:
        raise Forbidden("contacts are shown only to the admin and to their own seat")
    out = {"id": game_id, "contacts": [{"seat": i, "name": rec.players[i], **public_contact(kept.get(str(i)))}
                                       for i in seats]}
    if _owns(caller):
        out["spectators"] = public_spectators(rec.extra.get("spectators"))
    return out


def change(service, game_id: str, caller, seat, body: dict) -> dict:
    """The admin changes one seat's contacts: keys given replace, null clears, keys
    left out stay. A new webhook URL gets a new secret, shown in this answer once."""
    from referee.service import Forbidden

    if not _owns(caller):
        raise Forbidden("only the admin token may change a seat's contacts")
    if not isinstance(body, dict):
        raise MalformedMove("the body is an object {email, webhook}", field="body")
    for key in body:
        if key not in CONTACT_KEYS:
            raise MalformedMove(f"unknown contact field {key!r}; a contact has email and webhook", field=key)
    with service._lock(game_id):
        rec = service.record(game_id)
        if not isinstance(seat, int) or not 0 <= seat < len(rec.players):
            raise MalformedMove(f"seat must be a number from 0 to {len(rec.players) - 1}", field="seat")
        contact = dict(rec.extra.get("contacts", {}).get(str(seat), {}))
        checked = {"email": check_email(body["email"], "email")} if "email" in body else {}
        if "webhook" in body:
            checked["webhook"] = check_webhook(body["webhook"], "webhook")
        secret = None
        for key, value in checked.items():
            if value is None:
                contact.pop(key, None)
            else:
                contact[key] = value
        if "webhook" not in contact:
            contact.pop("webhook_secret", None)
        elif checked.get("webhook") is not None:
            contact["webhook_secret"] = secret = new_webhook_secret()
        set_contact(rec, seat, contact)
        service.store.put_record(rec)
    out = {"seat": seat, "name": rec.players[seat], **public_contact(contact)}
    if secret is not None:
        out["webhook_secret"] = secret
    return out


def set_contact(rec, seat: int, contact: dict) -> None:
    """Put ``seat``'s contact (an empty one removes it) into the game's record,
    beside the log and never in it; the caller writes the record."""
    kept = dict(rec.extra.get("contacts", {}))
    if contact:
        kept[str(seat)] = contact
    else:
        kept.pop(str(seat), None)
    rec.extra = {**rec.extra, "contacts": kept}


# ---- the spectators' webhook ----------------------------------------------------------
# One per game, for a forum bot or a league page: it hears what an onlooker may
# see (the spectator's view and events), after every change, never a seat's hand.


def parse_spectators(value) -> dict | None:
    """``{"webhook": URL}`` given at creation, checked; None when not given."""
    if value is None:
        return None
    if not isinstance(value, dict) or set(value) - {"webhook"}:
        raise MalformedMove("spectators is an object {webhook}", field="spectators")
    url = check_webhook(value.get("webhook"), "spectators.webhook")
    return {"webhook": url, "webhook_secret": new_webhook_secret()} if url else None


def public_spectators(kept: dict | None) -> dict:
    return {"webhook": (kept or {}).get("webhook")}


def change_spectators(service, game_id: str, caller, body: dict) -> dict:
    """The admin sets (a new secret, shown once) or clears (null) the spectators' webhook."""
    from referee.service import Forbidden

    if not _owns(caller):
        raise Forbidden("only the admin token may change the spectators' webhook")
    if not isinstance(body, dict) or set(body) - {"webhook"} or "webhook" not in body:
        raise MalformedMove("the body is an object {webhook}: a URL, or null to stop", field="body")
    url = check_webhook(body["webhook"], "webhook")
    with service._lock(game_id):
        rec = service.record(game_id)
        extra = dict(rec.extra)
        kept = {"webhook": url, "webhook_secret": new_webhook_secret()} if url else None
        if kept:
            extra["spectators"] = kept
        else:
            extra.pop("spectators", None)
        rec.extra = extra
        service.store.put_record(rec)
    out = public_spectators(kept)
    if kept:
        out["webhook_secret"] = kept["webhook_secret"]
    return out
