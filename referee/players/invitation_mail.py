"""Mailing an open game's invitations, without letting anyone use the referee to mail strangers.

A seat kept for somebody (referee/players/lobby.py) gets one message:

- A seat kept for a player (``{"invite_player": ID}``), or for an address a player
  has confirmed, is mailed to that player's confirmed address, at most once a day
  from the same inviter and within the player's pending invitations
  (referee/players/invitations.py decides, before the game is kept). A player with
  no confirmed address is mailed nothing: the lobby and their ``/me`` show it.
- Any other address gets one only if it has had no message from the referee
  within the window: the invitation takes the same claim on the address a
  confirmation takes (``claim_address``, ``REFEREE_CONFIRM_WINDOW``), so an address
  gets at most one message per window, whatever a confirmation or an invitation.
  The seat is still kept for it and, once confirmed, its player's ``/me`` lists it.
- The message holds nothing the inviter typed but the registered names of the
  game's players (a bot is "a basic bot", never the name the inviter gave it) and
  the game's title (its engine's); no options, no spectators, no free text. Its
  subject is fixed but for that title.
- Its link (where ``REFEREE_PUBLIC_URL`` is set) opens the invitation's page,
  ``/games/{id}/invitation?seat=S&code=C``: the code is an HMAC of the game, the
  seat and whom it is kept for, under the mail secret, never stored; it proves the
  reader got this message, so the page's buttons (form posts: a mail scanner
  opening the link answers nothing) seat the invited player, registering one with
  the address (confirmed by the code itself) where nobody has it, or decline.

Each message is queued in the player store's mail queue under ``invite.GAME.SEAT``
(no player id holds a dot), tried at once on a thread of its own, and retried with
backoff by the background sender's round (``deliver_due`` in
``service.senders``, referee/system.py), each claimed before it is sent: a failing SMTP server
loses none and sends none twice. Creating the game never waits for SMTP.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import threading
import time
from email.message import EmailMessage

from referee.games import engine as get_engine
from referee.mail.secret import mail_secret
from referee.mail.sending import referee_message
from referee.narration import duration
from referee.players import due_mail
from referee.players.confirmation import address_key, window
from referee.players.invitations import confirmed_email
from referee.players.store import players_of

PREFIX = "invite."
CODE_LENGTH = 26  # base32: 130 bits, never typed (it is in the link)


def confirmed_owner(players, email: str) -> str | None:
    """The player who holds this address confirmed now (a stale owner does not count)."""
    owner = players.address_owner(address_key(email))
    found = confirmed_email(players.get(owner)) if owner else None
    return owner if found and found.lower() == email.lower() else None


def queue(service, record: dict, seats: set[int], now: float | None = None) -> list[int]:
    """Queue the message of each of ``seats`` (one per address): a seat kept for a
    known player is mailed as referee/players/invitations.py allowed; an address
    nobody has confirmed only if the address's window allows. Returns the seats
    whose message is queued. Never raises: the game is made."""
    try:
        players, now = players_of(service), time.time() if now is None else now
        seen, queued = set(), []
        for i in sorted(seats):
            email = record["seats"][i].get("invite")
            if email is not None:
                if email.lower() in seen:
                    continue
                seen.add(email.lower())
                if confirmed_owner(players, email) is None and \
                        not players.claim_address(address_key(email), now, window()):
                    continue
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


def _names(players, record: dict, you: int) -> list[str]:
    names = []
    for i, s in enumerate(record["seats"]):
        pid = s.get("player") or s.get("invite_player")
        if i == you:
            names.append("you")
        elif pid:
            names.append(((players.get(pid) or {}).get("name")) or "a player")
        elif "invite" in s or "open" in s:
            names.append("an open seat" if "open" in s else "an invited player")
        else:
            names.append(f"a {s.get('bot')} bot")  # never the name the inviter gave it
    return names


def kept_for(seat: dict) -> str | None:
    """Whom an open game's seat is kept for, as its code names them."""
    if seat.get("invite_player"):
        return f"player:{seat['invite_player']}"
    if seat.get("invite"):
        return f"address:{seat['invite'].lower()}"
    return None


def code_for(service, game_id: str, seat: int, whom: str) -> str:
    mac = hmac.new(mail_secret(service), f"invite|{game_id}|{seat}|{whom}".encode(), hashlib.sha256)
    return base64.b32encode(mac.digest()).decode()[:CODE_LENGTH]


def code_holds(service, record: dict, seat, code) -> bool:
    """Whether ``code`` is the one mailed for this seat of this open game."""
    if not isinstance(seat, int) or not 0 <= seat < len(record["seats"]) or not isinstance(code, str):
        return False
    whom = kept_for(record["seats"][seat])
    return whom is not None and hmac.compare_digest(
        code_for(service, record["id"], seat, whom), code.strip().upper()[:64])


def base_url() -> str | None:
    """Where the referee is, for links: never taken from a request's Host header."""
    return os.environ.get("REFEREE_PUBLIC_URL", "").rstrip("/") or None


def link(service, record: dict, seat: int) -> str | None:
    """The invitation's page, where the referee knows its own public address."""
    base, whom = base_url(), kept_for(record["seats"][seat])
    if not base or whom is None:
        return None
    return f"{base}/games/{record['id']}/invitation?seat={seat}&code={code_for(service, record['id'], seat, whom)}"


def inviter_name(players, record: dict) -> str | None:
    """The inviting player's name (None: no player invited, a client address did)."""
    kind, _, pid = (record.get("inviter") or "").partition(":")
    return (players.get(pid) or {}).get("name") if kind == "player" else None


def message(service, record: dict, seat: int, to: str) -> EmailMessage:
    players = players_of(service)
    title = get_engine(record["game"]).title
    gid, names = record["id"], _names(players, record, seat)
    msg = referee_message(to, f"A seat is kept for you in a game of {title}", f"invite.{gid}.{seat}")
    by = inviter_name(players, record)
    pid = record["seats"][seat].get("invite_player")
    lines = [f"{by + ' invites you' if by else 'You are invited'} to a game of {title} refereed by "
             f"castle-referee (game {gid}).", f"The seats: {', '.join(names)}.", "",
             "Nothing is dealt until every seat is taken, and the game is rated only if every",
             "player chose to play it.", ""]
    url = link(service, record, seat)
    if url:
        lines += ["To accept or decline, open", f"  {url}",
                  "and press a button there." + ("" if pid else " If you have no player with this address yet,"),
                  *([] if pid else ["it registers one for you: your name is all it asks."])]
    elif pid:
        lines += [f"To accept, with your player token: POST /v1/games/{gid}/join;",
                  f"to decline: POST /v1/games/{gid}/decline. Your page /me lists it too."]
    else:
        lines += ["To take it:",
                  "1. register a player with this address (POST /v1/players with your name and this",
                  "   address), or use a player of yours that has it;",
                  "2. confirm the address with the code the referee mails to it (a player that has",
                  "   it confirmed already skips this). The referee mails an address at most once",
                  f"   in {duration(window())}: if no code comes, set the address again",
                  "   (PATCH /v1/players/me) once that time has passed;",
                  f"3. join with the player's token: POST /v1/games/{gid}/join."]
    if pid:
        lines += ["", "You get at most one invitation by mail a day from the same player."]
    else:
        lines += ["", "If you do not want to play, decline or do nothing: this address gets no other",
                  "mail from the referee unless it is confirmed."]
    msg.set_content("\n".join(lines + [""]))
    return msg


def _to(players, record: dict, seat: int) -> str | None:
    """Where a seat's invitation goes now: the invited address, or the invited
    player's confirmed address (None: nowhere any more)."""
    kept = record["seats"][seat]
    if "invite" in kept:
        return kept["invite"]
    if "invite_player" in kept:
        return confirmed_email(players.get(kept["invite_player"]))
    return None


def _compose(service, key: str, now: float) -> EmailMessage | None:
    players = players_of(service)
    gid, _, seat = key[len(PREFIX):].rpartition(".")
    text = players.open_get(gid)
    record = json.loads(text) if text else None
    to = _to(players, record, int(seat)) if record is not None and record["status"] == "open" \
        and seat.isdigit() and int(seat) < len(record["seats"]) else None
    if to is None:
        return None  # the seat is taken, the game gone, or no address: nothing to send
    return message(service, record, int(seat), to)


DUE = due_mail.DueKind(owns=lambda key: key.startswith(PREFIX), compose=_compose)


def deliver_due(service, now: float | None = None, limit: int = 50) -> int:
    """Send every invitation due now; returns how many were sent. Safe in several
    processes at once: each is claimed before it is sent."""
    return due_mail.deliver(service, [DUE], now, limit)
