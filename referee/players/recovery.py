"""A lost token: a player's confirmed address can ask for a new one by e-mail
(``POST /v1/players/recover {"email": ...}``). The new token is in that e-mail and
nowhere else: no answer, page or log line holds it; the store keeps only its hash.

Nobody learns from asking whether an address is a player's: every well-formed
request gets the same 202 answer, whatever the address, whether a message goes out
or not, and gets it before anything is looked up (a thread does that), so its timing
tells nothing either (a malformed address is 400 naming ``email``, as anywhere).
The message goes
only to an address a player has *confirmed*, and is the player's own
(``address_owner`` and the player's contacts agree), and to one address at most once
an ``EVERY`` (an hour) whoever asks; requests are also counted per client address
(``REFEREE_RECOVER_RATE``, referee/api/limits.py).

**A stranger asking cannot lock the owner out.** The old token goes on working
until the mailed one is first used: that first use (any player request with it,
such as the page ``/me`` the message links to) makes it the player's token, and
only then does the old one stop working, everywhere. Asking proves nothing, and
whoever asks for somebody else's address only sends its owner a token they may
ignore. Revoking on request instead would let anyone who knows an address lock its
owner out of every game until the mail arrives, and for good if it never does. A
mailed token works for ``LIFE`` (a day) and only the latest: a new message (asked
again, or sent again after a failed delivery) makes the one before useless.

When it takes over, each game the player holds a seat in and that has not ended
is told the new hash in place of the old, and the seat's notice link is derived
again from it (the old links were derived from the old token): so the new token
acts there as the old did, and the old one acts nowhere. A finished game keeps the
old hash; there a seat's token only reads what anybody may read once it is over.

The message is written as due in the player store first (``recover.PLAYER``), then
sent by a thread at once and, if that fails, by the sender's rounds with backoff
(``deliver_due``), each claimed before it is sent, as the confirmation messages are.
Each attempt makes the token it mails (and keeps its hash), so none is kept to send.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import threading
import time
from email.message import EmailMessage

from referee.caller import token_hash
from referee.games.base import MalformedMove
from referee.mail import links, sending
from referee.mail.contacts import check_email
from referee.players import due_mail
from referee.players.confirmation import address_key
from referee.players.store import new_player_token, players_of

PREFIX = "recover."  # a due message's key: no player id holds a dot
EVERY = 3600.0  # seconds between two messages to one address, whoever asks
LIFE = 86400.0  # seconds a mailed token works, until first used
ASKED = {"detail": "if this address is a player's confirmed address, a new token is on its way to it; "
                   "the old token works until the new one is first used"}


def _address_claim(email: str) -> str:
    """The store's name for an address's recovery messages (apart from its confirmations)."""
    return hashlib.sha256(f"recover|{email.strip().lower()}".encode()).hexdigest()


def _owner(players, email: str) -> dict | None:
    """The player whose confirmed address ``email`` is now, or None."""
    pid = players.address_owner(address_key(email))
    player = players.get(pid) if pid else None
    contacts = (player or {}).get("contacts", {})
    if player is None or player["bot"] or not contacts.get("email_confirmed") \
            or address_key(contacts.get("email") or "") != address_key(email):
        return None
    return player


def ask(service, body: dict, now: float | None = None) -> dict:
    """Mail a new token to the player whose confirmed address ``body["email"]`` is, at
    most once an ``EVERY`` for the address; the same answer whatever happens."""
    email = check_email(body.get("email"), "email")
    if not email:
        raise MalformedMove("email is the player's confirmed address", field="email")
    # Whose the address is, and whether it may be mailed now, is looked up on a thread
    # of its own, for every address alike: the answer goes out before, so not even
    # its timing tells a known address from an unknown one.
    threading.Thread(target=_quietly, args=(service, email, time.time() if now is None else now),
                     daemon=True, name="recovery-mail").start()
    return dict(ASKED)


def _asked(service, email: str, now: float) -> None:
    """Queue the message for ``email`` if it is a player's confirmed address and has
    had none within ``EVERY``, and try to send it at once."""
    players = players_of(service)
    player = _owner(players, email)
    if player is not None and players.claim_address(_address_claim(email), now, EVERY):
        players.queue_mail(PREFIX + player["id"], now)
        deliver_due(service)


def _quietly(service, email: str, now: float) -> None:
    try:
        _asked(service, email, now)
    except Exception:  # the store away for a moment: a message queued is sent by the sender's rounds
        pass


def take_over(service, player: dict, presented: str, now: float | None = None) -> dict | None:
    """The player with the mailed token (hash ``presented``) made its token, when that
    is the token mailed last and still in its ``LIFE``; else None. The old token stops
    working, in every game of the player's that has not ended too."""
    players = players_of(service)
    pending = players.recovery_get(player["id"])
    now = time.time() if now is None else now
    if pending is None or pending["expires"] < now or not hmac.compare_digest(pending["hash"], presented):
        return None
    old = player["token_hash"]
    if not players.recovery_take(player["id"], old, presented):
        found = players.get(player["id"])  # taken over meanwhile by another request with it
        return found if found is not None and hmac.compare_digest(found["token_hash"], presented) else None
    carry_over(service, player["id"], old, presented)
    return {**player, "token_hash": presented}


def carry_over(service, player_id: str, old: str, new: str) -> None:
    """Each current game of the player's: the new token's hash in place of the old,
    and the seat's notice link derived again from it."""
    for game_id, seat in players_of(service).seats(player_id).items():
        with service._lock(game_id):
            rec = service.store.record(game_id)
            if rec is None or rec.tokens.get(old) != seat:
                continue
            tokens = {(new if h == old else h): who for h, who in rec.tokens.items()}
            kept_links = dict(rec.extra.get("links", {}))
            if str(seat) in kept_links:
                links.register(service, game_id, tokens, kept_links, seat)
                rec.extra = {**rec.extra, "links": kept_links}
            rec.tokens = tokens
            service.store.put_record(rec)
            service.forget(game_id)


# ---- the message ----------------------------------------------------------------------

def message(player: dict, to: str, token: str) -> EmailMessage:
    msg = sending.referee_message(to, "Your new player token", f"recover.{player['id']}.{int(time.time() * 1000)}")
    base = os.environ.get("REFEREE_PUBLIC_URL", "").rstrip("/")
    lines = ["Someone asked a game referee (castle-referee) for a new token for the",
             "player whose confirmed address this is.", "", f"The new token: {token}", ""]
    if base:
        lines += [f"Open {base}/me#token={token} to use it.", ""]
    lines += ["Your old token goes on working until this one is first used; from then on only",
              f"this one works, in every game you play. It works for {int(LIFE // 3600)} hours,",
              "unless another message like this one follows it (then only the newest",
              "works).", "",
              "If you did not ask, ignore this message: nothing changes unless the",
              "token is used.", ""]
    msg.set_content("\n".join(lines))
    return msg


def _compose(service, key: str, now: float) -> EmailMessage | None:
    players = players_of(service)
    player = players.get(key[len(PREFIX):])
    to = (player or {}).get("contacts", {}).get("email")
    if player is None or _owner(players, to or "") is None:
        return None  # the address changed or went unconfirmed: nothing to send
    token = new_player_token(player["id"])  # its hash kept first (a refused message: another token next time)
    players.recovery_set(player["id"], token_hash(token), now + LIFE)
    return message(player, to, token)


DUE = due_mail.DueKind(owns=lambda key: key.startswith(PREFIX), compose=_compose)


def deliver_due(service, now: float | None = None, limit: int = 50) -> int:
    """Send every recovery message due now, each with a token of its own (its hash
    kept first); returns how many were sent. Safe in several processes at once: each
    is claimed before it is sent."""
    return due_mail.deliver(service, [DUE], now, limit)
