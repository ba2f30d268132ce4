"""Mailing a league's invitations: one message to each invited player with a
confirmed address, within what referee/players/invitations.py allows (at most one
invitation mail a day from the same organiser, and no more than the player's
pending invitations).

The message holds nothing the organiser typed (not even the league's name: a name
is anyone's text, and an invitation must not carry it to a stranger's mailbox) but
the players' registered names and the game's title; it says how to accept (``POST /v1/leagues/{id}/join``) or
decline, and links the league's page, which shows the same to a player whose
token it has. Queued in the player store's mail queue under
``league-invite.LEAGUE.PLAYER`` (neither id holds a dot), tried at once on a
thread of its own, and retried with backoff by the sender's round
(``deliver_due``, registered in referee/system.py): a failing SMTP server loses
none and sends none twice. An invitation answered, or a league started, before
its message went is not sent.
"""

from __future__ import annotations

import threading
import time
from email.message import EmailMessage

from referee.games import engine as get_engine
from referee.leagues.advancing import load
from referee.leagues.keeping import leagues_of
from referee.mail.sending import referee_message
from referee.players import due_mail
from referee.players.invitation_mail import base_url
from referee.players.invitations import confirmed_email
from referee.players.store import players_of

PREFIX = "league-invite."


def queue(service, league_id: str, players: list[str], now: float | None = None) -> None:
    """Queue the invitation message of each of ``players`` (those
    referee/players/invitations.py said to mail). Never raises: the league is made."""
    try:
        store, now = players_of(service), time.time() if now is None else now
        for pid in players:
            store.queue_mail(f"{PREFIX}{league_id}.{pid}", now)
    except Exception:  # the store away for a moment: the invitation is on the player's /me
        return
    if players:
        threading.Thread(target=_quietly, args=(service,), daemon=True, name="league-invitation-mail").start()


def _quietly(service) -> None:
    try:
        deliver_due(service)
    except Exception:  # the sender's next round sends it
        pass


def message(service, league_id: str, player: dict, to: str) -> EmailMessage:
    players = players_of(service)
    state = load(service, league_id)[1].state
    title = get_engine(state.terms["game"]).title
    by = (players.get(state.organiser) or {}).get("name") or "a player"
    others = [n for p, n in {**state.players, **state.invited}.items() if p != player["id"]]
    msg = referee_message(to, f"You are invited to a league of {title}", f"{PREFIX}{league_id}.{player['id']}")
    lines = [f"{by} invites you to a {state.format} league of {title} refereed by castle-referee",
             f"(league {league_id}).",
             f"Also invited or in: {', '.join(others) if others else 'nobody else yet'}.", "",
             "You are paired only if you accept, and the league starts when its organiser says so.", "",
             f"To accept, with your player token: POST /v1/leagues/{league_id}/join;",
             f"to decline: POST /v1/leagues/{league_id}/decline. Your page /me lists it too."]
    base = base_url()
    if base:
        lines += ["", f"The league: {base}/leagues/{league_id}"]
    lines += ["", "You get at most one invitation by mail a day from the same player."]
    msg.set_content("\n".join(lines + [""]))
    return msg


def _compose(service, key: str, now: float) -> EmailMessage | None:
    league_id, _, pid = key[len(PREFIX):].partition(".")
    player = players_of(service).get(pid)
    to = confirmed_email(player)
    meta = leagues_of(service).meta(league_id)
    if to is None or meta is None or pid not in load(service, league_id)[1].state.invited:
        return None  # answered, started, gone, or no address: nothing to send
    return message(service, league_id, player, to)


DUE = due_mail.DueKind(owns=lambda key: key.startswith(PREFIX), compose=_compose)


def deliver_due(service, now: float | None = None, limit: int = 50) -> int:
    """Send every league invitation due now; returns how many were sent. Safe in
    several processes at once: each is claimed before it is sent."""
    return due_mail.deliver(service, [DUE], now, limit)
