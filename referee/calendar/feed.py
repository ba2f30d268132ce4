"""The player's deadlines as an iCalendar feed (RFC 5545), for any calendar program.

One VEVENT per game waiting on the player's move that has a deadline: its UID
names the game (``GAME@castle-referee``), DTSTART is the deadline in UTC, URL is
the game's page (a spectator's: the feed carries no token). The feed is behind a
secret of its own, in its address (``/v1/calendar/PLAYER.SECRET.ics``): the
secret reads this feed and nothing else, so a calendar program holding it can
neither move nor see a hand; ``POST /v1/players/me/calendar/reset`` makes a new
one and the old address stops working at once.
"""

from __future__ import annotations

import hmac
import secrets

from icalendar import Calendar as ICalendar
from icalendar import Event as IEvent

from referee.clock import parse_at
from referee.errors import NoSuchGame
from referee.events import utcnow
from referee.mail import links
from referee.players import accounts, current

PRODID = "-//castle-referee//deadlines//EN"


class NoSuchFeed(NoSuchGame):
    code = "no-such-calendar"


def new_secret() -> str:
    return secrets.token_urlsafe(24)


def url_of(calendar_store, player_id: str) -> str:
    secret = calendar_store.feed_secret(player_id, new_secret())
    return f"{links.public_url()}/v1/calendar/{player_id}.{secret}.ics"


def reset(calendar_store, player_id: str) -> str:
    calendar_store.reset_feed_secret(player_id, new_secret())
    return url_of(calendar_store, player_id)


def player_of(calendar_store, service, name: str) -> dict:
    """The player whose feed ``name`` (``PLAYER.SECRET``) is; 404 for any other name,
    a wrong secret alike (nobody learns whether a player exists)."""
    pid, dot, secret = name.partition(".")
    if not dot or not pid or not secret or len(name) > 200:
        raise NoSuchFeed("no such calendar")
    try:
        player = accounts.player_record(service, pid)
    except accounts.NoSuchPlayer:
        raise NoSuchFeed("no such calendar") from None
    kept = calendar_store.feed_secret(pid, new_secret())
    if not hmac.compare_digest(kept.encode(), secret.encode()):
        raise NoSuchFeed("no such calendar")
    return player


def feed(calendar_store, service, name: str) -> bytes:
    """The feed's text: the player's deadlines, the nearest first."""
    player = player_of(calendar_store, service, name)
    cal = ICalendar()
    cal.add("prodid", PRODID)
    cal.add("version", "2.0")
    cal.add("x-wr-calname", f"{player['name']}: deadlines")
    stamp = parse_at(utcnow())  # when this copy of the feed was written
    for game in current.waiting(service, current.read(service, player["id"])):
        if not game["deadline"]:
            continue
        ev = IEvent()
        ev.add("uid", f"{game['id']}@castle-referee")
        ev.add("dtstamp", stamp)
        ev.add("dtstart", parse_at(game["deadline"]))
        ev.add("summary", f"Your move: {game['title']} with {', '.join(game['players'])}")
        ev.add("url", links.page(game["id"]))
        cal.add_component(ev)
    return cal.to_ical()
