"""Mailing an open game's invitations, without letting anyone use the referee to mail strangers.

Each address an open game invites (``{"invite": ADDRESS}``) gets one message,
under the confirmation's rule (referee/players/confirmation.py):

- An address that a player has confirmed asked for mail: it gets every invitation.
- Any other address gets one only if it has had no message from the referee
  within the window: the invitation takes the same claim on the address a
  confirmation takes (``claim_address``, ``REFEREE_CONFIRM_WINDOW``), so an address
  gets at most one message per window, whatever a confirmation or an invitation.
  An address within its window gets nothing; the seat is still kept for it and,
  once confirmed, its player's ``GET /v1/players/me`` lists it.
- The message holds nothing the inviter typed but the game's title (the
  engine's) and its registered players' names: a bot is "a basic bot", never the
  name the inviter gave it; no options, no spectators, no free text.
- So an invitation takes the window a confirmation would: an invitee who registers
  within it gets no code until it has passed (then setting the address again
  mails one), as the message says.

The message is queued in the player store's mail queue under ``invite.GAME.SEAT``
(no player id holds a dot), tried at once on a thread of its own, and retried
with backoff by the background sender's round (``deliver_due`` in
``sending.EVERY_ROUND``), each claimed before it is sent: a failing SMTP server
loses none and sends none twice. Creating the game never waits for SMTP.
"""

from __future__ import annotations

import json
import os
import threading
import time
from email.message import EmailMessage
from email.utils import formatdate

from referee.games import engine as get_engine
from referee.players.confirmation import address_key, window
from referee.players.store import players_of

PREFIX = "invite."


def _confirmed_owner(players, email: str) -> bool:
    """Whether a player holds this address confirmed now (a stale owner does not count)."""
    owner = players.address_owner(address_key(email))
    player = players.get(owner) if owner else None
    contacts = (player or {}).get("contacts") or {}
    return bool(contacts.get("email_confirmed") and (contacts.get("email") or "").lower() == email.lower())


def queue(service, record: dict, now: float | None = None) -> list[int]:
    """Queue one message per invited address of a new open game, where the rule allows
    one; returns the seats whose invitation is queued. Never raises: the game is made."""
    try:
        players, now = players_of(service), time.time() if now is None else now
        seen, queued = set(), []
        for i, s in enumerate(record["seats"]):
            email = s.get("invite")
            if email is None or email.lower() in seen:
                continue
            seen.add(email.lower())
            if _confirmed_owner(players, email) or players.claim_address(address_key(email), now, window()):
                players.queue_mail(f"{PREFIX}{record['id']}.{i}", now)
                queued.append(i)
    except Exception:  # the store away for a moment: the game stands, the invitation is in `me`
        return []
    if queued:
        threading.Thread(target=_quietly, args=(service,), daemon=True, name="invitation-mail").start()
    return queued


def _quietly(service) -> None:
    try:
        deliver_due(service)
    except Exception:  # the sender's next round sends it
        pass


def _names(players, record: dict) -> list[str]:
    names = []
    for s in record["seats"]:
        if "player" in s:
            names.append(((players.get(s["player"]) or {}).get("name")) or "a player")
        elif "invite" in s or "open" in s:
            names.append("an open seat" if "open" in s else "an invited player")
        else:
            names.append(f"a {s.get('bot')} bot")  # never the name the inviter gave it
    return names


def link(game_id: str) -> str | None:
    """The game's page, where the referee knows its own public address."""
    base = os.environ.get("REFEREE_PUBLIC_URL", "").rstrip("/")
    return f"{base}/games/{game_id}" if base else None


def message(record: dict, seat: int, names: list[str]) -> EmailMessage:
    from referee.mail.sending import settings

    s = settings()
    title = get_engine(record["game"]).title
    gid = record["id"]
    msg = EmailMessage()
    msg["From"] = s["from"]
    msg["To"] = record["seats"][seat]["invite"]
    msg["Subject"] = f"A seat is kept for you in a game of {title}"
    msg["Message-ID"] = f"<invite.{gid}.{seat}@{s['domain']}>"
    msg["Date"] = formatdate(localtime=False)
    msg["Auto-Submitted"] = "auto-generated"  # RFC 3834: no auto-replies
    lines = [f"A game referee (castle-referee) keeps a seat for this address in a game of {title}",
             f"(game {gid}); the seats: {', '.join(names)}.", "",
             "To take it:",
             "1. register a player with this address (POST /v1/players with your name and this",
             "   address), or use a player of yours that has it;",
             "2. confirm the address with the code the referee mails to it (a player that has",
             "   it confirmed already skips this). The referee mails an address at most once",
             f"   in {int(window() // 3600) or 1} hour(s): if no code comes, set the address again",
             "   (PATCH /v1/players/me) once that time has passed;",
             f"3. join with the player's token: POST /v1/games/{gid}/join."]
    url = link(gid)
    lines += (["", f"The game: {url}"] if url else []) + [
        "", "If you do not want to play, do nothing: this address gets no other mail from the",
        "referee unless it is confirmed.", ""]
    msg.set_content("\n".join(lines))
    return msg


def deliver_due(service, now: float | None = None, limit: int = 50) -> int:
    """Send every invitation due now; returns how many were sent. Safe in several
    processes at once: each is claimed before it is sent."""
    from referee.mail import outbox, sending

    players = players_of(service)
    now = time.time() if now is None else now
    sent = 0
    for entry in players.due_mail(now, limit):
        key = entry["player"]
        if not key.startswith(PREFIX) or not players.claim_mail(entry, now + sending.lease()):
            continue
        gid, _, seat = key[len(PREFIX):].rpartition(".")
        text = players.open_get(gid)
        record = json.loads(text) if text else None
        if record is None or record["status"] != "open" or not seat.isdigit() \
                or int(seat) >= len(record["seats"]) or "invite" not in record["seats"][int(seat)]:
            players.mail_done(key)  # the seat is taken or the game gone: nothing to send
            continue
        attempts = entry["attempts"] + 1
        try:
            sending.send_email(message(record, int(seat), _names(players, record)))
        except Exception as err:  # a failing SMTP server: later, with backoff
            players.mail_failed(key, attempts, now + outbox.backoff(attempts),
                                f"{type(err).__name__}: {err}"[:500])
            continue
        players.mail_done(key)
        sent += 1
    return sent
