"""The league's page (plain HTML, no script): standings, a crosstable for a
round-robin, the rounds with a link to every game, and each player's rating over
the league as a picture drawn here (``/leagues/{id}/ratings.svg``).

The ratings come from the players' public rating histories (referee/players): for
each player, the rating after each of their league games, in the order recorded.
"""

from __future__ import annotations

from flask import Blueprint, Response, abort, render_template

from referee.api.routes import service
from referee.leagues import running
from referee.players.store import players_of

pages = Blueprint("league_pages", __name__, template_folder="templates")
# No script, no inline style: the page and its picture pass the strictest policy.
POLICY = "default-src 'none'; img-src 'self'; style-src 'self'; form-action 'none'; base-uri 'none'"


@pages.after_request
def _policy(resp):
    resp.headers["Content-Security-Policy"] = POLICY
    return resp
WIDTH, HEIGHT, PAD = 640, 260, 40
COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf")


def _view(league_id: str) -> dict:
    try:
        return running.view(service(), league_id)
    except running.NoSuchLeague:
        abort(404)


@pages.route("/leagues/<league_id>")
def league_page(league_id):
    league = _view(league_id)
    names = {p["player"]: p["name"] for p in league["players"]}
    return render_template("leagues/league.html", league=league, names=names)


def rating_lines(league: dict) -> list[dict]:
    """Each player's ordinal after each of their league games: ``[{name, values}]``."""
    store, prefix = players_of(service()), league["id"] + "r"
    out = []
    for p in league["players"]:
        history = store.history(p["player"], league["game"], limit=200, newest=True)
        mine = [e for e in history if e["game_id"].startswith(prefix)]
        values = ([mine[0]["before"]["ordinal"]] if mine else []) + [e["after"]["ordinal"] for e in mine]
        out.append({"name": p["name"], "values": values})
    return out


def draw(lines: list[dict]) -> dict:
    """Screen coordinates of each player's line."""
    values = [v for ln in lines for v in ln["values"]] or [0.0]
    low, high = min(values), max(values)
    if high - low < 1:
        low, high = low - 0.5, high + 0.5
    steps = max([len(ln["values"]) - 1 for ln in lines] + [1])

    def xy(i, v):
        return (f"{PAD + (WIDTH - 2 * PAD) * i / steps:.1f},"
                f"{PAD / 2 + (HEIGHT - 1.5 * PAD) * (high - v) / (high - low):.1f}")

    return {"width": WIDTH, "height": HEIGHT, "low": f"{low:.1f}", "high": f"{high:.1f}",
            "lines": [{"name": ln["name"], "colour": COLOURS[k % len(COLOURS)], "y": 14 + 14 * k,
                       "points": " ".join(xy(i, v) for i, v in enumerate(ln["values"]))}
                      for k, ln in enumerate(lines)]}


@pages.route("/leagues/<league_id>/ratings.svg")
def ratings_svg(league_id):
    league = _view(league_id)
    svg = render_template("leagues/ratings.svg", **draw(rating_lines(league)))
    return Response(svg, mimetype="image/svg+xml")
