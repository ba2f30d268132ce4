"""Board pictures (SVG) for every game, drawn from the caller's view.

A picture is made only from ``GameService.view`` (the engine's ``view(state,
viewer)`` for that caller): nothing the viewer may not see ever reaches a
template. Each game has one Jinja2 template under ``templates/boards/``; this
module only lays out the view (rows, columns, colours, which words fit where) so
the templates stay plain drawing. Every layout is made for the game's largest
number of players and for names of any length (``measure.fit``).
"""

from __future__ import annotations

import math

from flask import render_template

from referee import narration
from referee.games.castle_danger import board as cd_board
from referee.web import measure

TEMPLATES = {
    "castle-danger": "boards/castle-danger.svg",
    "king-of-danger": "boards/king-of-danger.svg",
    "king-of-the-castle": "boards/king-of-the-castle.svg",
    "kings-keys": "boards/kings-keys.svg",
}
SEAT_COLOURS = ["#2f6fd0", "#c8322f", "#2e8b3a", "#b8860b", "#7b3fb0", "#444", "#0e7c86", "#a0457a"]
SUIT_COLOURS = {"W": "#8a6d3b", "Z": "#6a3fb0", "C": "#333", "K": "#b8860b", "D": "#c8322f",
                "R": "#c8322f", "G": "#2e8b3a", "B": "#2f6fd0", "Y": "#c9a400"}
GOLD = "#b8860b"


def names(players) -> list[str]:
    return [p if isinstance(p, str) else (p.get("name") or f"seat {i}") for i, p in enumerate(players)]


def named(text: str, who: list[str]) -> str:
    """An engine's sentence ("seat 1 wins") with the players' names."""
    return narration.named(str(text), who)


def outcome(result, who: list[str], aborted: bool = False) -> dict | None:
    """What a finished game's picture and page say first: the headline ("Bob
    wins", "a draw between Ann and Bob") and the reason, with names."""
    if not result:
        return None
    winners = [s for s in result.get("winners", []) if isinstance(s, int) and 0 <= s < len(who)]
    won = [who[s] for s in winners]
    if aborted or not won:
        head = "Game over: no winner"
    elif len(won) == 1:
        head = f"Game over: {won[0]} wins"
    else:
        head = f"Game over: a draw between {', '.join(won[:-1])} and {won[-1]}"
    return {"head": head, "reason": named(result.get("reason", ""), who), "winners": winners,
            "mark": "winner" if len(winners) == 1 else "draw"}  # what a winner's box says


def banner(result: dict | None, room: float) -> dict | None:
    """The result's box at the top of a picture, its lines fitted to ``room``."""
    if result is None:
        return None
    head = measure.fit(result["head"], room - 20, 16, bold=True)
    lines = measure.wrap(result["reason"], room - 20, 13) if result["reason"] else []
    return {**result, "head": head, "lines": lines, "w": room, "h": 36 + 17 * len(lines)}


def _below_banner(sc: dict, width: float, top: float) -> float:
    """Put the result's box (if any) under the title; where drawing starts below it."""
    sc["banner"] = banner(sc["result"], width - 40)
    return top + sc["banner"]["h"] + 14 if sc["banner"] else top


def _castle_danger(view: dict, seat, sc: dict) -> dict:
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
    width = 30 * 2 + 56 * 7 + 210
    top = _below_banner(sc, width, 50)
    who = [measure.fit(f"{p} ({view['colours'][i]})", 160 - (22 if i in sc["winners"] else 0), 14, True)
           for i, p in enumerate(sc["players"])]
    return {"files": files, "ranks": ranks, "cells": cells, "names": cd_board.NAMES,
            "width": width, "top": top, "who": who}


def _king_of_danger(view: dict, sc: dict) -> dict:
    """Seat boxes in a row (each wide enough for its tracker), the trick, the
    last trick, what is set aside and played; with two players each seat's box
    holds its table: four stacks, a face-up card on each, a card back showing
    beneath it while a face-down card is left."""
    players, n = sc["players"], len(sc["players"])
    width = max(760, 40 + n * 176 + (n - 1) * 10)
    bw = (width - 40 - (n - 1) * 10) / n
    two = "face_up" in view and not sc["over"]  # (an ended game's tables are empty)
    top = _below_banner(sc, width, 50)
    bh = 100 + (98 if two else 0)
    seats = []
    for i, p in enumerate(players):
        won = i in sc["winners"]
        table = []
        if two and i < len(view["face_up"]):  # (none between hands)
            for k, card in enumerate(view["face_up"][i]):
                table.append({"card": card, "covered": view["covered"][i][k], "x": 10 + k * 54})
        line = f"score {view['scores'][i]}" + (" · dealer" if i == view["dealer"] and not sc["over"] else "")
        seats.append({"x": 20 + i * (bw + 10), "name": measure.fit(p, bw - 20 - (24 if won else 0), 14, True),
                      "line": measure.fit(line, bw - 20, 14),
                      "hand": measure.fit(f"{view['hand_sizes'][i]} in hand", bw - 20, 14),
                      "tracker": view["trackers"][i], "won": won, "table": table})
    trick_y = top + bh + 40
    shown = [{"card": c, "x": 20 + k * 60, "name": measure.fit(players[s], 58, 11), "colour": s}
             for k, (s, c) in enumerate(view["trick"]["cards"])]
    last = None
    if view["tricks"]:
        t = view["tricks"][-1]
        won = (f"{players[t['winner']]} ({t['by']})" if isinstance(t.get("winner"), int)
               else "set aside, all Kings")  # a trick of Kings alone has no winner
        last = {"head": measure.fit(f"Last trick: {won}", width / 2 - 20, 14, True),
                "cards": [{"card": c, "x": width / 2 + k * 52} for k, (_, c) in enumerate(t["cards"])]}
    rows_y = trick_y + 120
    played = [" ".join(view["played"][k:k + 9]) for k in range(0, len(view["played"]), 9)]
    height = (top + bh + 20) if sc["over"] else rows_y + (40 + 18 * len(played) if two else 90)
    hand_y = height + 20
    hand_x = 20
    if "hand" in view:
        height += 110
        if two and isinstance(sc["seat"], int) and sc["seat"] < n:
            # with two players the hand (five cards at most) lies under the seat's own
            # box, its table: a phone scrolls the picture to them together
            hand_x = seats[sc["seat"]]["x"]
    return {"width": width, "height": height, "top": top, "bw": bw, "bh": bh, "seats": seats, "two": two,
            "hand_x": hand_x,
            "trick_y": trick_y, "shown": shown, "last": last, "rows_y": rows_y, "played_rows": played,
            "hand_y": hand_y, "trick_number": len(view["tricks"]) + 1,
            "leader": measure.fit(players[view["leader"]], 200, 14, True) if view.get("leader") is not None else None}


def _kings_keys(view: dict, sc: dict) -> dict:
    """A full-width box per seat; its collected cards overlap more the more
    there are, so any number fits the box."""
    width, players = 820, sc["players"]
    top = _below_banner(sc, width, 50)
    seats_y = top + (0 if sc["over"] else 150)  # a finished game's field is empty
    seats = []
    for i, p in enumerate(players):
        won = i in sc["winners"]
        got = view["collected"][i]
        room = 780 - 140 - 10 - 40  # from x=140 to the box's right edge, less a card
        step = min(28.0, room / (len(got) - 1)) if len(got) > 1 else 28.0
        seats.append({"y": seats_y + i * 92, "name": measure.fit(p, 110 - (20 if won else 0), 14, True),
                      "won": won, "cards": [{"card": c, "x": 140 + k * step} for k, c in enumerate(got)],
                      "points": measure.fit(f"{view['totals'][i]} points", 115, 14),
                      "hand": measure.fit(f"{view['hand_sizes'][i]} in hand", 115, 14)})
    height = seats_y + len(players) * 92 + 10
    hand_y = height + 10
    if "hand" in view:
        height += 100
    field_step = min(58.0, (560 - 50) / (len(view["field"]) - 1)) if len(view["field"]) > 1 else 58.0
    return {"width": width, "height": height, "top": top, "seats_y": seats_y, "seats": seats,
            "hand_y": hand_y, "field_step": field_step}


def _king_of_the_castle(view: dict, sc: dict) -> dict:
    """The King, the castles, then the players in rows of at most four boxes
    (eight players make two rows); a finished game shows each one's points and
    squires."""
    players, n = sc["players"], len(sc["players"])
    nc = len(view["castles"])
    width = 40 + nc * 250 if nc > 2 else 560
    top = _below_banner(sc, width, 44)
    castles_y = top + 76
    cols = min(n, 4)
    bw = (width - 40 - (cols - 1) * 10) / cols
    bh = 70
    people_y = castles_y + CASTLE_H + 20
    result = view.get("result") or {}
    squires = view.get("all_squires") or []
    boxes = []
    for i, p in enumerate(players):
        won = i in sc["winners"]
        row, col = divmod(i, cols)
        if sc["over"]:
            line = f"{result.get('scores', [None] * n)[i]} points"
            more = f"squires {' '.join(squires[i])}" if i < len(squires) and squires[i] else ""
        else:
            line = f"{view['hand_sizes'][i]} cards"
            more = "to play" if i in sc["meta"]["to_act"] else ""
        boxes.append({"x": 20 + col * (bw + 10), "y": people_y + row * (bh + 10), "won": won,
                      "name": measure.fit(p, bw - 20 - (24 if won else 0), 14, True),
                      "line": measure.fit(line, bw - 20 - (50 if won else 0), 13),
                      "more": measure.fit(more, bw - 20, 13)})
    rows = math.ceil(n / cols)
    decks_y = people_y + rows * (bh + 10) + 14
    height = decks_y + 14
    hand_y = height + 14
    # The seat's own hand in rows of whole cards (a card's name is never cut: the
    # player must read it), as many rows as the hand needs.
    per_row = max(1, int((width - 34) // HAND_STEP))
    # a hand card is a tap target: 44 high, rows 50 apart
    hand = [{"card": c, "x": 20 + (i % per_row) * HAND_STEP, "y": hand_y + 10 + (i // per_row) * 50}
            for i, c in enumerate(view.get("hand") or [])]
    if "hand" in view:
        height += 48 + 50 * max(1, math.ceil(len(hand) / per_row))
    return {"width": width, "height": height, "top": top, "castles_y": castles_y, "bw": bw, "bh": bh,
            "boxes": boxes, "decks_y": decks_y, "hand_y": hand_y, "hand": hand, "hand_step": HAND_STEP,
            "castle_h": CASTLE_H, "post_h": POST_H, "stack_y": STACK_Y}


# The width a King of the Castle card takes in a seat's hand: its longest name,
# beneficial-assassination, is 148 px at 12 px (tests/test_pictures.py checks every name)
HAND_STEP = 160
# A castle's posts (Lord, Seneschal, Master at Arms) are rows 46 apart, each a
# tap target 44 high a finger can take, picked after the card (2 between them, so
# two offered at once glow as two boxes); its attributes' stacks (up to five
# cards, then "and N more") below them, each stack one tall target.
POST_H = 46
STACK_Y = 30 + 3 * POST_H + 6
CASTLE_H = STACK_Y + 24 + 5 * 32 + 10


LAYOUTS = {"king-of-danger": _king_of_danger, "kings-keys": _kings_keys,
           "king-of-the-castle": _king_of_the_castle}


def scene(summary: dict, view: dict) -> dict:
    """Everything a template needs: the view, the players and the layout."""
    game = summary["game"]
    body = view["view"]
    who = names(summary["players"])
    result = outcome(view.get("result"), who, view.get("status") == "aborted")
    out = {"game": game, "players": who, "view": body, "meta": view,
           "seat": view.get("seat"), "colours": SEAT_COLOURS, "suits": SUIT_COLOURS, "gold": GOLD,
           "result": result, "banner": None, "over": result is not None,
           "winners": set(result["winners"]) if result else set(), "fit": measure.fit,
           "mark": result["mark"] if result else None}
    if game == "castle-danger":
        out.update(_castle_danger(body, view.get("seat"), out))
    elif game in LAYOUTS:
        out.update(LAYOUTS[game](body, out))
    return out


def draw(summary: dict, view: dict) -> str:
    return render_template(TEMPLATES[summary["game"]], **scene(summary, view))
