"""Players as objects {name, email, webhook}: contacts are private to the admin and
their own seat, never in the log, its export, any view or event; the admin may
change them; bad contacts are refused by field and create nothing."""

from __future__ import annotations

import json
import random

import pytest
from standardwebhooks.webhooks import Webhook

from tests.helpers import Game

PLAYERS = [{"name": "Ann", "email": "ann@example.org", "webhook": "https://hooks.example.org/ann"},
           "Bob",
           {"name": "Cy", "email": "cy@example.net"}]
PRIVATE = ["ann@example.org", "hooks.example.org", "cy@example.net"]


@pytest.fixture(autouse=True)
def public_hooks_only(monkeypatch):
    monkeypatch.delenv("REFEREE_WEBHOOK_ALLOW_PRIVATE", raising=False)


def leaks(text: str, secrets: list[str]) -> list[str]:
    return [s for s in secrets if s in text]


def test_players_may_be_objects_and_names(client):
    g = Game(client, "king-of-danger", PLAYERS, {"seed": "contacts"})
    seats = g.created["seats"]
    assert [s["name"] for s in seats] == ["Ann", "Bob", "Cy"]
    assert seats[0]["email"] == "ann@example.org" and seats[0]["webhook"].endswith("/ann")
    assert seats[0]["webhook_secret"].startswith("whsec_")
    Webhook(seats[0]["webhook_secret"])  # a secret the standardwebhooks package accepts
    assert "email" not in seats[1] and "webhook_secret" not in seats[1]
    assert "webhook_secret" not in seats[2]
    assert g.summary()["players"] == ["Ann", "Bob", "Cy"]


def test_contacts_show_only_to_the_admin_and_their_own_seat(client):
    g = Game(client, "king-of-danger", PLAYERS, {"seed": "contacts2"})
    r = g.get("/contacts", "admin")
    assert r.status_code == 200
    assert r.json["contacts"] == [
        {"seat": 0, "name": "Ann", "email": "ann@example.org", "webhook": "https://hooks.example.org/ann"},
        {"seat": 1, "name": "Bob", "email": None, "webhook": None},
        {"seat": 2, "name": "Cy", "email": "cy@example.net", "webhook": None}]
    assert "whsec_" not in r.get_data(as_text=True)  # the secret is shown once only
    r = g.get("/contacts", 1)
    assert r.json["contacts"] == [{"seat": 1, "name": "Bob", "email": None, "webhook": None}]
    r = g.get("/contacts", 2)
    assert r.json["contacts"][0]["email"] == "cy@example.net" and len(r.json["contacts"]) == 1
    r = g.get("/contacts")
    assert r.status_code == 403 and r.json["code"] == "forbidden"


def test_contacts_never_reach_the_log_views_or_listing(client):
    g = Game(client, "king-of-danger", PLAYERS, {"seed": "contacts3"})
    g.play_random(random.Random(3))  # to the end: the export then shows all
    texts = [g.export(), json.dumps(g.summary()), json.dumps(client.get("/v1/games").json)]
    for who in (None, 0, 1, 2, "admin"):
        texts.append(g.get("/events", who).get_data(as_text=True))
        texts.append(g.get("/view", who).get_data(as_text=True))
    for text in texts:
        assert leaks(text, PRIVATE) == []


def test_the_admin_changes_contacts(client):
    g = Game(client, "king-of-danger", PLAYERS, {"seed": "contacts4"})
    before = g.export()
    put = lambda who, seat, body: client.put(f"/v1/games/{g.id}/contacts/{seat}", json=body,  # noqa: E731
                                             headers=g.auth(who))
    r = put("admin", 1, {"email": "bob@example.com", "webhook": "https://hooks.example.org/bob"})
    assert r.status_code == 200, r.json
    assert r.json["email"] == "bob@example.com" and r.json["webhook_secret"].startswith("whsec_")
    r = put("admin", 0, {"webhook": None})  # null clears; email left out stays
    assert r.json == {"seat": 0, "name": "Ann", "email": "ann@example.org", "webhook": None}
    got = g.get("/contacts", "admin").json["contacts"]
    assert got[0]["webhook"] is None and got[1]["email"] == "bob@example.com"
    assert g.get("/contacts", 1).json["contacts"][0]["webhook"] == "https://hooks.example.org/bob"
    # a seat may not change contacts, not even its own; bad bodies change nothing
    assert put(1, 1, {"email": "evil@example.com"}).status_code == 403
    assert put(None, 1, {"email": "evil@example.com"}).status_code == 403
    r = put("admin", 1, {"email": "not an address"})
    assert r.status_code == 400 and r.json["field"] == "email"
    r = put("admin", 7, {"email": "x@example.com"})
    assert r.status_code == 400 and r.json["field"] == "seat"
    r = put("admin", 1, {"phone": "123"})
    assert r.status_code == 400
    assert g.get("/contacts", "admin").json["contacts"][1]["email"] == "bob@example.com"
    assert g.export() == before  # contacts live beside the log, never in it


@pytest.mark.parametrize("players, field", [
    ([{"name": "Ann", "email": "nope"}, "Bob"], "players[0].email"),
    (["Ann", {"name": "Bob", "webhook": "ftp://example.org/x"}], "players[1].webhook"),
    (["Ann", {"name": "Bob", "webhook": "http://127.0.0.1:9/x"}], "players[1].webhook"),
    (["Ann", {"name": "Bob", "webhook": "http://10.1.2.3/x"}], "players[1].webhook"),
    (["Ann", {"name": "Bob", "webhook": "http://[::1]/x"}], "players[1].webhook"),
    (["Ann", {"name": "Bob", "colour": "red"}], "players[1].colour"),
    (["Ann", {"email": "b@example.org"}], "players[1].name"),
    (["Ann", {"name": ""}], "players[1].name"),
    (["Ann", "   "], "players[1].name"),
    (["Ann", 7], "players[1]"),
    # two players of one name: "To play: Ann" would not say which
    (["Ann", "Bob", "ann"], "players[2].name"),
    (["Ann", {"name": " ANN ", "email": "a2@example.org"}], "players[1].name"),
    (["Ann", "Bob", "Cy", "bob"], "players[3].name"),
])
def test_bad_players_are_refused_and_create_nothing(client, players, field):
    before = client.get("/v1/games").json["games"]
    r = client.post("/v1/games", json={"game": "king-of-danger", "players": players})
    assert r.status_code == 400, r.json
    assert r.json["field"] == field, r.json
    assert client.get("/v1/games").json["games"] == before


def test_names_are_kept_trimmed():
    from referee.entries import parse_players

    assert [p["name"] for p in parse_players([" Ann", "Bob  ", {"name": " Cy "}])] == ["Ann", "Bob", "Cy"]


def test_private_webhooks_may_be_allowed(client, monkeypatch):
    monkeypatch.setenv("REFEREE_WEBHOOK_ALLOW_PRIVATE", "1")
    g = Game(client, "king-of-danger", ["Ann", {"name": "Bob", "webhook": "http://127.0.0.1:9/x"}])
    assert g.created["seats"][1]["webhook"] == "http://127.0.0.1:9/x"
