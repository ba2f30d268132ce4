"""The player endpoints under /v1 (docs/players.md explains them; /openapi.json describes them)."""

from __future__ import annotations

import hashlib

from flask import Response, request
from flask_smorest import Blueprint

from referee.api import bodies, limits
from referee.api.openapi import PUBLIC, TOKEN, binary, refusals
from referee.api.routes import bearer, service, timed
from referee.players import accounts, finding, joining, lobby, pictures, recovery
from referee.players import schemas as s

blp = Blueprint("players", __name__, url_prefix="/v1",
                description="Players: accounts across games, confirmed contacts, ratings")
blp.ARGUMENTS_PARSER = bodies.PARSER  # bodies parsed once; schema refusals are 400


@blp.route("/players", methods=["POST"])
@blp.arguments(s.PlayerRegister())
@blp.response(201, s.PlayerRegistered)
@refusals(blp, 400, 413, 415)
@timed("players-register")
@blp.doc(operationId="registerPlayer", security=PUBLIC)
def register(args):
    """Register a player: `{name, email?, webhook?}`, or `{name, bot}` for a bot player.

    The token (the player's across games) and a webhook's secret are shown this once.
    An e-mail address gets one confirmation message and nothing else until it is
    confirmed; an address that had one within the window gets none (docs/players.md).
    Rate-limited per client (`REFEREE_REGISTER_RATE`)."""
    return accounts.register(service(), args)


@blp.route("/players", methods=["GET"])
@blp.arguments(s.PlayerSearchArgs(), location="query")
@blp.response(200, s.PlayersFound)
@refusals(blp, 400)
@timed("players-search")
@blp.doc(operationId="findPlayers", security=PUBLIC)
def search(args):
    """Find players by name: those any word of whose name begins with `q`, any case, a page
    at a time (pass the answer's `next` as `after`). Each shows its id, name and whether it is
    a bot, as its profile does; never a token or a contact. Rate-limited per client
    (`REFEREE_SEARCH_RATE`)."""
    return finding.find(service(), args["q"], args.get("after"), args["limit"])


@blp.route("/players/recover", methods=["POST"])
@blp.arguments(s.PlayerRecover())
@blp.response(202, s.PlayerRecoverAsked)
@refusals(blp, 400, 413, 415)
@timed("players-recover")
@blp.doc(operationId="recoverPlayerToken", security=PUBLIC)
def recover(args):
    """Ask for a new player token by e-mail: `{email}`, a player's confirmed address. The
    answer is 202 with the same words whether or not the address is anybody's; if it is a
    player's confirmed address, a new token is mailed there (at most once an hour an
    address), and nowhere else. The old token works until the new one is first used; then
    only the new one works, in every game of the player's too (docs/players.md). Rate-limited
    per client (`REFEREE_RECOVER_RATE`)."""
    return recovery.ask(service(), args)


@blp.route("/players/me", methods=["GET"])
@blp.arguments(s.PlayerGamesArgs(), location="query")
@blp.response(200, s.PlayerMe)
@blp.doc(operationId="getMe", security=TOKEN)
@refusals(blp, 400, 401)
@timed("players-me")
def me(args):
    """The caller's own player (player token): the profile, its contacts, the games waiting on
    it, the open games keeping a seat for it, by id or confirmed address (`invitations`), and
    the leagues inviting it that have not started (`league_invitations`).
    `current_games` is a page, as on the profile (`?after=CURSOR&limit=N`)."""
    out = accounts.me(service(), bearer(), args.get("after"), args["limit"])
    player = accounts.authenticate(service(), bearer())
    return {**out, "invitations": joining.invitations_of(service(), player),
            "league_invitations": [i for find in service().league_invitations_of for i in find(service(), player["id"])]}


@blp.route("/players/me", methods=["PATCH"])
@blp.arguments(s.PlayerContactChange())
@blp.response(200, s.PlayerMe)
@blp.doc(operationId="changeMe", security=TOKEN)
@refusals(blp, 400, 401, 413, 415)
@timed("players-me")
def change_me(args):
    """Change or remove the caller's contacts: a key given replaces, null removes, a key
    left out stays. A changed address is unconfirmed until its new code comes back; a
    new webhook URL gets a new `webhook_secret`, shown in this answer once."""
    return accounts.change(service(), bearer(), args)


@blp.route("/players/<player_id>", methods=["GET"])
@blp.arguments(s.PlayerGamesArgs(), location="query")
@blp.response(200, s.PlayerProfile)
@refusals(blp, 400, 404)
@timed("players-profile")
@blp.doc(operationId="getPlayer", security=PUBLIC)
def profile(args, player_id):
    """A player's public profile: name, rating per game, games played and won, and its
    current games a page at a time, those waiting on the player first: pass the
    answer's `current_games_next` as `after` for the next page (null on the last)."""
    return accounts.profile(service(), player_id, args.get("after"), args["limit"])


@blp.route("/players/<player_id>/confirm", methods=["POST"])
@blp.arguments(s.PlayerConfirm())
@blp.response(200, s.PlayerConfirmed)
@refusals(blp, 400, 403, 404, 413, 415)
@timed("players-confirm")
@blp.doc(operationId="confirmPlayerEmail", security=PUBLIC)
def confirm(args, player_id):
    """Confirm the player's e-mail address with the code from its confirmation message
    (no token needed: the code is the proof). A wrong or expired code is 403 naming
    `code` and confirms nothing. Wrong codes count per client address: each address
    may try 10 for a confirmation, and none stops the right code from another
    address; codes tried are rate-limited per client address (`REFEREE_CONFIRM_RATE`)."""
    return accounts.confirm(service(), player_id, args["code"], limits.address(request.remote_addr))


@blp.route("/players/<player_id>/ratings", methods=["GET"])
@blp.arguments(s.PlayerHistoryArgs(), location="query")
@blp.response(200, s.PlayerHistory)
@refusals(blp, 400, 404)
@timed("players-ratings")
@blp.doc(operationId="getPlayerRatings", security=PUBLIC)
def ratings(args, player_id):
    """The player's rating history for one game, oldest first, a page at a time:
    each rated game's id, the player's place, and the rating before and after."""
    return accounts.history(service(), player_id, args["game"], args["after"], args["limit"])


@blp.route("/players/<player_id>/ratings.svg", methods=["GET"])
@blp.arguments(s.PlayerPictureArgs(), location="query")
@blp.doc(operationId="getPlayerRatingsPicture", security=PUBLIC, responses={"200": binary(
    "the rating (mu and ordinal) over the player's last rated games of that kind, as an SVG "
    "picture; the answer's type is image/svg+xml", {"image/svg+xml": {"schema": {"type": "string"}}})})
@refusals(blp, 400, 404)
def ratings_svg(args, player_id):
    """The player's rating over time as a picture (the last 200 rated games of the kind)."""
    svg = pictures.draw(service(), player_id, args["game"])
    resp = Response(svg, mimetype="image/svg+xml")
    resp.set_etag(hashlib.sha256(svg.encode()).hexdigest()[:32])
    resp.headers["Cache-Control"] = "public, no-cache"
    return resp.make_conditional(request)


@blp.route("/games/<game_id>/join", methods=["POST"])
@blp.arguments(s.JoinGame())
@blp.response(201, s.Joined)
@blp.doc(operationId="joinGame", security=TOKEN)
@refusals(blp, 400, 401, 403, 404, 409, 413, 415)
@timed("join")
def join(args, game_id):
    """Take a seat of an open game (player token): `{seat?}`, else the seat kept for the
    caller (invited by id or by confirmed address) or the first open one. The last seat
    taken creates the game (its log starts then, with every player). Two players joining
    for the last seat at once: one takes it, the other gets 409."""
    return joining.join(service(), game_id, bearer(), args)


@blp.route("/games/<game_id>/decline", methods=["POST"])
@blp.response(200, s.Joined)
@blp.doc(operationId="declineGame", security=TOKEN)
@refusals(blp, 401, 403, 404, 409)
@timed("decline")
def decline(game_id):
    """Refuse the seat an open game keeps for the caller (player token; invited by id or by
    confirmed address): the game is cancelled, nothing dealt, nothing rated. 403
    `not-invited` when no seat is kept for the caller; 409 `not-open` once the game has
    started or was cancelled."""
    return joining.decline(service(), game_id, bearer())


@blp.route("/games/<game_id>/seats/<int:seat>/fill", methods=["POST"])
@blp.arguments(s.FillSeat())
@blp.response(201, s.Joined)
@blp.doc(operationId="fillSeat", security=TOKEN)
@refusals(blp, 400, 401, 403, 404, 409, 413, 415)
@timed("fill")
def fill(args, game_id, seat):
    """Give an open game's open (or invited) seat to a bot (its admin token): `{bot, name?}`."""
    return lobby.fill(service(), game_id, bearer(), seat, args)


@blp.route("/games/<game_id>/cancel", methods=["POST"])
@blp.response(200, s.Joined)
@blp.doc(operationId="cancelOpenGame", security=TOKEN)
@refusals(blp, 401, 403, 404, 409)
@timed("cancel")
def cancel(game_id):
    """Cancel an open game (its admin token): out of the lobby, nobody joins it any more.
    A game whose seats are all taken is aborted instead (`POST .../abort`)."""
    return lobby.cancel(service(), game_id, bearer())


def install(app, api) -> None:
    """Register the player endpoints (documented in OpenAPI) and pages."""
    from referee.players import pages

    api.register_blueprint(blp)
    app.register_blueprint(pages.pages)
    # the confirmation page's and the invitation page's buttons post forms, not JSON
    bodies.RAW_BODIES["player_pages.confirm_post"] = ({bodies.FORM}, bodies.DEFAULT_MAX)
    bodies.RAW_BODIES["player_pages.invitation_post"] = ({bodies.FORM}, bodies.DEFAULT_MAX)
