"""The player's page and the confirmation page (plain HTML, no script).

``GET /players/{id}``: the public profile and, for each game rated, the rating over
time as a picture (``/v1/players/{id}/ratings.svg``). Only what the public profile
shows: no contacts, no token, no game's state.

``GET /me``: the player's own page, drawn by its static script (``me.js``) from
``GET /v1/players/me`` with the token of the address's fragment: the games waiting
on the player first, then its other games, its invitations and its leagues.

``GET /players/{id}/confirm?code=C``: the link of a confirmation message opens a
page with a button; only the button (a form ``POST``) confirms. A link opened by a
mail scanner or a preview confirms nothing.

``GET /games/{id}/invitation?seat=S&code=C``: the link of an invitation's message
(referee/players/invitation_mail.py) opens the open game's page for that seat with
Accept and Decline buttons (form posts, as the confirmation's); accepting seats the
invited player, registering one with the invited address where nobody has it
confirmed (its token shown on that answer once), with the player's entropy: their
own if they type it, else 32 random bytes the page's script draws (invitation.js).
"""

from __future__ import annotations

from flask import Blueprint, abort, make_response, render_template, request

from referee.api import limits
from referee.api.routes import service
from referee.games import engine as engine_by_name
from referee.games.base import RefereeError
from referee.players import accounts, joining, lobby
from referee.players import invitation_mail as mailing
from referee.players.store import players_of

pages = Blueprint("player_pages", __name__, template_folder="templates")


@pages.route("/players/<player_id>")
def player_page(player_id):
    try:
        player = accounts.profile(service(), player_id)
    except accounts.NoSuchPlayer:
        abort(404)
    return render_template("players/profile.html", player=player)


@pages.route("/players/<player_id>/confirm", methods=["GET"])
def confirm_form(player_id):
    try:
        accounts.player_record(service(), player_id)
    except accounts.NoSuchPlayer:
        abort(404)
    code = request.args.get("code", "")[:64]
    return render_template("players/confirm.html", player_id=player_id, code=code, outcome=None)


@pages.route("/players/<player_id>/confirm", methods=["POST"])
def confirm_post(player_id):
    code = request.form.get("code", "")
    try:
        accounts.confirm(service(), player_id, code, limits.address(request.remote_addr))
    except accounts.NoSuchPlayer:
        abort(404)
    except RefereeError as err:
        return render_template("players/confirm.html", player_id=player_id, code="",
                               outcome={"ok": False, "detail": err.detail}), err.status
    return render_template("players/confirm.html", player_id=player_id, code="",
                           outcome={"ok": True, "detail": "Your address is confirmed."})


@pages.route("/me")
def me_page():
    """The player's own page: the script reads the player token from the fragment
    (``/me#token=...``, never sent in an address) and asks ``GET /v1/players/me``."""
    return render_template("players/me.html")


def _invitation(game_id: str, seat, code: str, refused: str | None = None, done: dict | None = None,
                status: int = 200):
    """The invitation's page: the open game, the seat, and the buttons while the code
    may still answer (a refusal said above them)."""
    svc = service()
    found = lobby.find(svc, game_id)
    if found is None:
        abort(404)
    page = {"game": found, "title": engine_by_name(found["game"]).title, "seat": seat, "code": code,
            "player": None, "inviter": None, "answerable": False, "refused": refused, "done": done}
    if done is None:
        try:
            record, player = joining.by_code(svc, game_id, seat, code)
        except RefereeError as err:
            page["refused"], status = refused or err.detail, status if refused else err.status
        else:
            page.update(player=player, inviter=mailing.inviter_name(players_of(svc), record), answerable=True)
    resp = make_response(render_template("players/invitation.html", **page), status)
    resp.headers["Cache-Control"] = "no-store"  # a token may be on it, and the code is in its address
    resp.headers["Referrer-Policy"] = "no-referrer"
    return resp


@pages.route("/games/<game_id>/invitation", methods=["GET"])
def invitation_form(game_id):
    return _invitation(game_id, request.args.get("seat", type=int), request.args.get("code", "")[:64])


@pages.route("/games/<game_id>/invitation", methods=["POST"])
def invitation_post(game_id):
    svc = service()
    seat, code = request.form.get("seat", type=int), request.form.get("code", "")[:64]
    try:
        if request.form.get("answer") == "decline":
            joining.decline_by_code(svc, game_id, seat, code)
            done = {"text": "You declined: the game is cancelled, and nothing of it was dealt."}
        else:
            out = joining.accept_by_code(svc, game_id, seat, code, request.form.get("name", ""),
                                         request.form.get("entropy") or None)
            started = out["status"] != "open"
            done = {"joined": True, "token": out.get("token"), "started": started,
                    "text": f"You hold seat {out['seat']} as {out['name']}. " + (
                        "Every seat is taken: the game has started." if started else
                        "The game starts once every seat is taken.")}
    except RefereeError as err:
        return _invitation(game_id, seat, code, refused=err.detail, status=err.status)
    return _invitation(game_id, seat, code, done=done, status=201 if done.get("joined") else 200)
