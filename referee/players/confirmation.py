"""Confirming a player's e-mail address, so nobody can use the referee to mail strangers.

An address gets one confirmation message (a short code and, where the referee
knows its public address, a link) and nothing else until it is confirmed:

- At most one confirmation message per address per window (``REFEREE_CONFIRM_WINDOW``
  seconds, default a day), whoever asks: registering again, or changing a
  player's address to one that had its message within the window, mails nothing.
- The message holds nothing a registrant chose (not the name): only the code, the
  link and fixed words, so it cannot carry anybody's advertisement.
- The code is an HMAC of the player, the address and the moment it was issued,
  under the server's mail secret (referee/mail/sending.py ``mail_secret``): never
  stored, it works only for that player and address, until the window ends. Each
  client address may try ``MAX_TRIES`` codes per confirmation (``check``), and
  ``REFEREE_CONFIRM_RATE`` codes an hour across players (referee/api/limits.py).

The message is written as due in the player store first, then sent by a thread
at once and, if that fails, by ``deliver_due`` with backoff, each due message
claimed before it is sent (as notices are: referee/mail/sending.py), through
the same SMTP settings (``REFEREE_SMTP_URL``, ``REFEREE_MAIL_FROM``).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import threading
import time
from email.message import EmailMessage

from referee.games.base import MalformedMove, RefereeError
from referee.mail.secret import mail_secret
from referee.mail.sending import referee_message
from referee.narration import duration
from referee.players import due_mail
from referee.players.store import players_of

WINDOW = 86400.0
MAX_TRIES = 10
CODE_LENGTH = 8  # base32: 40 bits, and at most MAX_TRIES guesses


class WrongCode(RefereeError):
    code, status = "wrong-code", 403


class CodeExpired(RefereeError):
    code, status = "code-expired", 403


def window() -> float:
    """``REFEREE_CONFIRM_WINDOW``: seconds a code works and an address waits between
    confirmation messages (refused at use if it is not a positive number)."""
    given = os.environ.get("REFEREE_CONFIRM_WINDOW", "")
    value = float(given) if given else WINDOW
    if not value > 0:
        raise ValueError("REFEREE_CONFIRM_WINDOW must be a positive number of seconds")
    return value


def address_key(email: str) -> str:
    """The store's name for an address (a hash: no address in a shared key's name)."""
    return hashlib.sha256(email.strip().lower().encode()).hexdigest()


def _secret(service) -> bytes:
    return mail_secret(service)


def code_for(service, player_id: str, email: str, issued: float) -> str:
    mac = hmac.new(_secret(service), f"confirm|{player_id}|{email}|{issued!r}".encode(), hashlib.sha256)
    return base64.b32encode(mac.digest()).decode()[:CODE_LENGTH]


def issue(service, player_id: str, email: str, now: float | None = None) -> dict:
    """A new confirmation for ``email``; mailed only if the address has had no
    confirmation message within the window (else it waits, unmailed). Returns
    the ``confirm`` record to keep with the player; the caller writes it, then
    calls ``send_soon``."""
    players = players_of(service)
    now = time.time() if now is None else now
    mailed = players.claim_address(address_key(email), now, window())
    return {"email": email, "issued": now, "expires": now + window(), "mailed": mailed}


def send_soon(service, player_id: str, confirm: dict | None) -> None:
    """Queue the confirmation's message (when it is to be mailed) and try it at
    once on a thread of its own: the request that asked for it never waits for SMTP."""
    players = players_of(service)
    if confirm is None or not confirm.get("mailed") or confirm.get("confirmed"):
        players.mail_done(player_id)  # a message queued for an earlier address is not sent
        return
    players.queue_mail(player_id, confirm["issued"])
    threading.Thread(target=_quietly, args=(service,), daemon=True, name="confirmation-mail").start()


def _quietly(service) -> None:
    try:
        deliver_due(service)
    except Exception:  # the store away for a moment: the sender's next round sends it
        pass


def client_key(client: str) -> str:
    """The store's name for a client address (a hash: no address is kept)."""
    return hashlib.sha256(f"client|{client}".encode()).hexdigest()[:32]


def check(service, player: dict, code, client: str) -> dict:
    """The player's confirmation, confirmed by ``code``; refused (403, naming the
    field ``code``) when the code is wrong or expired, or when ``client`` (the
    asking client's address) has tried ``MAX_TRIES`` codes for this confirmation
    already. Each code is counted before it is compared, in one atomic step of the
    store, so however many arrive at once no client has more than ``MAX_TRIES``
    compared; and each client's tries are its own, so a stranger's guesses never
    stop the right code from working for its owner. Changes nothing but that count."""
    confirm = player.get("confirm")
    if not isinstance(code, str) or not 1 <= len(code) <= 64:
        raise MalformedMove("code is the code from the confirmation message", field="code")
    given = code.strip().replace("-", "").replace(" ", "").upper()
    if confirm is None:
        raise WrongCode("this player has no e-mail address waiting to be confirmed", field="code")
    if not players_of(service).take_try(player["id"], client_key(client), MAX_TRIES, window()):
        raise CodeExpired(f"{MAX_TRIES} codes were tried from this address: this confirmation no longer "
                          "works from here; set the address again once its window has passed", field="code")
    wanted = code_for(service, player["id"], confirm["email"], confirm["issued"])
    if not confirm.get("mailed") or not hmac.compare_digest(wanted, given):
        raise WrongCode("that is not the code sent to this player's address", field="code")
    if confirm.get("confirmed"):
        return confirm  # confirmed already (a link followed twice): the same answer
    if time.time() > confirm["expires"]:
        raise CodeExpired("the code has expired; set the address again to get a new one", field="code")
    return {**confirm, "confirmed": True}


# ---- the message ------------------------------------------------------------------------

def link(player_id: str, code: str) -> str | None:
    """The confirmation page's address, where the referee knows its own public
    address (``REFEREE_PUBLIC_URL``): never taken from a request's Host header,
    which a registrant could set to a site of their own to catch the code."""
    base = os.environ.get("REFEREE_PUBLIC_URL", "").rstrip("/")
    return f"{base}/players/{player_id}/confirm?code={code}" if base else None


def message(service, player: dict) -> EmailMessage:
    confirm = player["confirm"]
    code = code_for(service, player["id"], confirm["email"], confirm["issued"])
    msg = referee_message(confirm["email"], f"Your confirmation code: {code}",
                          f"confirm.{player['id']}.{int(confirm['issued'] * 1000)}")
    lines = ["Someone gave this address to a game referee (castle-referee) for a player account.",
             "", f"If it was you, confirm the address with the code {code}"]
    url = link(player["id"], code)
    lines += ([f"or by opening {url}"] if url else []) + [
        "", "If it was not you, do nothing: this address gets no other mail from the referee",
        "unless it is confirmed, and the code stops working after "
        f"{duration(window())}.", ""]
    msg.set_content("\n".join(lines))
    return msg


def _compose(service, key: str, now: float) -> EmailMessage | None:
    player = players_of(service).get(key)
    confirm = (player or {}).get("confirm")
    if not confirm or not confirm.get("mailed") or confirm.get("confirmed") or confirm["expires"] < now:
        return None  # nothing to send any more
    return message(service, player)


# a confirmation's key is its player's id (no player id holds a dot; the other kinds' keys do)
DUE = due_mail.DueKind(owns=lambda key: "." not in key, compose=_compose)


def deliver_due(service, now: float | None = None, limit: int = 50) -> int:
    """Send every confirmation message due now; returns how many were sent. Safe in
    several processes at once: each message is claimed before it is sent."""
    return due_mail.deliver(service, [DUE], now, limit)
