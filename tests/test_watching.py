"""Watching: board pictures, the log in words, the pages, CORS (referee/web/).

Pictures are checked against what each viewer may see: over random games of
every game, no string the organiser's view holds and the viewer's view does not
(another seat's card, a hidden piece's kind) is anywhere in the viewer's SVG.
"""

from __future__ import annotations

import random
import re
import xml.etree.ElementTree as ET

import pytest

from tests.helpers import Game

GAMES = [("castle-danger", 2, {}), ("castle-danger", 2, {"variant": "hidden-danger"}),
         ("king-of-danger", 3, {}), ("king-of-danger", 2, {}), ("king-of-the-castle", 3, {}),
         ("kings-keys", 3, {})]
SVG = "{http://www.w3.org/2000/svg}"


def _strings(obj, out=None) -> set[str]:
    out = set() if out is None else out
    if isinstance(obj, dict):
        for v in obj.values():
            _strings(v, out)
    elif isinstance(obj, list):
        for v in obj:
            _strings(v, out)
    elif isinstance(obj, str):
        out.add(obj)
    return out


def _play(g: Game, rnd: random.Random, moves: int) -> None:
    for _ in range(moves):
        s = g.summary()
        if s["status"] != "active":
            return
        seat = rnd.choice(s["to_act"])
        legal = [m for m in g.legal(seat) if m["type"] != "resign"]
        r = g.post(seat, {"move": rnd.choice(legal), "expected_version": s["version"]})
        assert r.status_code == 201, r.json


def _pieces_drawn(svg: str) -> dict[str, str]:
    """Castle Danger: square -> the letter drawn on its piece."""
    root = ET.fromstring(svg)
    out = {}
    for sq in root.iter(f"{SVG}g"):
        if sq.get("class") == "square":
            for p in sq.iter(f"{SVG}g"):
                if p.get("class") == "piece":
                    out[sq.get("data-square")] = p.find(f"{SVG}text").text
    return out


@pytest.mark.parametrize("game,players,options", GAMES)
def test_each_game_has_a_picture_with_a_text_alternative(client, game, players, options):
    g = Game(client, game, players, options)
    _play(g, random.Random(3), 10)
    r = g.get("/board.svg")
    assert r.status_code == 200
    assert r.mimetype == "image/svg+xml"
    root = ET.fromstring(r.data)  # well-formed XML
    assert root.find(f"{SVG}title").text.strip()
    assert root.find(f"{SVG}desc").text == g.get("/view").json["text"]
    assert r.headers["ETag"] and "no-cache" in r.headers["Cache-Control"]
    assert r.headers["Cache-Control"].startswith("public")
    again = client.get(f"/v1/games/{g.id}/board.svg", headers={"If-None-Match": r.headers["ETag"]})
    assert again.status_code == 304
    old = g.get("/board.svg", at=1)
    assert old.status_code == 200 and "max-age=86400" in old.headers["Cache-Control"]
    seat = g.get("/board.svg", 0)
    assert seat.status_code == 200 and seat.headers["Cache-Control"].startswith("private")


def test_a_seat_sees_its_own_hand_in_its_picture_and_nobody_else_does(client):
    g = Game(client, "king-of-danger", 3)
    hands = [g.get("/view", s).json["view"]["hand"] for s in range(3)]
    for s in range(3):
        svg = g.get("/board.svg", s).get_data(as_text=True)
        root = ET.fromstring(svg)
        shown = sorted(t.text for e in root.iter(f"{SVG}g") if e.get("class") == "hand-card"
                       for t in e.iter(f"{SVG}text"))
        assert shown == sorted(hands[s])
    spectator = ET.fromstring(g.get("/board.svg").data)
    assert not [e for e in spectator.iter(f"{SVG}g") if e.get("class") == "hand-card"]


def test_castle_danger_draws_pieces_walls_fire_and_portals(client):
    g = Game(client, "castle-danger", 2)
    _play(g, random.Random(11), 40)
    view = g.get("/view").json["view"]
    svg = g.get("/board.svg").get_data(as_text=True)
    drawn = _pieces_drawn(svg)
    assert drawn == {sq: p["kind"] for sq, p in view["pieces"].items()}
    root = ET.fromstring(svg)
    walls = {e.get("data-square") for e in root.iter(f"{SVG}g") if e.get("class") == "square"
             and any(r.get("class") == "wall" for r in e)}
    assert walls == set(view["walls"])
    fires = {e.get("data-square") for e in root.iter(f"{SVG}g") if e.get("class") == "square"
             and any(r.get("class") == "fire" for r in e)}
    assert fires == set(view["fire"])
    fired = {e.get("data-square") for e in root.iter(f"{SVG}g") if e.get("class") == "square"
             and any(x.get("class") == "fired" for x in e.iter(f"{SVG}g"))}
    assert fired == {sq for sq, p in view["pieces"].items() if p["fired"]}


@pytest.mark.parametrize("game,players,options", GAMES)
def test_pictures_never_show_a_viewer_what_it_may_not_see(client, game, players, options):
    rnd = random.Random(hash((game, str(options))) & 0xFFFF)
    for _ in range(2):
        g = Game(client, game, players, options)
        for _ in range(5):
            _play(g, rnd, rnd.randint(2, 12))
            admin = _strings(g.get("/view", "admin").json["view"])
            for who in [None, *range(players)]:
                view = g.get("/view", who).json["view"]
                hidden = admin - _strings(view)
                if game == "castle-danger":
                    # piece letters are in every legend: the per-square check below covers them
                    hidden -= {"K", "Z", "B", "C"}
                svg = g.get("/board.svg", who).get_data(as_text=True)
                # <desc> is the engine's text for this viewer (its own leak tests cover
                # it; it may name a move such as "react lucky-escape"): the drawing is
                # checked here, and <desc> is checked to be exactly that text.
                desc = ET.fromstring(svg).find(f"{SVG}desc").text
                assert desc == g.get("/view", who).json["text"]
                drawing = re.sub(r"<desc.*?</desc>", "", svg, flags=re.S)
                for h in hidden:
                    assert not re.search(rf"(?<![\w-]){re.escape(h)}(?![\w-])", drawing), (who, h)
                if game == "castle-danger":
                    # a hidden piece is drawn as "?" for whoever may not know it
                    assert _pieces_drawn(svg) == {sq: p["kind"] for sq, p in view["pieces"].items()}


def test_picture_refusals_are_problem_json(client):
    g = Game(client, "kings-keys", 3)
    for r, status in [(client.get("/v1/games/nope/board.svg"), 404),
                      (g.get("/board.svg", at=0), 400),
                      (g.get("/board.svg", at=999), 400),
                      (client.get(f"/v1/games/{g.id}/board.svg",
                                  headers={"Authorization": "Bearer wrong"}), 401),
                      (client.get(f"/v1/games/{g.id}/log", query_string={"after": -1}), 400)]:
        assert r.status_code == status, r.data
        assert r.mimetype == "application/problem+json" and r.json["code"]


def test_the_log_in_words_is_redacted_for_the_caller(client):
    g = Game(client, "king-of-danger", 3)
    _play(g, random.Random(5), 6)
    lines = g.get("/log").json["lines"]
    assert [x["seq"] for x in lines] == list(range(1, g.summary()["version"] + 1))
    hands = [g.get("/view", s).json["view"]["hand"] for s in range(3)]
    dealt = next(x["text"] for x in lines if x["type"] == "hand-dealt")
    for hand in hands:
        for c in hand:
            assert not re.search(rf"\b{c}\b", dealt)
    assert g.get("/log", after=len(lines) - 1).json["lines"] == lines[-1:]


def test_pages_list_games_and_show_one_without_javascript(client):
    ids = [Game(client, game, n, o).id for game, n, o in GAMES[:3]]
    page = client.get("/")
    assert page.status_code == 200 and page.mimetype == "text/html"
    html = page.get_data(as_text=True)
    assert all(f"/games/{i}" in html for i in ids)
    assert client.get("/?status=finished").get_data(as_text=True).count("/games/") == 0
    one = client.get(f"/games/{ids[2]}")
    html = one.get_data(as_text=True)
    assert one.status_code == 200
    text = client.get(f"/v1/games/{ids[2]}/view").json["text"]
    assert "King of Danger" in html and "Your hand" not in html and text.split("\n")[0] in html
    assert client.get("/games/nope").status_code == 404


def test_pages_list_page_by_page(client):
    ids = {Game(client, "kings-keys", 3).id for _ in range(5)}
    seen, url = [], "/?limit=2"
    while url:
        html = client.get(url).get_data(as_text=True)
        seen += re.findall(r'href="/games/([^"]+)"', html)
        nxt = re.search(r'rel="next" href="([^"]+)"', html)
        url = nxt.group(1).replace("&amp;", "&") if nxt else None
    assert sorted(seen) == sorted(ids)


def test_cors_headers_on_the_api_not_on_pages(client):
    g = Game(client, "kings-keys", 3)
    r = client.get(f"/v1/games/{g.id}", headers={"Origin": "https://forum.example"})
    assert r.headers["Access-Control-Allow-Origin"] == "*"
    assert "Access-Control-Allow-Credentials" not in r.headers
    pre = client.options(f"/v1/games/{g.id}/moves", headers={
        "Origin": "https://forum.example", "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "Authorization, Content-Type"})
    assert pre.status_code == 200
    assert "authorization" in pre.headers["Access-Control-Allow-Headers"].lower()


def test_cors_origins_are_configurable(service, monkeypatch):
    from referee.api import create_app

    monkeypatch.setenv("REFEREE_CORS_ORIGINS", "https://a.example, https://b.example")
    app = create_app(service)
    c = app.test_client()
    g = Game(c, "kings-keys", 3)
    ok = c.get(f"/v1/games/{g.id}", headers={"Origin": "https://b.example"})
    assert ok.headers["Access-Control-Allow-Origin"] == "https://b.example"
    no = c.get(f"/v1/games/{g.id}", headers={"Origin": "https://evil.example"})
    assert "Access-Control-Allow-Origin" not in no.headers


@pytest.mark.parametrize("origins", ["*", "https://a.example, https://b.example"])
def test_cors_headers_are_flask_cors_own_on_every_kind_of_answer(service, monkeypatch, origins):
    # referee/web/cors.py copies flask-cors's headers for requests without Origin
    # instead of asking it each time: the answers must carry exactly what a bare
    # app with flask-cors and the same settings gives, Origin or not, success or refusal.
    from flask import Flask, jsonify
    from flask_cors import CORS

    from referee.api import create_app

    monkeypatch.setenv("REFEREE_CORS_ORIGINS", origins)
    c = create_app(service).test_client()
    allowed = "*" if origins == "*" else [o.strip() for o in origins.split(",")]
    bare = Flask("bare")
    CORS(bare, resources={r"/v1/*": {"origins": allowed}}, supports_credentials=False,
         send_wildcard=allowed == "*", allow_headers=["Authorization", "Content-Type", "Idempotency-Key"],
         expose_headers=["ETag", "Retry-After", "X-Request-ID", "Location"], max_age=600)
    bare.add_url_rule("/<path:anything>", view_func=lambda anything: jsonify({}),
                      methods=["GET", "POST", "PUT", "DELETE"])
    b = bare.test_client()

    def cors_of(r) -> list:
        return sorted((k, v) for k, v in r.headers.items() if k.startswith("Access-Control-") or k == "Vary")

    g = Game(c, "kings-keys", 3)
    paths = [("GET", f"/v1/games/{g.id}"), ("GET", f"/v1/games/{g.id}/view"), ("GET", "/v1/games/nope/view"),
             ("POST", f"/v1/games/{g.id}/moves"), ("GET", "/healthz"), ("GET", "/v1/games")]
    for _ in range(2):  # the second time from what was kept
        for method, path in paths:
            for origin in (None, "https://b.example", "https://evil.example"):
                headers = {"Origin": origin} if origin else {}
                ours, theirs = c.open(path, method=method, headers=headers), b.open(path, method=method, headers=headers)
                if path == "/healthz":
                    assert not cors_of(ours), "CORS belongs to the API only"
                    continue
                assert cors_of(ours) == cors_of(theirs), (method, path, origin, ours.status_code)


def test_castle_danger_picture_says_who_answers_a_pending_offer(client):
    g = Game(client, "castle-danger", ["Ann", "Bob"])

    def texts() -> list[str]:
        root = ET.fromstring(g.get("/board.svg").data)
        return ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]

    assert any(t.endswith("· to move") for t in texts())
    assert g.post(0, {"text": "offer draw"}).status_code == 201
    shown = texts()
    assert "Ann offers a draw" in shown
    assert [t for t in shown if "· to" in t] == ["score 2 · to answer"]  # Bob's box only
    assert g.post(1, {"text": "decline"}).status_code == 201
    shown = texts()
    assert "Ann offers a draw" not in shown and [t for t in shown if "· to" in t] == ["score 2 · to move"]
