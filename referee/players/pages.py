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
"""

from __future__ import annotations

from flask import Blueprint, abort, render_template, request

from referee.api import limits
from referee.api.routes import service
from referee.games.base import RefereeError
from referee.players import accounts

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
