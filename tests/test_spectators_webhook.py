"""The spectators' webhook: one per game (a forum bot, a league page), told of
every change as an onlooker sees it, signed as Standard Webhooks; never a hand."""

from __future__ import annotations

import json
import random
import re

import pytest
from standardwebhooks.webhooks import Webhook

from referee.mail import sending
from tests.helpers import Game
from tests.mailtools import HookReceiver
from tests.test_text_for_posts import CODE, values

GAMES = [("king-of-danger", 3, {}), ("castle-danger", 2, {"variant": "hidden-danger", "turn_limit": 5}),
         ("king-of-the-castle", 3, {}), ("kings-keys", 3, {"wild_cards": True})]


@pytest.fixture
def hooks(monkeypatch):
    monkeypatch.setenv("REFEREE_WEBHOOK_ALLOW_PRIVATE", "1")
    receiver = HookReceiver()
    yield receiver
    receiver.stop()


def seen(g: Game, who, version: int) -> set[str]:
    view = g.get("/view", who, at=version).json["view"]
    events = [e for e in g.get("/events", who, limit=1000).json["events"] if e["seq"] <= version]
    return values(view) | values(events)


@pytest.mark.parametrize(("game", "players", "options"), GAMES, ids=[g[0] for g in GAMES])
def test_the_spectators_hear_every_change_and_nothing_hidden(client, service, hooks, game, players, options):
    names = ["Ann", "Bob", "Cy"][:players]
    r = client.post("/v1/games", json={"game": game, "players": names, "options": {**options, "seed": f"spect-{game}"},
                                       "spectators": {"webhook": hooks.url}})
    assert r.status_code == 201, r.json
    created = r.json
    secret = created["spectators"]["webhook_secret"]
    assert created["spectators"]["webhook"] == hooks.url
    gid, admin = created["id"], created["admin_token"]
    tokens = [s["token"] for s in created["seats"]]

    def get(path, who=None, **params):
        headers = {}
        token = admin if who == "admin" else tokens[who] if isinstance(who, int) else None
        if token:
            headers["Authorization"] = f"Bearer {token}"
        return client.get(f"/v1/games/{gid}{path}", query_string=params, headers=headers)

    rnd = random.Random(game)
    for _ in range(30):
        sending.deliver_due(service)
        s = get("").json
        if s["status"] != "active":
            break
        seat = rnd.choice(s["to_act"])
        legal = [m for m in get("/legal", seat).json["moves"]
                 if m["type"] not in ("resign", "offer-draw", "take-back")]
        r = client.post(f"/v1/games/{gid}/moves", json={"move": rnd.choice(legal)},
                        headers={"Authorization": f"Bearer {tokens[seat]}"})
        assert r.status_code == 201, r.json
    sending.deliver_due(service)
    wh = Webhook(secret)
    versions = []
    for req in hooks.requests:
        headers = {k.lower(): v for k, v in req["headers"].items()}
        payload = wh.verify(req["body"], headers)
        assert payload["seat"] is None and payload["name"] == "spectators" and payload["legal"] == []
        v = payload["version"]
        versions.append(v)
        everything = values(get("/view", "admin", at=v).json["view"]) | values(
            [e for e in get("/events", "admin", limit=1000).json["events"] if e["seq"] <= v])
        allowed = values(get("/view", None, at=v).json["view"]) | values(
            [e for e in get("/events", None, limit=1000).json["events"] if e["seq"] <= v])
        text = json.dumps(payload)
        for code in {x for x in everything - allowed if len(x) <= 4 and CODE.match(x)}:
            assert not re.search(rf"(?<![A-Za-z0-9*]){re.escape(code)}(?![A-Za-z0-9*])", text), (code, payload)
    # every change heard once, in order (moves made between two sweeps are told together)
    assert versions == sorted(set(versions)) and len(versions) >= 10
    assert versions[-1] == get("").json["version"]
    listed = get("/notices", "admin").json["notices"]
    assert {n["seat"] for n in listed} == {None}


def test_the_admin_sets_changes_and_stops_the_spectators_webhook(client, service, hooks, monkeypatch):
    g = Game(client, "king-of-danger", ["Ann", "Bob"], {"seed": "spect-admin"})
    put = lambda who, body: client.put(f"/v1/games/{g.id}/spectators", json=body,  # noqa: E731
                                       headers={"Authorization": f"Bearer {g.tokens[who] if who != 'admin' else g.admin}"})
    assert put(0, {"webhook": hooks.url}).status_code == 403
    r = put("admin", {"webhook": hooks.url})
    assert r.status_code == 200 and r.json["webhook"] == hooks.url and r.json["webhook_secret"].startswith("whsec_")
    assert g.get("/contacts", "admin").json["spectators"] == {"webhook": hooks.url}
    assert "spectators" not in g.get("/contacts", 0).json
    seat = g.summary()["to_act"][0]
    assert g.post(seat, {"move": g.legal(seat)[0]}).status_code == 201
    sending.deliver_due(service)
    assert len(hooks.requests) == 1
    Webhook(r.json["webhook_secret"]).verify(hooks.requests[0]["body"],
                                             {k.lower(): v for k, v in hooks.requests[0]["headers"].items()})
    assert put("admin", {"webhook": None}).json == {"webhook": None}
    seat = g.summary()["to_act"][0]
    assert g.post(seat, {"move": g.legal(seat)[0]}).status_code == 201
    sending.deliver_due(service)
    assert len(hooks.requests) == 1  # stopped
    # refusals: problem+json naming the field, nothing changed
    monkeypatch.delenv("REFEREE_WEBHOOK_ALLOW_PRIVATE")
    r = put("admin", {"webhook": "http://127.0.0.1:9/hook"})
    assert r.status_code == 400 and r.json["field"] == "webhook"
    assert put("admin", {"url": "https://example.org"}).status_code == 400
    r = client.post("/v1/games", json={"game": "king-of-danger", "players": ["A", "B"],
                                       "spectators": {"webhook": "ftp://example.org"}})
    assert r.status_code == 400 and r.json["field"] == "spectators.webhook"
    assert g.get("/contacts", "admin").json["spectators"] == {"webhook": None}
    # never in the log or its export
    export = client.get(f"/v1/games/{g.id}/export", headers={"Authorization": f"Bearer {g.admin}"}).get_data(as_text=True)
    assert "127.0.0.1" not in export and "whsec_" not in export
