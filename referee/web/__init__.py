"""Watching: board pictures, the log in words, the pages that follow a game, CORS.

- ``GET /v1/games/{id}/board.svg?at=N``: the position as a picture, for the
  caller's view (a spectator without a token, a seat with its bearer token).
- ``GET /v1/games/{id}/log?after=N``: the log as the caller may see it, one line of
  words per event (the engine's ``describe`` of the event redacted for the caller).
- ``GET /``: the games, page by page, by status; ``GET /games/{id}``: one game's
  page (picture, players, scores, whose turn, log, stepping through positions,
  following live by long polls of ``/v1/games/{id}/events?wait=``, referee/follow.py). The page works without JavaScript as the spectator's text view.

The pages and pictures only ever call ``GameService`` with the caller's own
``Caller``: they can show nothing the JSON API would not show the same caller.
"""

from __future__ import annotations

import hashlib

from flask import Blueprint as FlaskBlueprint
from flask import Response, abort, render_template, request
from flask_smorest import Blueprint
from marshmallow import Schema, fields, validate

from referee import narration
from referee.api import bodies
from referee.api.openapi import TOKEN_OR_NONE, binary, refusals
from referee.api.routes import caller, service
from referee.caller import Caller
from referee.disputes.ledger import EVENTS as LEDGER_EVENTS
from referee.disputes.words import decision_words
from referee.errors import NoSuchGame
from referee.events import Event
from referee.games import engine as engine_by_name
from referee.games.base import RefereeError
from referee.web import cors, pictures
from schemas import ref

pictures_blp = Blueprint("watching", __name__, url_prefix="/v1",
                         description="Pictures and the log in words, for watching a game")
pictures_blp.ARGUMENTS_PARSER = bodies.PARSER  # bodies parsed once; schema refusals are 400
pages = FlaskBlueprint("pages", __name__, template_folder="templates", static_folder="static",
                       static_url_path="/web/static")


class BoardArgs(Schema):
    at = fields.Integer(strict=False, validate=validate.Range(min=1, max=2**31 - 1),
                        metadata={"description": "the position after event N"})


class LogArgs(Schema):
    after = fields.Integer(load_default=0, validate=validate.Range(min=0, max=2**31 - 1))
    limit = fields.Integer(load_default=100, validate=validate.Range(min=1, max=1000))


class LogLine(Schema):
    seq = fields.Integer(required=True)
    type = fields.String(required=True)
    actor = ref("Actor", required=True)
    text = fields.String(required=True, metadata={"description": "what happened, in words"})


class Log(Schema):
    version = fields.Integer(required=True)
    lines = fields.List(fields.Nested(LogLine), required=True)


def _picture(game_id: str, at: int | None) -> tuple[str, str]:
    who = caller(game_id)
    svc = service()
    summary = svc.summary(game_id)
    view = svc.view(game_id, who, at)
    svg = pictures.draw(summary, view)
    return svg, hashlib.sha256(svg.encode()).hexdigest()[:32]


@pictures_blp.route("/games/<game_id>/board.svg", methods=["GET"])
@pictures_blp.arguments(BoardArgs(), location="query")
@pictures_blp.doc(operationId="getBoardSvg", security=TOKEN_OR_NONE, responses={"200": binary(
    "the position as an SVG picture, with a <title> and a <desc> (the text view); the "
    "answer's type is image/svg+xml", {"image/svg+xml": {"schema": {"type": "string"}}})})
@refusals(pictures_blp, 400, 401, 403, 404)
def board_svg(args, game_id):
    """The position (now, or after event `at`) as a picture, as the caller may see it."""
    svg, etag = _picture(game_id, args.get("at"))
    resp = Response(svg, mimetype="image/svg+xml")
    resp.set_etag(etag)
    # A seat's picture is for that seat only; a spectator's may sit in shared caches.
    private = request.headers.get("Authorization") is not None
    fixed = args.get("at") is not None  # a past position never changes
    resp.headers["Cache-Control"] = ("private" if private else "public") + (
        ", max-age=86400" if fixed else ", no-cache")
    resp.headers["Vary"] = "Authorization"
    return resp.make_conditional(request)


def log_lines(game_id: str, who, after: int, limit: int) -> dict:
    """The caller's events in words: each event is redacted for the caller first,
    then described, so a line can say no more than the redacted event does."""
    svc = service()
    answer = svc.events(game_id, who, after, limit)
    with svc._lock(game_id):  # read after the events: it knows every replacement among them
        table = svc.load(game_id)
    engine, who_is = table.engine, narration.holders(table)
    lines = []
    for ev in answer["events"]:
        shown = Event(seq=ev["seq"], type=ev["type"], actor=ev["actor"], at=ev["at"],
                      payload=ev["payload"])
        try:
            text = who_is.narrate(engine, shown)  # with the names of the seats' holders then
        except (KeyError, TypeError, ValueError, IndexError):
            # An engine that cannot describe a redacted event still gets a line.
            text = f"{ev['actor']}: {ev['type']}"
        lines.append({"seq": ev["seq"], "type": ev["type"], "actor": ev["actor"], "text": text})
    return {"version": answer["version"], "lines": lines}


@pictures_blp.route("/games/<game_id>/log", methods=["GET"])
@pictures_blp.arguments(LogArgs(), location="query")
@pictures_blp.response(200, Log)
@pictures_blp.doc(operationId="getLog", security=TOKEN_OR_NONE)
@refusals(pictures_blp, 400, 401, 403, 404)
def log(args, game_id):
    """The log as the caller may see it, one line of words per event, from `after`."""
    return log_lines(game_id, caller(game_id), args["after"], args["limit"])


# ---- pages --------------------------------------------------------------------------

STATUSES = ("active", "settling", "finished", "aborted")


@pages.route("/")
def index():
    status = request.args.get("status") or None
    if status is not None and status not in STATUSES:
        status = None
    after = request.args.get("after") or None
    limit = min(max(request.args.get("limit", 50, type=int), 1), 200)
    try:
        page = service().list_games(status, limit, after)
    except RefereeError:  # a cursor that is not one: start again from the newest
        page = service().list_games(status, limit, None)
    from referee.leagues.running import listing as leagues  # the leagues, above the games
    from referee.players import lobby  # the open games, seats to take (docs/players.md)

    return render_template("index.html", games=[_row(g) for g in page["games"]], next=page["next"],
                           status=status, limit=limit, statuses=STATUSES, names=pictures.names,
                           leagues=leagues(service(), 20)["leagues"], lobby=lobby.lobby(service(), 20)["games"])


def _row(g: dict) -> dict:
    """A game of the list in words: its title and players, when it started, who
    is to play (by name) and how many moves were made, all from the store's row;
    only a game no append has told its seats to act since 0.3.0 asks its summary."""
    who = pictures.names(g["players"])
    to_act = g.get("to_act")
    if to_act is None and g["status"] in ("active", "settling"):
        try:
            to_act = service().summary(g["id"])["to_act"]
        except NoSuchGame:
            to_act = []
    turn = ", ".join(who[s] for s in to_act or [] if isinstance(s, int) and 0 <= s < len(who))
    return {**g, "names": who, "title": game_title(g["game"]), "turn": turn if g["status"] == "active" else "",
            "started": str(g.get("created_at", ""))[:16].replace("T", " ")}


@pages.route("/games/<game_id>")
def game_page(game_id):
    svc = service()
    try:
        summary = svc.summary(game_id)
    except NoSuchGame:
        return _open_game_page(svc, game_id)
    at = request.args.get("at", type=int)
    if at is not None and not 1 <= at <= summary["version"]:
        at = None
    spectator = Caller(None)  # the page itself is the spectator's; a token stays in the browser
    view = svc.view(game_id, spectator, at)
    lines = log_lines(game_id, spectator, 0, 1000)["lines"]
    who = pictures.names(summary["players"])
    result = pictures.outcome(view["result"], who, view["status"] == "aborted")
    banks = {b["seat"]: short_duration(b["seconds"]) for b in summary.get("banks") or []}
    # each event's place in the transparency log (watch.js keeps it up to date)
    placed = ({p["seq"]: p for p in svc.transparency.placed(game_id)["events"]}
              if svc.transparency is not None else None)
    for d in view["disputes"]:  # a ruling in words, as the log tells it
        if d["ruling"]:
            d["ruling"] = {**d["ruling"], "words": narration.named(decision_words(d["ruling"]["decision"]), who)}
    return render_template("game.html", summary=summary, view=view, lines=lines, at=at, names=who,
                           title=engine_by_name(summary["game"]).title, result=result, banks=banks, placed=placed,
                           ledger_types=LEDGER_EVENTS)


def short_duration(seconds: float) -> str:
    """A time bank in a table cell, its two largest units: "9m 20s", "1h 5m", "2d 3h"
    (as the page's script writes it when it follows the game)."""
    n, out = max(0, int(seconds)), []
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
        if n >= size or (unit == "s" and not out):
            out.append(f"{n // size}{unit}")
            n %= size
        elif out:
            break
        if len(out) == 2:
            break
    return " ".join(out)


def _open_game_page(svc, game_id: str):
    """An open game's page (the link its invitations carry): its seats, and how to take one."""
    from referee.players import lobby  # the open games, seats to take (docs/players.md)

    found = lobby.find(svc, game_id)
    if found is None:
        abort(404)
    return render_template("open_game.html", game=found, title=game_title(found["game"]))


def game_title(game: str) -> str:
    """A game's name as players say it; the id itself for one the referee does not know."""
    try:
        return engine_by_name(game).title
    except RefereeError:
        return str(game)


def install(app, api) -> None:
    """Register the pages, the pictures (documented in OpenAPI) and CORS."""
    api.register_blueprint(pictures_blp)
    app.register_blueprint(pages)
    app.jinja_env.filters["game_title"] = game_title  # "King of Danger" for king-of-danger
    cors.install(app)
    from referee.web import csp

    csp.install(app)  # the pages' Content-Security-Policy; /docs without inline script
