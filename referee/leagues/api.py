"""The league endpoints under /v1 (docs/leagues.md explains them; /openapi.json describes them)."""

from __future__ import annotations

from flask import Response
from flask_smorest import Blueprint

from referee.api import bodies, limits
from referee.api.openapi import PUBLIC, TOKEN, binary, refusals
from referee.api.routes import bearer, service, timed
from referee.leagues import running
from referee.leagues import schemas as s
from referee.players import accounts

blp = Blueprint("leagues", __name__, url_prefix="/v1",
                description="Leagues: rounds of games between registered players, paired by the referee")
blp.ARGUMENTS_PARSER = bodies.PARSER


@blp.route("/leagues", methods=["POST"])
@blp.arguments(s.LeagueCreate())
@blp.response(201, s.LeagueCreated)
@refusals(blp, 400, 401, 413, 415, 429)
@timed("leagues-create")
@blp.doc(operationId="createLeague", security=TOKEN)
def create(args):
    """Create a league (a player's token: that player organises it). Its `players` are
    invited (the organiser listing themself plays; a bot player joins when asked); each
    joins or declines, and `"entry": "open"` lets any player join. Nothing is paired until
    the organiser starts it (`POST /v1/leagues/{id}/start`). The answer holds the league's
    admin token, shown this once. Rate-limited per client address and per token
    (`REFEREE_CREATE_RATE`), and so are the invitations (`REFEREE_INVITE_RATE`); a player
    with too many invitations pending is 429."""
    svc = service()
    organiser = accounts.authenticate(svc, bearer())  # 401 before anything is counted or kept
    ids = args["players"] if isinstance(args.get("players"), list) else []
    limits.spend("REFEREE_INVITE_RATE", "invitations",
                 sum(1 for p in ids if p != organiser["id"]))
    return running.create(svc, args, organiser)


@blp.route("/leagues/<league_id>/join", methods=["POST"])
@blp.arguments(s.LeagueJoin())
@blp.response(200, s.League)
@refusals(blp, 400, 401, 403, 404, 409, 413, 415)
@timed("leagues-join")
@blp.doc(operationId="joinLeague", security=TOKEN)
def join(args, league_id):
    """Join a league (player token) before its start: an invited player, or anyone where
    its `entry` is `open` (403 `not-invited` otherwise; 409 `league-conflict` once it has
    started, or for a player in it already)."""
    return running.join(service(), league_id, bearer(), args)


@blp.route("/leagues/<league_id>/decline", methods=["POST"])
@blp.response(200, s.League)
@refusals(blp, 401, 403, 404, 409)
@timed("leagues-decline")
@blp.doc(operationId="declineLeague", security=TOKEN)
def decline(league_id):
    """Decline an invitation to a league (player token): never paired in it (403
    `not-invited` without an invitation; 409 `league-conflict` once joined or started)."""
    return running.decline(service(), league_id, bearer())


@blp.route("/leagues/<league_id>/start", methods=["POST"])
@blp.response(200, s.League)
@refusals(blp, 400, 401, 403, 404, 409)
@timed("leagues-start")
@blp.doc(operationId="startLeague", security=TOKEN)
def start(league_id):
    """Start a league (its admin token) with the players who have joined: round 1 is
    paired and its games created; invitations not answered lapse (409
    `league-conflict` when too few have joined or it has started; 400 naming the option
    a game of it would refuse). The organiser's player token may start it too."""
    return running.start(service(), league_id, bearer())


@blp.route("/leagues", methods=["GET"])
@blp.arguments(s.LeagueListArgs(), location="query")
@blp.response(200, s.LeagueList)
@refusals(blp, 400)
@timed("leagues-list")
@blp.doc(operationId="listLeagues", security=PUBLIC)
def listing(args):
    """The leagues, newest first."""
    return running.listing(service(), args["limit"])


@blp.route("/leagues/<league_id>", methods=["GET"])
@blp.response(200, s.League)
@refusals(blp, 404)
@timed("leagues-get")
@blp.doc(operationId="getLeague", security=PUBLIC)
def get(league_id):
    """A league: its standings, its rounds with their games and results, its status."""
    return running.view(service(), league_id)


@blp.route("/leagues/<league_id>/players/<player_id>/withdraw", methods=["POST"])
@blp.response(200, s.League)
@blp.doc(operationId="withdrawFromLeague", security=TOKEN)
@refusals(blp, 401, 403, 404, 409)
@timed("leagues-withdraw")
def withdraw(league_id, player_id):
    """Withdraw a player (the league's admin token or that player's token): their games
    still running are lost by forfeit, and they are never paired again."""
    return running.withdraw(service(), league_id, player_id, bearer())


@blp.route("/leagues/<league_id>/export", methods=["GET"])
@blp.doc(operationId="exportLeague", security=PUBLIC, responses={"200": binary(
    "the league's bundle: its log and the whole log of every game whose result is recorded "
    "(JSON Lines; the answer's type is application/jsonl)",
    {"application/jsonl": {"schema": {"type": "string"}}})})
@refusals(blp, 404)
@timed("leagues-export")
def export(league_id):
    """The league's export, for `POST /v1/audit` or `referee audit-league`."""
    # saved as a file by a browser, as a game's export is
    return Response(running.export(service(), league_id), mimetype="application/jsonl",
                    headers={"Content-Disposition": f'attachment; filename="league-{league_id}.jsonl"'})


def install(app, api) -> None:
    """Register the league endpoints (documented in OpenAPI) and pages."""
    from referee.leagues import pages

    api.register_blueprint(blp)
    app.register_blueprint(pages.pages)
