"""Players at creation and their private contacts.

A player is given as a name (``"Ann"``) or as an object ``{"name": "Ann",
"email": "ann@example.org", "webhook": "https://..."}``, each contact optional.
Only the name goes into the game's log; the contacts are kept beside the game's
record (never in the log, its export or any event), shown only to the admin and
to that seat, and the admin may change them.

The keys ``email`` and ``webhook`` of a player entry are checked here and kept
here (``keep``); both are registered with referee/entries.py, which reads every
entry, where the referee is put together (referee/system.py).
"""

from __future__ import annotations

import re
import secrets
from urllib.parse import urlsplit

from referee.errors import Forbidden, MalformedMove
from referee.games.base import ADMIN
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
        if entry.get("player"):
            # A player's own contacts (referee/players): the player's webhook secret,
            # which the player already has; shown to nobody here.
            contact["player"] = entry["player"]
            if "webhook" in contact:
                contact["webhook_secret"] = entry["webhook_secret"]
        elif "webhook" in contact:
            contact["webhook_secret"] = secrets_once[seat] = new_webhook_secret()
        kept[str(seat)] = contact
    return kept, secrets_once


def keep(entries: list[dict], asked: dict) -> tuple[dict, dict[int, dict], dict]:
    """What a new game keeps of its seats' contacts, of its spectators' webhook
    (``asked["spectators"]``) and of its organiser's contact (``asked["organiser"]``),
    for referee/entries.py: the record's private part (``contacts``, ``spectators``,
    ``organiser``), each seat's answer fields (its contacts, and its webhook secret
    shown this once), and the answer's own (the spectators' and the organiser's,
    secrets shown this once)."""
    watchers = parse_spectators(asked.get("spectators"))
    organiser = parse_organiser(asked.get("organiser"))
    kept, secrets_once = contacts_of(entries)
    seats = {}
    for seat, entry in enumerate(entries):
        if entry.get("player"):  # a player's contacts are the player's: the answer names the player
            seats[seat] = {"player": entry["player"]}
            continue
        shown = {k: entry[k] for k in CONTACT_KEYS if k in entry}
        if seat in secrets_once:
            shown["webhook_secret"] = secrets_once[seat]
        if shown:
            seats[seat] = shown
    extra = (({"contacts": kept} if kept else {}) | ({"spectators": watchers} if watchers else {})
             | ({"organiser": organiser} if organiser else {}))
    answer = ({"spectators": watchers} if watchers else {}) | ({"organiser": organiser} if organiser else {})
    return extra, seats, answer


def public_contact(contact: dict | None) -> dict:
    """A contact as shown to the admin or its seat: the secret is shown only once."""
    contact = contact or {}
    if contact.get("player"):  # a player's own contacts stay the player's (GET /v1/players/me)
        return {"email": None, "webhook": None, "player": contact["player"]}
    return {"email": contact.get("email"), "webhook": contact.get("webhook")}


def _owns(caller) -> bool:
    return caller.viewer == ADMIN


def contacts(service, game_id: str, caller) -> dict:
    """The contacts a caller may see: every seat's for the admin, its own for a
    seat; a spectator none (refused)."""
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
