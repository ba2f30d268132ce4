"""The move lane (referee/api/lane.py) answers exactly as the app would.

Twin referees, each on a store of its own, one with the lane in front of its app
and one without, are given the same game (the same id, tokens and seed, the clock
stopped) and then the same requests, in the same order: usual moves, text and
batches, illegal moves, moves out of turn, bad and missing tokens, bad bodies and
media types, idempotent retries, stale versions, a browser's move, a rate limit
reached. Every answer must be the same bytes with the same headers (the request
id aside, unless the client chose it), every access line the same, and the logs
the same at the end. The lane must also have answered the usual moves itself, and
handed everything else to the app.
"""

from __future__ import annotations

import json
import logging
import random
import secrets
import threading

import pytest
from freezegun import freeze_time

from referee.api import create_app
from referee.api.lane import Lane
from referee.queue import InlineQueue
from referee.store import open_store
from referee.system import assemble


class Twin:
    """A referee with or without the lane; ``reached`` lists what its app was handed."""

    def __init__(self, url: str, lane: bool):
        self.app = create_app(assemble(open_store(url), InlineQueue()))
        self.app.testing = True
        front = self.app.wsgi_app
        assert isinstance(front, Lane)
        self.reached: list[str] = []
        inner = front.inner

        def counted(environ, start_response):
            self.reached.append(environ["PATH_INFO"])
            return inner(environ, start_response)

        front.inner = counted
        if not lane:
            self.app.wsgi_app = counted
        self.client = self.app.test_client()


def same_secrets(monkeypatch, seed: str) -> None:
    """Every secret the referee draws from here on in this thread, the requests', comes
    from ``seed`` (ids, tokens, salts); a background thread (a transparency log naming
    its origin, say) draws its own, so that it cannot take a twin's turn."""
    rnd, mine = random.Random(seed), threading.get_ident()
    urlsafe, hexed = secrets.token_urlsafe, secrets.token_hex
    monkeypatch.setattr(secrets, "token_urlsafe", lambda n=32: rnd.randbytes(n).hex()[: n + n // 3]
                        if threading.get_ident() == mine else urlsafe(n))
    monkeypatch.setattr(secrets, "token_hex", lambda n=32: rnd.randbytes(n).hex()
                        if threading.get_ident() == mine else hexed(n))


def answer(r) -> tuple:
    headers = sorted((k, v) for k, v in r.headers.items() if k != "X-Request-ID")
    return r.status_code, headers, r.get_data()


class Capture(logging.Handler):
    def __init__(self):
        super().__init__()
        self.lines: list[dict] = []

    def emit(self, record):
        self.lines.append({k: getattr(record, k, None) for k in ("method", "path", "status", "game", "remote")})


def requests_for(rnd: random.Random, game: dict, legal: list, seat: int, version: int) -> list[tuple]:
    """Requests to send at this point: (name, seat or token, body bytes, headers)."""
    move = rnd.choice(legal) if legal else {"type": "resign"}
    usual = ("usual", seat, json.dumps({"move": move}).encode(), {})
    out = [usual]
    roll = rnd.random()
    if roll < 0.08:
        out.insert(0, ("out of turn", 1 - seat if seat in (0, 1) else 0, usual[2], {}))
    elif roll < 0.16:
        out.insert(0, ("illegal", seat, json.dumps({"move": {"type": "fly", "to": "moon"}}).encode(), {}))
    elif roll < 0.22:
        out.insert(0, ("bad token", "nobody", usual[2], {}))
    elif roll < 0.26:
        out.insert(0, ("no token", None, usual[2], {}))
    elif roll < 0.30:
        out.insert(0, ("not json", seat, b'{"move": ', {}))
    elif roll < 0.34:
        out.insert(0, ("unknown field", seat, json.dumps({"move": move, "mvoe": 1}).encode(), {}))
    elif roll < 0.38:
        out.insert(0, ("form", seat, b"move=a1", {"Content-Type": "application/x-www-form-urlencoded"}))
    elif roll < 0.44:
        out[0] = ("expected version", seat, json.dumps({"move": move, "expected_version": version}).encode(), {})
        out.insert(0, ("stale version", seat, json.dumps({"move": move, "expected_version": version + 3}).encode(), {}))
    elif roll < 0.52:
        key = {"Idempotency-Key": f"k{version}"}
        out = [("keyed", seat, usual[2], key), ("retried", seat, usual[2], key),
               ("key reused", seat, json.dumps({"move": move, "expected_version": 1}).encode(), key)]
    elif roll < 0.56:
        out[0] = ("browser", seat, usual[2], {"Origin": "https://example.org"})
    elif roll < 0.60:
        out[0] = ("own request id", seat, usual[2], {"X-Request-ID": f"mine-{version}"})
    elif roll < 0.63:
        out[0] = ("charset", seat, usual[2], {"Content-Type": "application/json; charset=utf-8"})
    elif roll < 0.66:
        out.insert(0, ("deep", seat, b'{"move": ' + b"[" * 40 + b"]" * 40 + b"}", {}))
    return out


def send(twin: Twin, game_id: str, tokens: list, req: tuple):
    name, who, body, headers = req
    h = {"Content-Type": "application/json", **headers}
    if isinstance(who, int):
        h["Authorization"] = f"Bearer {tokens[who]}"
    elif isinstance(who, str):
        h["Authorization"] = f"Bearer {who}"
    return twin.client.post(f"/v1/games/{game_id}/moves", data=body, headers=h)


@pytest.mark.parametrize("game,players", [("castle-danger", 2), ("king-of-danger", 2), ("kings-keys", 3)])
def test_the_lane_answers_as_the_app_does(monkeypatch, store_url, redis_server, tmp_path, game, players):
    if store_url.startswith("sqlite"):
        urls = [f"sqlite:///{tmp_path}/lane.db", f"sqlite:///{tmp_path}/app.db"]
    else:
        urls = [store_url, redis_server.fresh_url()]
    capture = Capture()
    access = logging.getLogger("referee.access")
    access.addHandler(capture)
    level = access.level
    access.setLevel(logging.INFO)
    try:
        play_twins(monkeypatch, urls, game, players, capture)
    finally:
        access.removeHandler(capture)
        access.setLevel(level)


def play_twins(monkeypatch, urls, game, players, capture):
    rnd = random.Random(f"lane-{game}")
    with freeze_time("2026-11-24T12:00:00Z"):
        twins = {"lane": Twin(urls[0], lane=True), "app": Twin(urls[1], lane=False)}
        # one signing key for both, as for one referee: every receipt the same bytes too
        twins["app"].app.extensions["referee"].receipts = twins["lane"].app.extensions["referee"].receipts
        created = {}
        for name, twin in twins.items():
            same_secrets(monkeypatch, f"secrets-{game}")
            r = twin.client.post("/v1/games", json={"game": game, "players": [f"p{i}" for i in range(players)],
                                                    "options": {"seed": "lane"}})
            assert r.status_code == 201
            created[name] = r.get_data()
        assert created["lane"] == created["app"]
        made = json.loads(created["lane"])
        gid, tokens = made["id"], [s["token"] for s in made["seats"]]
        kinds: dict[str, int] = {}
        lane, app = twins["lane"], twins["app"]
        for _ in range(60):
            s = app.client.get(f"/v1/games/{gid}").get_json()
            if s["status"] != "active":
                break
            seat = rnd.choice(s["to_act"])
            legal = [m for m in app.client.get(f"/v1/games/{gid}/legal",
                                               headers={"Authorization": f"Bearer {tokens[seat]}"}).get_json()["moves"]
                     if m["type"] != "resign"]
            for req in requests_for(rnd, made, legal, seat, s["version"]):
                capture.lines.clear()
                lane.reached.clear()
                got = {name: send(twin, gid, tokens, req) for name, twin in twins.items()}
                assert answer(got["lane"]) == answer(got["app"]), req[0]
                if got["lane"].status_code == 201:  # the lane's answer is receipted as the app's
                    assert got["lane"].json["receipt"]["seq"] == got["lane"].json["events"][-1]["seq"], req[0]
                if "X-Request-ID" in req[3]:
                    assert got["lane"].headers["X-Request-ID"] == req[3]["X-Request-ID"]
                assert len(capture.lines) == 2 and capture.lines[0] == capture.lines[1], req[0]
                # the lane answered the usual accepted move itself, and handed on everything else
                answered_here = got["lane"].status_code == 201 and req[0] not in ("browser",)
                assert lane.reached == ([] if answered_here else [f"/v1/games/{gid}/moves"]), req[0]
                kinds[req[0]] = kinds.get(req[0], 0) + 1
        exports = [t.client.get(f"/v1/games/{gid}/export", headers={"Authorization": f"Bearer {made['admin_token']}"})
                   .get_data() for t in twins.values()]
        assert exports[0] == exports[1]
    assert kinds["usual"] >= 20 and len(kinds) >= 10, kinds


def test_an_error_after_the_move_may_be_written_is_not_judged_again(store_url, caplog):
    """A fault the lane meets in the service (here: after the append, a fault no
    client can cause, so made by hand) is answered by the app's own handler (500
    problem+json), and the move is not judged a second time: it is in the log once."""
    twin = Twin(store_url, lane=True)
    service = twin.app.extensions["referee"]
    r = twin.client.post("/v1/games", json={"game": "castle-danger", "players": ["a", "b"], "options": {"seed": "m"}})
    gid, tokens = r.json["id"], [s["token"] for s in r.json["seats"]]
    seat = twin.client.get(f"/v1/games/{gid}").json["to_act"][0]
    version = twin.client.get(f"/v1/games/{gid}").json["version"]
    real, calls = service.submit, []

    def faulty(*a, **kw):
        calls.append(1)
        real(*a, **kw)
        raise RuntimeError("a fault after the append")

    service.submit = faulty
    twin.reached.clear()
    got = twin.client.post(f"/v1/games/{gid}/moves", json={"text": "c1-b1"},
                           headers={"Authorization": f"Bearer {tokens[seat]}"})
    service.submit = real
    assert got.status_code == 500 and got.mimetype == "application/problem+json" and got.json["code"] == "internal"
    assert len(calls) == 1 and twin.reached == [f"/v1/games/{gid}/moves"]
    assert twin.client.get(f"/v1/games/{gid}").json["version"] == version + 1


def test_the_lane_and_the_app_count_a_rate_limit_once(monkeypatch, store_url):
    """With a limit of 3 moves a minute, refused moves count as the app counts them
    (once each), and the fourth request is refused with 429 on both."""
    monkeypatch.setenv("REFEREE_MOVE_RATE", "3/minute")
    twin = Twin(store_url, lane=True)
    r = twin.client.post("/v1/games", json={"game": "castle-danger", "players": ["a", "b"], "options": {"seed": "l"}})
    gid, tokens = r.json["id"], [s["token"] for s in r.json["seats"]]
    seat = twin.client.get(f"/v1/games/{gid}").json["to_act"][0]
    h = {"Authorization": f"Bearer {tokens[seat]}"}
    url = f"/v1/games/{gid}/moves"
    assert twin.client.post(url, json={"text": "c1-b1"}, headers=h).status_code == 201  # the lane's
    assert twin.client.post(url, json={"text": "nonsense"}, headers=h).status_code in (400, 422)  # the app's
    assert twin.client.post(url, json={"text": "b1-a1"}, headers=h).status_code == 201
    over = twin.client.post(url, json={"text": "a1-a2"}, headers=h)
    assert over.status_code == 429 and over.json["code"] == "too-many-requests" and "Retry-After" in over.headers
    assert twin.client.get(f"/v1/games/{gid}").json["version"] == r.json["version"] + 2


@pytest.mark.parametrize("debug", [False, True])
def test_the_lanes_json_is_flasks(store_url, debug):
    """The lane writes its answer with an encoder built once; Flask's JSON provider
    builds one per answer. The same bytes, non-ASCII, nesting and debug's indent included."""
    twin = Twin(store_url, lane=True)
    twin.app.debug = debug
    lane = Lane(twin.app, twin.app.wsgi_app.inner, twin.app.extensions["referee"], None)
    for value in ({"events": [{"payload": {"name": "Zoë Łukasz 🎲", "seat": 0}, "z": None, "a": True}],
                   "version": 3, "status": "active"}, {"b": [1, 2.5, {"c": "\u2028\x01"}], "a": {}}):
        with twin.app.app_context():
            flask_bytes = twin.app.json.response(value).get_data()
        assert (lane.encode(value) + "\n").encode() == flask_bytes
