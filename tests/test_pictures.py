"""Board pictures: what each game draws, that every seat's box holds what is
drawn in it at the game's largest number of players (with long names), and a
finished game's result first with its winners marked. Real rendering in
Chromium is checked in tests/test_watching_browser.py."""

from __future__ import annotations

import html
import random
import re
import xml.etree.ElementTree as ET

import pytest

from referee.web import measure
from tests.helpers import Game

SVG = "{http://www.w3.org/2000/svg}"
LONG = ["Maximiliana Featherstonehaugh", "Bartholomew Wolfeschlegel", "Cy", "Dorothea von Württemberg-Hohenlohe",
        "Eve", "Fitzgerald Montmorency", "Gus", "Hildegard WWWWWWWWWWWWWWWWW"]
# each game at its largest number of players
LARGEST = [("king-of-danger", 5, {}), ("castle-danger", 2, {"variant": "hidden-danger"}),
           ("king-of-the-castle", 8, {}), ("kings-keys", 4, {})]
SHORT = {"king-of-danger": {"target": 8}, "castle-danger": {"turn_limit": 3}}


def _play(g: Game, rnd: random.Random, moves: int) -> None:
    for _ in range(moves):
        s = g.summary()
        if s["status"] != "active":
            return
        seat = rnd.choice(s["to_act"])
        legal = [m for m in g.legal(seat) if m["type"] not in ("resign", "offer-draw", "take-back")]
        assert g.post(seat, {"move": rnd.choice(legal)}).status_code == 201


def _shift(el) -> tuple[float, float]:
    m = re.match(r"translate\(([-\d.]+),([-\d.]+)\)", el.get("transform") or "")
    return (float(m.group(1)), float(m.group(2))) if m else (0.0, 0.0)


def _boxes(el, dx=0.0, dy=0.0):
    """(what, x0, y0, x1, y1) of every drawn thing under ``el``, in ``el``'s
    coordinates; a text's width estimated as the pictures estimate it."""
    for child in el:
        tag = child.tag.replace(SVG, "")
        if tag in ("title", "desc"):
            continue
        if tag == "g":
            sx, sy = _shift(child)
            yield from _boxes(child, dx + sx, dy + sy)
        elif tag == "rect" and not child.get("width", "").endswith("%"):  # (not the background)
            x, y = float(child.get("x", 0)) + dx, float(child.get("y", 0)) + dy
            yield "rect", x, y, x + float(child.get("width")), y + float(child.get("height"))
        elif tag == "circle":
            cx, cy, r = (float(child.get(k)) for k in ("cx", "cy", "r"))
            yield "circle", cx - r + dx, cy - r + dy, cx + r + dx, cy + r + dy
        elif tag == "path" and child.get("class") == "crown":
            sx, sy = _shift(child)
            yield "crown", sx + dx, sy + dy, sx + dx + 20, sy + dy + 14
        elif tag == "text":
            words = "".join(child.itertext())
            size = float(child.get("font-size") or el_size(child))
            w = measure.width(words, size, child.get("font-weight") == "bold")
            x, y = float(child.get("x", 0)) + dx, float(child.get("y", 0)) + dy
            x0 = {"middle": x - w / 2, "end": x - w}.get(child.get("text-anchor"), x)
            yield f"text {words!r}", x0, y - size * 0.8, x0 + w, y + size * 0.25


def el_size(_child) -> float:
    return 14.0  # the picture's own font-size (boards/_base.svg)


def overflows(svg: str) -> list[str]:
    """Everything drawn in a seat's box that sticks out of it, and everything
    drawn anywhere that sticks out of the picture."""
    root = ET.fromstring(svg)
    width, height = float(root.get("width")), float(root.get("height"))
    out = []
    for what, x0, y0, x1, y1 in _boxes(root):
        if x0 < -0.5 or y0 < -0.5 or x1 > width + 0.5 or y1 > height + 0.5:
            out.append(f"{what} outside the picture: {x0:.0f},{y0:.0f}-{x1:.0f},{y1:.0f}")
    for seat in root.iter(f"{SVG}g"):
        if "seat" not in (seat.get("class") or "").split():
            continue
        frame = next(seat.iter(f"{SVG}rect"))
        w, h = float(frame.get("width")), float(frame.get("height"))
        for what, x0, y0, x1, y1 in list(_boxes(seat))[1:]:
            if x0 < 0 or y0 < 0 or x1 > w or y1 > h:
                out.append(f"seat {seat.get('data-seat')}: {what} at {x0:.0f},{y0:.0f}-{x1:.0f},{y1:.0f}"
                           f" outside {w:.0f}x{h:.0f}")
    return out


@pytest.mark.parametrize("game,players,options", LARGEST, ids=[g for g, _, _ in LARGEST])
def test_every_picture_fits_its_largest_player_count(client, game, players, options):
    rnd = random.Random(game)
    g = Game(client, game, LONG[:players], {**options, "seed": game})
    checked = 0
    for moves in (0, 6, 20):
        _play(g, rnd, moves)
        for who in (None, 0, players - 1):
            svg = g.get("/board.svg", who).get_data(as_text=True)
            assert len([e for e in ET.fromstring(svg).iter(f"{SVG}g") if "seat" in (e.get("class") or "")]) \
                == players
            assert overflows(svg) == [], (who, moves)
            checked += 1
    done = Game(client, game, LONG[:players], {**options, **SHORT.get(game, {}), "seed": game + "-end"})
    done.play_random(rnd)
    for who in (None, 0):
        assert overflows(done.get("/board.svg", who).get_data(as_text=True)) == []
    assert checked == 9


def _texts(el) -> list[str]:
    return ["".join(t.itertext()) for t in el.iter(f"{SVG}text")]


def test_two_player_king_of_danger_draws_both_tables(client):
    g = Game(client, "king-of-danger", ["Ann", "Bob"], {"seed": "tables"})
    rnd = random.Random(6)
    seen_revealed = False
    for _ in range(14):
        view = g.get("/view").json["view"]
        for who in (None, 0, 1):
            root = ET.fromstring(g.get("/board.svg", who).data)
            seats = {int(e.get("data-seat")): e for e in root.iter(f"{SVG}g") if e.get("class") == "seat"}
            for s in (0, 1):
                stacks = [t for t in seats[s].iter(f"{SVG}g") if t.get("class") == "table-card"]
                drawn = [next(c for c in t if c.get("class") == "card") for t in stacks]
                assert [_texts(c)[0] for c in drawn] == [c for c in view["face_up"][s] if c]
                backs = [any(c.get("class") == "card-back" for c in t) for t in stacks]
                assert backs == [cov for c, cov in zip(view["face_up"][s], view["covered"][s], strict=True) if c]
                empty = [r for r in seats[s].iter(f"{SVG}rect") if r.get("class") == "table-empty"]
                assert len(empty) == view["face_up"][s].count(None)
        seen_revealed |= any(not cov for cov in view["covered"][0] + view["covered"][1])
        # play a table card whenever one may: that turns up the card beneath
        seat = g.summary()["to_act"][0]
        legal = [m for m in g.legal(seat) if m["type"] == "play"]
        table = [m for m in legal if m["card"] in view["face_up"][seat]]
        assert g.post(seat, {"move": rnd.choice(table or legal)}).status_code == 201
    assert seen_revealed


def _finished(client, game: str, players: list, options: dict) -> Game:
    g = Game(client, game, players, {**options, **SHORT.get(game, {}), "seed": f"end-{game}"})
    g.play_random(random.Random(game))
    return g


ENDS = [("king-of-danger", ["Ann", "Bob", "Cy"], {}), ("castle-danger", ["Ann", "Bob"], {}),
        ("king-of-the-castle", ["Ann", "Bob", "Cy"], {}), ("kings-keys", ["Ann", "Bob", "Cy"], {})]


@pytest.mark.parametrize("game,players,options", ENDS, ids=[g for g, _, _ in ENDS])
def test_a_finished_game_shows_its_result_first_and_marks_the_winners(client, game, players, options):
    g = _finished(client, game, players, options)
    result = g.summary()["result"]
    won = [players[s] for s in result["winners"]]
    head = (f"Game over: {won[0]} wins" if len(won) == 1
            else f"Game over: a draw between {', '.join(won[:-1])} and {won[-1]}")
    root = ET.fromstring(g.get("/board.svg").data)
    box = next(e for e in root.iter(f"{SVG}g") if e.get("class") == "result")
    assert _texts(box)[0] == head
    assert not re.search(r"\bseat \d", " ".join(_texts(box)))  # names, not seat numbers
    seats = [e for e in root.iter(f"{SVG}g") if "seat" in (e.get("class") or "").split()]
    assert all(_shift(box)[1] < _shift(s)[1] for s in seats)  # the result comes first
    for s in seats:
        winner = int(s.get("data-seat")) in result["winners"]
        assert ("winner" in s.get("class")) == winner
        assert any(t in ("winner", "draw") for t in _texts(s)) == winner
        assert any(p.get("class") == "crown" for p in s.iter(f"{SVG}path")) == winner
    drawn = " ".join(_texts(root))
    for stale in ("no card yet", "Set aside", "Trick ", "Field", "empty"):
        assert stale not in drawn
    # the page: the result right under the heading, the winners marked in the players' table
    page = html.unescape(client.get(f"/games/{g.id}").get_data(as_text=True))
    after_heading = page.split("</h1>", 1)[1].lstrip()
    assert after_heading.startswith(f'<div id="result" class="result"><strong>{head}</strong>')
    rows = re.findall(r'<tr( class="winner")?><td>(\d+)</td><td>[^<]*</td><td>[^<]*</td><td>([^<]*)</td></tr>', page)
    assert [int(seat) for marked, seat, _ in rows if marked] == result["winners"]
    mark = "winner" if len(won) == 1 else "draw"
    assert [cell for marked, _, cell in rows] == [mark if m else "" for m, _, _ in rows]


def test_a_game_still_going_has_no_result_box(client):
    g = Game(client, "king-of-danger", ["Ann", "Bob", "Cy"])
    root = ET.fromstring(g.get("/board.svg").data)
    assert not [e for e in root.iter(f"{SVG}g") if e.get("class") in ("result", "seat winner")]
    page = client.get(f"/games/{g.id}").get_data(as_text=True)
    assert '<div id="result" class="result" hidden></div>' in page and 'class="winner"' not in page


def test_a_trick_of_kings_alone_is_drawn_as_set_aside(client):
    """Both seats play Kings (seed chosen so both hold one): the trick has no
    winner and the picture says so."""
    g = Game(client, "king-of-danger", ["Ann", "Bob"], {"seed": "kings-1"})
    for _ in range(2):
        seat = g.summary()["to_act"][0]
        legal = [m for m in g.legal(seat) if m["type"] == "play"]
        assert g.post(seat, {"move": [m for m in legal if m["card"].startswith("K")][0]}).status_code == 201
    assert g.get("/events", "admin", limit=1000).json["events"][-1]["type"] == "trick-set-aside"
    for who in (None, 0, 1, "admin"):
        r = g.get("/board.svg", who)
        assert r.status_code == 200
        assert "Last trick: set aside, all Kings" in _texts(ET.fromstring(r.data))


def test_every_king_of_the_castle_card_is_named_whole_in_a_hand():
    """A seat reads its own cards: no event card's name is cut in a hand's card."""
    from referee.games.king_of_the_castle.cards import CARD_NAMES
    from referee.web import measure, pictures

    room = pictures.HAND_STEP - 6 - 4  # the card's width, less the text's margin (boards/_card.svg)
    cut = [name for name in CARD_NAMES if measure.fit(name, room, 12) != name]
    assert cut == []
