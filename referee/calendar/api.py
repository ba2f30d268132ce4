"""The calendar's endpoints (docs/players.md, "A calendar of deadlines"): the feed
behind its own secret, and a new secret for it."""

from __future__ import annotations

from flask import Response
from flask_smorest import Blueprint
from marshmallow import Schema, fields

from referee.api.openapi import PUBLIC, TOKEN, refusals
from referee.api.routes import bearer, service, timed
from referee.calendar import feed
from referee.players import accounts

blp = Blueprint("calendar", __name__, url_prefix="/v1",
                description="The organiser's calendar: a player's deadlines as an iCalendar feed")


class CalendarUrl(Schema):
    calendar_url = fields.String(metadata={"description": "the feed's new address (the old one stops working)"})


def _store():
    return service().player_settings.store


@blp.route("/calendar/<name>.ics", methods=["GET"])
@blp.doc(operationId="getCalendarFeed", security=PUBLIC, responses={"200": {
    "description": "the player's deadlines, an iCalendar feed (RFC 5545, text/calendar): one VEVENT per game "
                   "waiting on the player's move that has a deadline (UID `GAME@castle-referee`, DTSTART "
                   "the deadline in UTC, URL the game's page)",
    "content": {"text/calendar": {"schema": {"type": "string"}}}}})
@refusals(blp, 404)
@timed("calendar-feed")
def calendar_feed(name):
    """A player's deadlines, behind the feed's own secret (the address is `calendar_url` in
    `GET /v1/players/me`): it reads this feed and nothing else. 404 for a wrong secret."""
    text = feed.feed(_store(), service(), name)
    resp = Response(text, mimetype="text/calendar")
    resp.headers["Cache-Control"] = "private, no-cache"
    return resp


@blp.route("/players/me/calendar/reset", methods=["POST"])
@blp.response(200, CalendarUrl)
@blp.doc(operationId="resetCalendarFeed", security=TOKEN)
@refusals(blp, 401)
@timed("calendar-reset")
def reset():
    """A new secret for the caller's calendar feed (player token): the answer's
    `calendar_url`; the old address is 404 from now on."""
    player = accounts.authenticate(service(), bearer())
    return {"calendar_url": feed.reset(_store(), player["id"])}


def install(app, api) -> None:
    api.register_blueprint(blp)
