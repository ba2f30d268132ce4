"""Board pictures (SVG) for every game, drawn from the caller's view.

A picture is made only from ``GameService.view`` (the engine's ``view(state,
viewer)`` for that caller): nothing the viewer may not see ever reaches a
template. Each game has one Jinja2 template under ``templates/boards/``; this
module only lays out the view (rows, columns, colours) so the templates stay
plain drawing.
"""

from __future__ import annotations

from flask import render_template

from referee.games.castle_danger import board as cd_board

TEMPLATES = {
    "castle-danger": "boards/castle-danger.svg",
    "king-of-danger": "boards/king-of-danger.svg",
    "king-of-the-castle": "boards/king-of-the-castle.svg",
    "kings-keys": "boards/kings-keys.svg",
}
SEAT_COLOURS = ["#2f6fd0", "#c8322f", "#2e8b3a", "#b8860b", "#7b3fb0", "#444"]
SUIT_COLOURS = {"W": "#8a6d3b", "Z": "#6a3fb0", "C": "#333", "K": "#b8860b", "D": "#c8322f",
                "R": "#c8322f", "G": "#2e8b3a", "B": "#2f6fd0", "Y": "#c9a400"}


def _castle_danger(view: dict, seat) -> dict:
    files = list(cd_board.FILES)
    ranks = list(cd_board.RANKS)[::-1]
    if seat == 1:  # each seat sees its own half at the bottom, as in the text view
        files, ranks = files[::-1], ranks[::-1]
    cells = []
    for row, r in enumerate(ranks):
        for col, f in enumerate(files):
            sq = f"{f}{r}"
            piece = view["pieces"].get(sq)
            cells.append({"sq": sq, "x": col, "y": row, "terrain": cd_board.terrain(sq),
                          "portal": sq in view["portals"], "wall": sq in view["walls"],
                          "fire": view["fire"].get(sq), "piece": piece})
    return {"files": files, "ranks": ranks, "cells": cells, "names": cd_board.NAMES}


def scene(summary: dict, view: dict) -> dict:
    """Everything a template needs: the view, the players and the layout."""
    game = summary["game"]
    body = view["view"]
    out = {"game": game, "players": summary["players"], "view": body, "meta": view,
           "seat": view.get("seat"), "colours": SEAT_COLOURS, "suits": SUIT_COLOURS}
    if game == "castle-danger":
        out.update(_castle_danger(body, view.get("seat")))
    return out


def names(players) -> list[str]:
    return [p if isinstance(p, str) else (p.get("name") or f"seat {i}") for i, p in enumerate(players)]


def draw(summary: dict, view: dict) -> str:
    sc = scene(summary, view)
    sc["players"] = names(summary["players"])
    return render_template(TEMPLATES[summary["game"]], **sc)
