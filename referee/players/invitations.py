"""Invitations: a player asked by somebody else to take a seat, and the bounds that keep
anyone from using the referee to flood a player with them.

An invitation is to something (``what``: ``game:ID`` for an open game's seat kept for
the player; a league uses ``league:ID``) from an inviter (``player:ID``, the creating
player, or ``address:IP``, the client address where no player asked). The player
answers it (takes the seat, declines) or the inviter withdraws it (cancels the game,
gives the seat to a bot); until then it is **pending**. Kept per invited player, each
key in the player's own slot (SQLite: two tables keyed by player; Redis: under
``{p:ID}``), every entry bounded or expiring:

- at most ``REFEREE_PENDING_INVITATIONS`` (default 20) pending at once. One more is
  refused with 429 ``too-many-requests`` and ``Retry-After`` (until the earliest
  pending one expires), and nothing is written for any invitee of that request;
- a pending invitation expires after ``REFEREE_INVITATION_DAYS`` days (default 14):
  it then no longer counts, nor is it listed as the player's (the seat stays kept
  until it is answered, or the game cancelled);
- at most one invitation e-mail a day from the same inviter: later invitations from
  them stand (listed in the player's ``/me`` and the lobby) but mail nothing.

``invite`` is the one call, made before the inviting thing is written: an open
game's creation calls it with ``game:ID`` and its creator, a league with
``league:ID`` and its organiser. It returns whom to mail; the caller queues its own
message (an open game's: referee/players/invitation_mail.py). ``withdraw`` drops an
answered or withdrawn invitation.
"""

from __future__ import annotations

import hashlib
import math
import os
import time
from collections.abc import Callable

from referee.errors import RefereeError
from referee.players.store import players_of

DAY = 86400.0
PENDING = 20  # REFEREE_PENDING_INVITATIONS
LIFETIME_DAYS = 14.0  # REFEREE_INVITATION_DAYS


class TooManyInvitations(RefereeError):
    code, status = "too-many-requests", 429


def _positive(name: str, default: float) -> float:
    given = os.environ.get(name, "")
    value = float(given) if given else default
    if not value > 0:
        raise ValueError(f"{name} must be a positive number")
    return value


def most_pending() -> int:
    """``REFEREE_PENDING_INVITATIONS``: a player's pending invitations at most."""
    return int(_positive("REFEREE_PENDING_INVITATIONS", PENDING))


def lifetime() -> float:
    """``REFEREE_INVITATION_DAYS``, in seconds: how long an invitation stays pending."""
    return _positive("REFEREE_INVITATION_DAYS", LIFETIME_DAYS) * DAY


def inviter_of(player_id: str | None, address: str | None) -> str:
    """Who invites: the creating player, or the client address where there is none."""
    return f"player:{player_id}" if player_id else f"address:{address or 'unknown'}"


def _key(inviter: str) -> str:
    return hashlib.sha256(inviter.encode()).hexdigest()[:32]


def invite(service, what: str, invitees: list[tuple[str, str]], inviter: str,
           still_waiting: Callable[[str, str], bool] | None = None, now: float | None = None) -> list[str]:
    """Note ``what`` as pending for each invitee (``(player id, the request's field
    naming it)``), all or none: an invitee with too many pending is 429 naming its
    field, and nothing is noted for anyone. ``still_waiting(what, player)`` says
    whether an older pending invitation still waits on the player (one that does not
    is dropped before the invitee is found full). Returns the invitees to mail now:
    those with a confirmed address and no invitation mailed from ``inviter`` within
    a day."""
    players, now = players_of(service), time.time() if now is None else now
    most, expires = most_pending(), now + lifetime()
    noted: list[str] = []
    for pid, field in invitees:
        full = players.invitation_add(pid, what, now, expires, most)
        if full is not None and still_waiting is not None:
            for old in players.invitations_of(pid, now):
                if not still_waiting(old, pid):
                    players.invitation_drop(pid, old)
            full = players.invitation_add(pid, what, now, expires, most)
        if full is not None:
            for done in noted:
                players.invitation_drop(done, what)
            raise TooManyInvitations(
                f"this player has {most} invitations waiting for an answer; the earliest expires in "
                f"{_wait(full - now)}", field=field, retry_after=max(1, math.ceil(full - now)))
        noted.append(pid)
    return [pid for pid in dict.fromkeys(noted)
            if confirmed_email(players.get(pid)) and players.invitation_mail_claim(pid, _key(inviter), now, DAY)]


def _wait(seconds: float) -> str:
    hours = max(1, math.ceil(seconds / 3600))
    return f"{hours} hour" + ("s" if hours != 1 else "")


def withdraw(service, player_id: str, what: str) -> None:
    """The invitation was answered or withdrawn: it is pending no more."""
    players_of(service).invitation_drop(player_id, what)


def pending(service, player_id: str, now: float | None = None) -> list[str]:
    """The player's pending invitations, the oldest first."""
    return players_of(service).invitations_of(player_id, time.time() if now is None else now)


def confirmed_email(player: dict | None) -> str | None:
    """The player's address, if confirmed (the only kind the referee mails)."""
    contacts = (player or {}).get("contacts") or {}
    return contacts.get("email") if contacts.get("email") and contacts.get("email_confirmed") else None
