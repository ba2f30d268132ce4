"""The calendar's endpoints (docs/players.md, "A calendar of deadlines", "Vacations"):
the feed behind its own secret, a new secret for it, and a player's vacations."""

from __future__ import annotations

from flask import Response
from flask_smorest import Blueprint
from marshmallow import Schema, fields

from referee.api.openapi import PUBLIC, TOKEN, refusals
from referee.api.routes import bearer, service, timed
from referee.calendar import feed
from referee.players import accounts
from schemas import Strict

blp = Blueprint("calendar", __name__, url_prefix="/v1",
                description="The organiser's calendar: a player's deadlines as an iCalendar feed")


class CalendarUrl(Schema):
    calendar_url = fields.String(metadata={"description": "the feed's new address (the old one stops working)"})


class VacationAsked(Strict):
    # (checked by the booking itself, after the token: a 400 names the field)
    from_ = fields.Raw(data_key="from", load_default=None, metadata={
        "type": "string", "format": "date", "description": "the first day away (UTC date, YYYY-MM-DD)"})
    to = fields.Raw(load_default=None, metadata={
        "type": "string", "format": "date", "description": "the last day away (UTC date, included)"})


class VacationShortened(Strict):
    to = fields.Raw(load_default=None, metadata={
        "type": "string", "format": "date",
        "description": "shorten instead of cancel: the booking that holds this day ends on it"})


class VacationDays(Schema):
    from_ = fields.String(data_key="from", attribute="from")
    to = fields.String()


class Vacation(Schema):
    vacation_days_left = fields.Integer(metadata={"description": "days of this calendar year's allowance left"})
    vacations = fields.List(fields.Nested(VacationDays), metadata={
        "description": "the bookings not yet over, the earliest first"})
    booked = fields.Nested(VacationDays, metadata={"description": "POST only: the booking just made"})


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


@blp.route("/players/me/vacation", methods=["POST"])
@blp.arguments(VacationAsked)
@blp.response(200, Vacation)
@blp.doc(operationId="bookVacation", security=TOKEN)
@refusals(blp, 400, 401, 409)
@timed("vacation")
def book(args):
    """Book a vacation (player token): from `from` 00:00 UTC (or now, if later) until 00:00 UTC
    the day after `to`, the caller's own clock stops in every one of their games. Its days are
    taken from the allowance at once, each day from its own calendar year's. 409
    `vacation-refused` names the rule (`vacation-in-the-past`, `vacation-too-far-ahead`,
    `vacation-overlaps`, `vacation-allowance`)."""
    player = accounts.authenticate(service(), bearer())
    return _vacations().book(player["id"], {"from": args["from_"], "to": args["to"]})


@blp.route("/players/me/vacation", methods=["DELETE"])
@blp.arguments(VacationShortened, location="query")
@blp.response(200, Vacation)
@blp.doc(operationId="cancelVacation", security=TOKEN)
@refusals(blp, 400, 401, 409)
@timed("vacation")
def cancel(args):
    """Cancel the caller's vacations not yet over (player token): one not begun gives back all
    its days, one under way ends now (its clocks run again at once) and gives back the days
    not yet begun. With `?to=DATE`, shorten instead: the booking that holds that day ends on
    it, the days after it given back (409 `vacation-refused`, rule `vacation-not-shortened`,
    when no booking runs past it; `vacation-in-the-past` for a day before today)."""
    player = accounts.authenticate(service(), bearer())
    return _vacations().cancel(player["id"], last=args.get("to"))


def _vacations():
    return service().player_settings.vacations


def install(app, api) -> None:
    api.register_blueprint(blp)
