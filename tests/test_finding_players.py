"""Finding a player by name (``GET /v1/players?q=``) on both stores: the start of any
word of the name, any case; each player once; pages that join up; public fields
only; bad input refused by name; rate-limited per client; a store from before the
name index indexed when opened."""

from __future__ import annotations

import json

import pytest

from referee.players import finding, names
from referee.players.redis import NAMES, NAMES_FILLED
from referee.players.store import open_players
from tests.playertools import register


def found(client, q: str, **more) -> dict:
    r = client.get("/v1/players", query_string={"q": q, **more})
    assert r.status_code == 200, r.json
    return r.json


def every_page(client, q: str, limit: int) -> list[dict]:
    got, after = [], None
    for _ in range(20):
        page = found(client, q, limit=limit, **({"after": after} if after else {}))
        assert len(page["players"]) <= limit
        got += page["players"]
        after = page["next"]
        if after is None:
            return got
    raise AssertionError("the pages never end")


def test_a_player_is_found_by_the_start_of_any_word_of_its_name_any_case(client):
    made = {n: register(client, name=n, **extra) for n, extra in (
        ("Ann", {"email": "ann@players.example", "webhook": "https://hooks.example/ann"}),
        ("anna Smith", {}), ("Mary-Ann", {}), ("Bob Annable Ann", {}), ("Joanne", {}), ("ÅSA Berg", {}),
        ("Annbot", {"bot": "random"}), ("Carl", {}))}
    names_found = sorted(p["name"] for p in found(client, "ANN")["players"])
    assert names_found == ["Ann", "Annbot", "Bob Annable Ann", "Mary-Ann", "anna Smith"]  # not Joanne
    assert [p["name"] for p in found(client, "åsa")["players"]] == ["ÅSA Berg"]
    assert [p["name"] for p in found(client, " smi ")["players"]] == ["anna Smith"]
    assert found(client, "nobody")["players"] == [] and found(client, "nobody")["next"] is None
    page = found(client, "ann")
    for p in page["players"]:  # what a profile shows, and less
        assert set(p) == {"id", "name", "bot"} and p["id"] == made[p["name"]]["id"]
        assert p["bot"] == ("random" if p["name"] == "Annbot" else None)
    text = json.dumps(page)
    for secret in ("ann@players.example", "hooks.example", made["Ann"]["token"], made["Ann"]["webhook_secret"]):
        assert secret not in text
    # pages of any size join up to the whole answer, each player once
    whole = found(client, "a", limit=50)["players"]
    assert len(whole) == len({p["id"] for p in whole}) == 5  # the "ann" five: Åsa is no "a", Joanne no word
    for limit in (1, 2, 4):
        assert every_page(client, "a", limit) == whole


def test_bad_searches_are_refused_naming_the_field(client):
    register(client, name="Ann")
    other = found(client, "an", limit=1)
    for query, field in (({}, "q"), ({"q": ""}, "q"), ({"q": "x" * 101}, "q"), ({"q": "a", "limit": 0}, "limit"),
                         ({"q": "a", "limit": 51}, "limit"), ({"q": "a", "after": "@@@"}, "after"),
                         ({"q": "b", "after": finding._cursor("ann" + names.SEP + "x")}, "after")):
        r = client.get("/v1/players", query_string=query)
        assert r.status_code == 400 and r.json["field"] == field, (query, r.json)
        assert r.headers["Content-Type"].startswith("application/problem+json")
    assert found(client, "an", limit=1) == other


def test_searches_are_rate_limited_per_client(client, monkeypatch):
    monkeypatch.setenv("REFEREE_SEARCH_RATE", "2/minute")
    register(client, name="Ann")
    for _ in range(2):
        found(client, "ann")
    r = client.get("/v1/players", query_string={"q": "ann"})
    assert r.status_code == 429 and r.json["code"] == "too-many-requests" and int(r.headers["Retry-After"]) > 0
    other = client.get("/v1/players", query_string={"q": "ann"}, environ_base={"REMOTE_ADDR": "192.0.2.9"})
    assert other.status_code == 200 and [p["name"] for p in other.json["players"]] == ["Ann"]


def test_a_store_from_before_the_name_index_is_indexed_when_opened(client, service):
    ann = register(client, name="Ann Lee")
    store = service.store
    if hasattr(store, "path"):  # as the file was before: players, and no entry of theirs
        with store.immediate() as conn:
            conn.execute("DELETE FROM player_names")
    else:
        store.r.delete(NAMES, NAMES_FILLED)
    service._players = open_players(store)  # the next process to open it
    assert found(client, "lee")["players"] == [{"id": ann["id"], "name": "Ann Lee", "bot": None}]


@pytest.mark.parametrize(("name", "expected"), [
    ("Ann", ["ann"]), ("Mary-Ann Lee", ["ann lee", "lee", "mary-ann lee"]), ("  Åsa", ["  åsa", "åsa"]),
    ("Straße", ["strasse"])])
def test_the_index_holds_the_folded_name_from_each_word_on(name, expected):
    assert [e.split(names.SEP)[0] for e in names.entries("P1", name)] == sorted(expected)
