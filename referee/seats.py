"""Replacement seats: the admin gives an absent player's seat to someone new.

The seat gets a new token (the old one stops working at once in every process:
tokens are checked against the game's record in the store on every request, never
against a cache) and new contacts; the log gets a ``seat-replaced`` referee event
with the seat and the new name only (contacts never go into the log).

Retries: with an ``Idempotency-Key`` the replacement is made once. The new token
(and a new webhook's secret) are derived from the key and a private secret of the
game's record, so a retry with the same key gets the same token back without any
token being stored in clear; the record is rewritten again on a retry, which also
finishes a replacement whose process died between the event and the record.
Without a key, every call replaces the seat again (and gives another token).

A seat may also be given to a bot (``{"name", "bot": "random" | "basic"}``, or a
bot player, ``{"player": ID}``): the event then says ``bot``, the seat keeps no
token at all and the referee moves for it from then on; giving a bot's seat to a
person makes it a person's again. It is never given to a registered player who is
no bot: a player is seated only by their own act (403 ``forbidden``), and an
admin's token is nobody's consent but the admin's.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

from referee import entries
from referee.appended import Appended
from referee.caller import new_token, token_hash
from referee.errors import Forbidden, VersionConflict
from referee.events import Draft, canonical, utcnow
from referee.games.base import ADMIN, GameOver, MalformedMove
from referee.mail import contacts as contactsmod
from referee.mail import links
from referee.service import timer_after
from referee.store import Conflict, DuplicateRequest
from referee.table import SEAT_REPLACED


def replace(service, game_id: str, caller, seat, body, idempotency_key: str | None = None) -> dict:
    """``{seat, name, token, version, events}`` (and ``webhook_secret`` when a
    webhook is given: shown in this answer only)."""
    if caller.viewer != ADMIN:
        raise Forbidden("only the admin token may replace a seat's player")
    if not isinstance(body, dict):
        raise MalformedMove("the body is an object {name, email?, webhook?}", field="body")
    entry = entries.parse_player(body, None, service, where="")  # checked as at creation, fields as in the body
    bot = entry.get("bot")
    player = entry.get("player")  # a registered player (``{"player": ID}``): its token acts for the seat
    if player is not None and bot is None:
        # A player is seated only by their own act: an admin's token is no player's consent.
        raise Forbidden("a player is seated only by their own act: a seat is handed to a registered "
                        "player only if it is a bot player; hand it on by name (its new token is in "
                        "the answer, for whoever takes it)", field="player")
    if idempotency_key is not None and (not isinstance(idempotency_key, str) or not 1 <= len(idempotency_key) <= 200
                                        or not idempotency_key.isprintable() or not idempotency_key.isascii()):
        raise MalformedMove("Idempotency-Key must be 1 to 200 printable ASCII characters", field="Idempotency-Key")
    with service._lock(game_id):
        rec = service.record(game_id)
        if not isinstance(seat, int) or not 0 <= seat < len(rec.players):
            raise MalformedMove(f"seat must be a number from 0 to {len(rec.players) - 1}", field="seat")
        entries.check_unique(entry["name"], {i: n for i, n in enumerate(rec.players) if i != seat},
                             "player" if entry.get("player") else "name")
        table = service.load(game_id, rec)
        if table.over:
            raise GameOver("the game is already over")
        if player is not None and rec.tokens.get(entry["token_hash"], seat) != seat:
            raise MalformedMove("the player holds another seat of this game already", field="player")
        if bot is not None and all(s == seat or s in table.bots for s in range(len(rec.players))) \
                and table.engine.name == "castle-danger" and not table.state.options.get("turn_limit"):
            raise MalformedMove("a Castle Danger game of bots only needs a turn limit, and this one has "
                                "none: give the seat to a person", field="bot")
        if idempotency_key is None:
            token, idem = new_token(), None
            webhook_secret = contactsmod.new_webhook_secret()
        else:
            key = rec.extra.get("replace_key")
            if key is None:  # a private secret of the record, never shown or logged
                key = secrets.token_hex(32)
                rec.extra = {**rec.extra, "replace_key": key}
                service.store.put_record(rec)
            fingerprint = hashlib.sha256(canonical({"seat": seat, **body})).hexdigest()
            token = _derived(key, f"token:{seat}:{idempotency_key}")
            webhook_secret = "whsec_" + base64.b64encode(
                bytes.fromhex(_derived_hex(key, f"webhook:{seat}:{idempotency_key}"))[:24]).decode()
            idem = (f"replace:{idempotency_key}", fingerprint)
            earlier = service.store.answer(game_id, idem[0])
            if earlier is not None:
                answer = service._replayed(earlier, fingerprint)
                _rewrite(service, game_id, seat, entry, token, webhook_secret, answer["events"][0]["seq"])
                return _out(answer, seat, entry, token, webhook_secret)
        published = None  # this request's own append, once it has landed
        payload = {"seat": seat, "name": entry["name"], **({"bot": bot} if bot else {}),
                   **({"player": player} if player else {})}
        events, fork = table._extend([Draft(SEAT_REPLACED, payload)], "referee", utcnow(), rec.salt_secret)
        answer = service.receipted({"version": fork.seq, "status": fork.status,
                                    "events": [service._redact(fork, ev, caller.viewer) for ev in events]},
                                   game_id, events[-1])
        try:
            service.store.append(game_id, table.seq, events, status=fork.status,
                                 idem=(idem[0], {"fingerprint": idem[1], "answer": answer}) if idem else None,
                                 snapshot=service._snapshot(fork, table.seq),
                                 timer=timer_after(table, fork), to_act=fork.to_act())
        except Conflict as lost:
            service.forget(game_id)
            raise VersionConflict("the game moved on; try again", current_version=lost.current) from None
        except DuplicateRequest as dup:
            service.forget(game_id)
            answer = service._replayed(dup.answer, idem[1])
        else:
            table.commit(fork)
            published = Appended(game_id, tuple(events), fork, rec, "admin")
        _rewrite(service, game_id, seat, entry, token, webhook_secret, answer["events"][0]["seq"])
    if published is not None:
        service.followers.publish(published)
    if fork.due() is not None:  # a bot now to act: its move is the referee's next step
        service.queue.enqueue_settle(game_id, fork.seq)
        now = service.record(game_id)  # after the bot's move, when the queue made it already
        answer = {**answer, "version": now.version, "status": now.status}
    return _out(answer, seat, entry, token, webhook_secret)


def _rewrite(service, game_id: str, seat: int, entry: dict, token: str, webhook_secret: str, seq: int) -> None:
    """The record after the replacement: the seat's new token (its old one
    dropped), new name and new contacts (none kept from the old player)."""
    rec = service.record(game_id)
    tokens = {h: who for h, who in rec.tokens.items() if who != seat}  # the old link's too
    if not entry.get("bot"):  # a bot's seat has no token: nobody moves for it
        tokens[token_hash(token)] = seat
    if entry.get("token_hash") and not entry.get("bot"):  # a registered player's own token too
        tokens[entry["token_hash"]] = seat
    kept_links = dict(rec.extra.get("links", {}))
    links.register(service, game_id, tokens, kept_links, seat)  # the new player's page link
    rec.extra = {**rec.extra, "links": kept_links}
    rec.tokens = tokens
    rec.players = [entry["name"] if i == seat else n for i, n in enumerate(rec.players)]
    contact = {k: entry[k] for k in contactsmod.CONTACT_KEYS if k in entry}
    if "webhook" in contact:  # a registered player's webhook keeps the player's own secret
        contact["webhook_secret"] = entry.get("webhook_secret") or webhook_secret
    if entry.get("player"):
        contact["player"] = entry["player"]
    contactsmod.set_contact(rec, seat, contact)
    service.store.put_record(rec)


def _out(answer: dict, seat: int, entry: dict, token: str, webhook_secret: str) -> dict:
    if entry.get("bot"):
        return {"seat": seat, "name": entry["name"], "bot": entry["bot"], **answer}
    out = {"seat": seat, "name": entry["name"], "token": token, **answer}
    if entry.get("player"):  # the player's contacts and secrets stay the player's
        return {**out, "player": entry["player"]}
    if "webhook" in entry:
        out["webhook_secret"] = webhook_secret
    return out


def _derived_hex(key: str, what: str) -> str:
    return hmac.new(bytes.fromhex(key), what.encode(), hashlib.sha256).hexdigest()


def _derived(key: str, what: str) -> str:
    return base64.urlsafe_b64encode(bytes.fromhex(_derived_hex(key, what))[:24]).decode().rstrip("=")

