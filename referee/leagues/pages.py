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
WIDTH, HEIGHT, PAD = 640, 260, 40  # (the names' column beside it: 160 more)
COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf")


def _view(league_id: str) -> dict:
    try:
        return running.view(service(), league_id)
    except running.NoSuchLeague:
        abort(404)


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 21st."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def places(placings: list[int] | None) -> list[str] | None:
    """A game's placings as places, never to be read as scores ("2" was): "1st",
    "2nd", a shared place marked "=" ("1st=")."""
    if not placings:
        return None
    return [ordinal(p) + ("=" if placings.count(p) > 1 else "") for p in placings]


def shared_places(standings: list[dict]) -> list[dict]:
    """Each place shared by players level on points and on every tie-break:
    ``[{place, names}]``, so the page can say why they share it."""
    by_rank: dict = {}
    for s in standings:
        by_rank.setdefault(s["rank"], []).append(s["name"])
    return [{"rank": rank, "place": ordinal(rank), "names": names} for rank, names in by_rank.items() if len(names) > 1]


@pages.route("/leagues/<league_id>")
def league_page(league_id):
    league = _view(league_id)
    names = {p["player"]: p["name"] for p in league["players"]}
    placed = {g["game"]: places(g["placings"]) for rnd in league["rounds"] for g in rnd["games"]}
    winners = [s["name"] for s in league["standings"] if s["rank"] == 1] if league["status"] == "finished" else []
    # before any rated league game the picture would be empty axes: a sentence says so instead
    lines = rating_lines(league)
    rated = any(len(ln["values"]) > 1 for ln in lines)
    # the picture's names again as text beside it, in its colours: readable on a phone,
    # where the picture is drawn at half its size
    key = [{"name": ln["name"], "colour": k % len(COLOURS)} for k, ln in enumerate(lines)]
    # before any result everyone is level: nothing to explain yet
    shared = shared_places(league["standings"]) if any(s["played"] for s in league["standings"]) else []
    return render_template("leagues/league.html", league=league, names=names, placed=placed,
                           winners=winners, rated=rated, key=key, shared=shared,
                           shared_ranks={sh["rank"] for sh in shared})


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
            "lines": [{"name": ln["name"], "colour": COLOURS[k % len(COLOURS)], "y": 20 + 20 * k,
                       "points": " ".join(xy(i, v) for i, v in enumerate(ln["values"]))}
                      for k, ln in enumerate(lines)]}


@pages.route("/leagues/<league_id>/ratings.svg")
def ratings_svg(league_id):
    league = _view(league_id)
    svg = render_template("leagues/ratings.svg", **draw(rating_lines(league)))
    return Response(svg, mimetype="image/svg+xml")
