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

import ipaddress
import os
import re
import secrets
import socket
from collections.abc import Callable
from urllib.parse import urlsplit

from referee.games.base import MalformedMove

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


def private_webhooks_allowed() -> bool:
    return os.environ.get("REFEREE_WEBHOOK_ALLOW_PRIVATE", "") in ("1", "true", "yes")


def _private(host: str) -> bool:
    """Whether ``host`` is, or resolves to, an address the referee must not be
    made to call (loopback, private, link-local, reserved): a webhook there would
    let anyone who creates a game send requests into the referee's own network."""
    try:
        addresses = [ipaddress.ip_address(host.strip("[]"))]
    except ValueError:
        try:
            infos = socket.getaddrinfo(host, None)
        except (socket.gaierror, UnicodeError, OSError):
            return False  # unresolvable now: checked again when a notice is sent
        addresses = [ipaddress.ip_address(i[4][0].split("%")[0]) for i in infos]
    return any(a.is_private or a.is_loopback or a.is_link_local or a.is_reserved
               or a.is_multicast or a.is_unspecified for a in addresses)


def check_webhook(value, field: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or len(value) > MAX_URL:
        raise MalformedMove(f"webhook must be an http(s) URL of at most {MAX_URL} characters", field=field)
    try:
        parts = urlsplit(value)
        host = parts.hostname
        parts.port  # noqa: B018 - raises on a bad port
    except ValueError:
        host = None
    if parts.scheme not in ("http", "https") or not host:
        raise MalformedMove("webhook must be an http(s) URL", field=field)
    if not private_webhooks_allowed() and _private(host):
        raise MalformedMove("webhook URLs on loopback or private addresses are refused "
                            "(set REFEREE_WEBHOOK_ALLOW_PRIVATE=1 to allow them)", field=field)
    return value


# key -> checker(value, field) returning the value to keep. Other features add
# theirs here (e.g. PLAYER_FIELDS["bot"] = check_bot) at import time.
PLAYER_FIELDS: dict[str, Callable] = {"email": check_email, "webhook": check_webhook}


def _at(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def parse_player(entry, index: int | None, where: str | None = None) -> dict:
    """One player entry as ``{"name": ..., <registered key>: value, ...}``; the
    name trimmed of spaces at its ends. ``where``: how refusals name the entry
    (``players[INDEX]`` by default; ``""`` for a body that is one player, as a
    seat's replacement is)."""
    where = f"players[{index}]" if where is None else where
    if isinstance(entry, str):
        entry = {"name": entry}
    if not isinstance(entry, dict):
        raise MalformedMove("a player is a name or an object {name, email, webhook}", field=where or "body")
    name = entry.get("name")
    if isinstance(name, str):
        name = name.strip()
    if not isinstance(name, str) or not 1 <= len(name) <= 100:
        raise MalformedMove("a player's name is a string of 1 to 100 characters, not only spaces",
                            field=_at(where, "name"))
    out = {"name": name}
    for key, value in entry.items():
        if key == "name":
            continue
        checker = PLAYER_FIELDS.get(key)
        if checker is None:
            raise MalformedMove(f"unknown player field {key!r}; a player may have "
                                f"{', '.join(['name', *PLAYER_FIELDS])}", field=_at(where, key))
        checked = checker(value, _at(where, key))
        if checked is not None:
            out[key] = checked
    return out


def same_name(a: str, b: str) -> bool:
    """Whether two names would read as one player's ("Ann" and " ann")."""
    return a.strip().casefold() == b.strip().casefold()


def check_unique(name: str, others: dict[int, str], field: str) -> None:
    """Refuse ``name`` if another seat (``others``: seat -> name) has it already:
    notices, pages and results speak of players by name, so two Anns would be one."""
    for seat, other in sorted(others.items()):
        if same_name(name, other):
            raise MalformedMove(f"{name!r} is already the name of seat {seat} ({other}); each player "
                                "needs a name of their own (names are compared without case and "
                                "spaces at the ends)", field=field)


def parse_players(players) -> list[dict]:
    """Every player entry checked: a list of ``{"name", ...}`` in seat order, no
    two with the same name."""
    if not isinstance(players, list) or not 1 <= len(players) <= 16:
        raise MalformedMove("players must be a list of 1 to 16 names or objects", field="players")
    entries = [parse_player(p, i) for i, p in enumerate(players)]
    for i, entry in enumerate(entries):
        check_unique(entry["name"], {j: e["name"] for j, e in enumerate(entries[:i])}, f"players[{i}].name")
    return entries


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
        out["organiser"] = public_contact(rec.extra.get("organiser"))
    return out


def change(service, game_id: str, caller, seat, body: dict) -> dict:
    """The admin changes one seat's contacts: keys given replace, null clears, keys
    left out stay. A new webhook URL gets a new secret, shown in this answer once."""
    from referee.service import Forbidden

    if not _owns(caller):
        raise Forbidden("only the admin token may change a seat's contacts")
    check_keys(body, "")
    with service._lock(game_id):
        rec = service.record(game_id)
        if not isinstance(seat, int) or not 0 <= seat < len(rec.players):
            raise MalformedMove(f"seat must be a number from 0 to {len(rec.players) - 1}", field="seat")
        contact, secret = merged(rec.extra.get("contacts", {}).get(str(seat), {}), body)
        set_contact(rec, seat, contact)
        service.store.put_record(rec)
    out = {"seat": seat, "name": rec.players[seat], **public_contact(contact)}
    if secret is not None:
        out["webhook_secret"] = secret
    return out


def check_keys(body, where: str) -> None:
    """A contact's body is an object of CONTACT_KEYS: anything else is refused by name."""
    if not isinstance(body, dict):
        raise MalformedMove("a contact is an object {email, webhook}", field=where or "body")
    for key in body:
        if key not in CONTACT_KEYS:
            raise MalformedMove(f"unknown contact field {key!r}; a contact has email and webhook",
                                field=f"{where}.{key}" if where else key)


def merged(kept: dict | None, body: dict, where: str = "") -> tuple[dict, str | None]:
    """``kept`` changed by ``body`` (keys given replace, null clears, keys left out
    stay) and checked, and the new webhook's secret when a URL is set (else None)."""
    contact = dict(kept or {})
    at = (lambda key: f"{where}.{key}") if where else (lambda key: key)
    checked = {"email": check_email(body["email"], at("email"))} if "email" in body else {}
    if "webhook" in body:
        checked["webhook"] = check_webhook(body["webhook"], at("webhook"))
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
    return contact, secret


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


# ---- the organiser's contact ----------------------------------------------------------
# One per game, given by the admin like a seat's: it hears what the organiser must
# act on (a seat's timeout, the game's end, a notice that cannot be delivered),
# written from what an onlooker may see (an organiser may also be a player).


def parse_organiser(value) -> dict | None:
    """``{email?, webhook?}`` given at creation, checked, with a new webhook's
    secret; None when not given or empty."""
    if value is None:
        return None
    check_keys(value, "organiser")
    contact, _ = merged({}, value, "organiser")
    return contact or None


def change_organiser(service, game_id: str, caller, body: dict) -> dict:
    """The admin sets or changes the organiser's contact, as a seat's is changed:
    keys given replace, null clears, keys left out stay; a new webhook URL gets a
    new secret, shown in this answer once."""
    from referee.service import Forbidden

    if not _owns(caller):
        raise Forbidden("only the admin token may change the organiser's contact")
    check_keys(body, "")
    with service._lock(game_id):
        rec = service.record(game_id)
        contact, secret = merged(rec.extra.get("organiser"), body)
        extra = dict(rec.extra)
        if contact:
            extra["organiser"] = contact
        else:
            extra.pop("organiser", None)
        rec.extra = extra
        service.store.put_record(rec)
    out = public_contact(contact)
    if secret is not None:
        out["webhook_secret"] = secret
    return out
