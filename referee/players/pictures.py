"""A player's rating over time as an SVG picture, drawn server-side.

Drawn from the player's public rating history only (the last ``POINTS`` rated games
of one kind, read as one page from the end, never the whole history): the skill
``mu`` with its band of one ``sigma`` each side, and the ``ordinal`` tables sort by.
This module lays the points out; ``templates/players/rating.svg`` only draws them.
"""

from __future__ import annotations

from flask import render_template

from referee.players import accounts, ratings
from referee.players.store import players_of

POINTS = 200
WIDTH, HEIGHT = 640, 260
LEFT, RIGHT, TOP, BOTTOM = 56, 16, 36, 34


def layout(history: list[dict]) -> dict:
    """Screen coordinates of each rating: the one before the first game shown, then
    the one after each game."""
    points = ([history[0]["before"]] + [e["after"] for e in history]) if history else [ratings.initial()]
    first_n = history[0]["n"] - 1 if history else 0
    values = [p["mu"] + p["sigma"] for p in points] + [p["mu"] - p["sigma"] for p in points] \
        + [p["ordinal"] for p in points]
    low, high = min(values), max(values)
    if high - low < 1:
        low, high = low - 0.5, high + 0.5
    span_x = max(1, len(points) - 1)

    def x(i):
        return round(LEFT + (WIDTH - LEFT - RIGHT) * i / span_x, 1)

    def y(v):
        return round(TOP + (HEIGHT - TOP - BOTTOM) * (high - v) / (high - low), 1)

    def line(values):
        return " ".join(f"{x(i)},{y(v)}" for i, v in enumerate(values))

    upper = [(x(i), y(p["mu"] + p["sigma"])) for i, p in enumerate(points)]
    lower = [(x(i), y(p["mu"] - p["sigma"])) for i, p in enumerate(points)][::-1]
    ticks = [(round(low + (high - low) * k / 4, 1)) for k in range(5)]
    return {"mu": line([p["mu"] for p in points]), "ordinal": line([p["ordinal"] for p in points]),
            "band": " ".join(f"{a},{b}" for a, b in upper + lower),
            "ticks": [{"y": y(t), "label": f"{t:g}"} for t in ticks],
            "first_n": first_n, "last_n": first_n + len(points) - 1, "now": points[-1],
            "games": len(history), "width": WIDTH, "height": HEIGHT, "left": LEFT, "right": WIDTH - RIGHT,
            "top": TOP, "bottom": HEIGHT - BOTTOM}


def draw(service, player_id: str, game: str) -> str:
    player = accounts.player_record(service, player_id)  # 404 for no such player
    history = players_of(service).history(player["id"], game, limit=POINTS, newest=True)
    return render_template("players/rating.svg", name=player["name"], game=game, **layout(history))
