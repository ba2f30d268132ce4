"""The calendar's settings on a player's own record (PATCH/GET /v1/players/me), on
both stores: shown with their defaults, changed by field, a bad value refused 400
naming its field with nothing changed; and ``notices``: ``turns`` (the default in
a league) sends a player their turns and results, not every trick of others."""

from __future__ import annotations

import pytest

from referee.mail import outbox
from tests.leaguetools import new_league
from tests.playertools import auth, new_game, register

DEFAULTS = {"timezone": "UTC", "weekends_off": False, "auto_vacation": True, "notices": None,
            "digest_hour": 8}


def me(client, player) -> dict:
    r = client.get("/v1/players/me", headers=auth(player["token"]))
    assert r.status_code == 200, r.json
    return r.json


def patch(client, player, body):
    return client.patch("/v1/players/me", json=body, headers=auth(player["token"]))


def test_settings_show_their_defaults_and_change_by_field(client):
    ann = register(client, name="Ann", webhook="https://hooks.example/ann")
    assert {k: me(client, ann)[k] for k in DEFAULTS} == DEFAULTS
    r = patch(client, ann, {"timezone": "Europe/Berlin", "weekends_off": True, "notices": "turns",
                            "digest_hour": 7})
    assert r.status_code == 200, r.json
    assert r.json["timezone"] == "Europe/Berlin" and r.json["digest_hour"] == 7
    r = patch(client, ann, {"auto_vacation": False})  # a key left out stays
    want = {"timezone": "Europe/Berlin", "weekends_off": True, "auto_vacation": False, "notices": "turns",
            "digest_hour": 7}
    assert {k: r.json[k] for k in DEFAULTS} == want
    assert {k: me(client, ann)[k] for k in DEFAULTS} == want
    assert me(client, ann)["contacts"]["webhook"] == "https://hooks.example/ann"  # contacts untouched
    r = patch(client, ann, {"notices": "daily", "digest_hour": 19})  # the day's digest at 19:00, Berlin
    assert r.status_code == 200 and (r.json["notices"], r.json["digest_hour"]) == ("daily", 19)
    r = patch(client, ann, {"notices": None})  # back to the defaults
    assert r.status_code == 200 and r.json["notices"] is None
    # another player's settings are their own, and nobody else's profile shows them
    bob = register(client, name="Bob")
    assert {k: me(client, bob)[k] for k in DEFAULTS} == DEFAULTS
    public = client.get(f"/v1/players/{ann['id']}").json
    assert not set(DEFAULTS) & set(public)


@pytest.mark.parametrize("body, field", [
    ({"timezone": "Mars/Olympus"}, "timezone"),
    ({"timezone": "localtime"}, "timezone"),
    ({"timezone": 1}, "timezone"),
    ({"timezone": "Europe/Berlin", "weekends_off": "yes"}, "weekends_off"),
    ({"auto_vacation": 0}, "auto_vacation"),
    ({"notices": "hourly"}, "notices"),
    ({"notices": "Daily"}, "notices"),
    ({"notices": "daily", "digest_hour": -1}, "digest_hour"),  # the whole body refused: not even daily kept
    ({"digest_hour": 24}, "digest_hour"),
    ({"digest_hour": 7.5}, "digest_hour"),
    ({"digest_hour": True}, "digest_hour"),
    ({"digest_hour": 6, "webhook": "not a url"}, "webhook"),
    ({"weekend": True}, "weekend"),
])
def test_a_bad_value_is_refused_naming_its_field_and_changes_nothing(client, body, field):
    ann = register(client, name="Ann", webhook="https://hooks.example/ann")
    patch(client, ann, {"timezone": "Asia/Tokyo"})
    before = me(client, ann)
    r = patch(client, ann, {"notices": "turns", **body})
    assert r.status_code == 400, r.json
    assert r.headers["Content-Type"].startswith("application/problem+json")
    assert r.json.get("field") == field or field in str(r.json), r.json
    assert me(client, ann) == before


def test_settings_need_the_players_own_token(client):
    r = client.patch("/v1/players/me", json={"timezone": "UTC"})
    assert r.status_code == 401


# ---- fewer notices --------------------------------------------------------------------

def _play_out(client, gid: str, tokens: list) -> None:
    """Every seat plays its first legal move until the game ends: the same game
    each time from the same seed."""
    for _ in range(2000):
        game = client.get(f"/v1/games/{gid}").json
        if game["status"] in ("finished", "aborted"):
            return
        token = tokens[game["to_act"][0]]
        legal = client.get(f"/v1/games/{gid}/legal", headers=auth(token)).json["moves"]
        r = client.post(f"/v1/games/{gid}/moves", json={"move": legal[0]}, headers=auth(token))
        assert r.status_code == 201, r.json
    raise AssertionError("the game did not end")


def _notices_of(service, client, ann, others, notices) -> list[str]:
    """The reasons of Ann's notices over one whole game, with her ``notices`` setting."""
    assert patch(client, ann, {"notices": notices}).status_code == 200
    made = new_game(client, [{"player": p["id"]} for p in [ann, *others]],
                    options={"target": 2, "seed": "the same deal"})
    _play_out(client, made["id"], [p["token"] for p in [ann, *others]])
    return [n["reason"] for n in outbox.outbox_of(service).of_game(made["id"]) if n["seat"] == 0]


def test_turns_sends_a_player_their_turns_and_results_only(client, service):
    ann = register(client, name="Ann", webhook="https://hooks.example/ann")
    others = [register(client, name="Bob"), register(client, name="Cy")]
    each = _notices_of(service, client, ann, others, None)  # outside leagues the default is each
    turns = _notices_of(service, client, ann, others, "turns")
    assert {"trick", "hand"} & set(each), each
    assert set(turns) <= {"start", "turn", "game-over", "timeout"}, turns
    assert turns.count("turn") >= 1 and turns[-1] == "game-over"
    assert len(turns) < len(each) * 0.8, (len(turns), len(each))


def test_in_a_league_turns_is_the_default_and_each_may_be_chosen(client, service):
    ann = register(client, name="Ann", webhook="https://hooks.example/ann")
    others = [register(client, name="Bob"), register(client, name="Cy")]
    tokens = {p["id"]: p["token"] for p in [ann, *others]}

    def league_notices(name: str) -> list[str]:
        made = new_league(client, [ann, *others], name=name, game="king-of-danger", options={"target": 2},
                          format="tables", table_size=3, rounds=2)
        lid, reasons = made["id"], []
        for _ in range(6):
            for rnd in client.get(f"/v1/leagues/{lid}").json["rounds"]:
                for g in rnd["games"]:
                    if ann["id"] in g["seats"] and g["placings"] is None:
                        _play_out(client, g["game"], [tokens[p] for p in g["seats"]])
        got = client.get(f"/v1/leagues/{lid}").json
        assert got["status"] == "finished"
        for rnd in got["rounds"]:
            for g in rnd["games"]:
                if ann["id"] in g["seats"]:
                    seat = g["seats"].index(ann["id"])
                    reasons += [n["reason"] for n in outbox.outbox_of(service).of_game(g["game"])
                                if n["seat"] == seat]
        return reasons

    by_default = league_notices("Default")
    # her turns, her games' results and the league's rounds (their own notice, standings)
    assert by_default and set(by_default) <= {"start", "turn", "game-over", "timeout", "standings"}, by_default
    assert by_default.count("game-over") >= 2 and "standings" in by_default
    assert patch(client, ann, {"notices": "each"}).status_code == 200
    every = league_notices("Every notice")
    assert {"trick", "hand"} & set(every), every  # (the leagues' deals differ: counts are compared above)
