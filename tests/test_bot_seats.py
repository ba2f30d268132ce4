"""Bot seats: players ``{"name", "bot": "random" | "basic"}`` the referee plays
itself, as referee jobs, each move re-derived by the audit once the seed is out."""

from __future__ import annotations

import random

import pytest

from tests.helpers import Game

FOUR_BOTS = [
    ("king-of-danger", 4, {}),
    ("castle-danger", 2, {"turn_limit": 30}),
    ("king-of-the-castle", 4, {}),
    ("kings-keys", 4, {}),
]


def audit(client, game: Game) -> dict:
    return client.post("/v1/audit", data=game.export(), content_type="application/x-ndjson").json


@pytest.mark.parametrize("game,players,options", FOUR_BOTS)
def test_a_game_of_basic_bots_plays_to_its_end_by_itself(client, game, players, options):
    g = Game(client, game, [{"name": f"Bot{i}", "bot": "basic"} for i in range(players)], options)
    s = g.summary()
    assert s["status"] == "finished", s
    assert s["result"]["winners"]
    report = audit(client, g)
    assert report["valid"] and report["seed"] == "verified", report
    moves = [e for e in g.get("/events", "admin", limit=1000).json["events"] if isinstance(e["actor"], int)]
    assert moves and {e["actor"] for e in moves} <= set(range(players))


def test_a_bot_seat_has_no_token_and_is_marked_in_the_log(client):
    r = client.post("/v1/games", json={"game": "king-of-danger",
                                       "players": ["Ann", {"name": "Robo", "bot": "random"}]})
    assert r.status_code == 201, r.json
    seats = r.json["seats"]
    assert "token" in seats[0] and "token" not in seats[1] and seats[1]["bot"] == "random"
    created = client.get(f"/v1/games/{r.json['id']}/events").json["events"][0]
    assert created["payload"]["seats"][1] == {"seat": 1, "name": "Robo", "bot": "random"}


@pytest.mark.parametrize("entry,field", [
    ({"name": "Robo", "bot": "clever"}, "players[1].bot"),
    ({"name": "Robo", "bot": 1}, "players[1].bot"),
])
def test_an_unknown_bot_is_refused_naming_the_field(client, entry, field):
    before = client.get("/v1/games").json["games"]
    r = client.post("/v1/games", json={"game": "king-of-danger", "players": ["Ann", entry]})
    assert r.status_code == 400 and r.json["field"] == field, r.json
    assert client.get("/v1/games").json["games"] == before


def test_castle_danger_of_bots_alone_needs_a_turn_limit(client):
    r = client.post("/v1/games", json={"game": "castle-danger", "players": [
        {"name": "A", "bot": "basic"}, {"name": "B", "bot": "random"}]})
    assert r.status_code == 400 and r.json["field"] == "options.turn_limit", r.json


@pytest.mark.parametrize("game,players", [("king-of-danger", 3), ("kings-keys", 3),
                                          ("king-of-the-castle", 3), ("castle-danger", 2)])
def test_a_person_plays_a_whole_game_against_bots(client, game, players):
    entries = ["Ann"] + [{"name": f"Bot{i}", "bot": kind} for i, kind in
                         zip(range(1, players), ["basic", "random"], strict=False)]
    g = Game(client, game, entries, {"turn_limit": 30} if game == "castle-danger" else {})
    rnd = random.Random(7)
    for _ in range(3000):
        s = g.summary()
        if s["status"] == "finished":
            break
        assert s["status"] == "active", s  # a bot's move is made before the answer
        assert s["to_act"] == [0], s  # only the person is ever waited for
        moves = [m for m in g.legal(0) if m["type"] != "resign"]
        assert g.post(0, {"move": rnd.choice(moves)}).status_code == 201
    assert g.summary()["status"] == "finished"
    report = audit(client, g)
    assert report["valid"] and report["seed"] == "verified", report


def test_a_person_cannot_move_for_a_bot_seat(client):
    g = Game(client, "king-of-danger", ["Ann", {"name": "Robo", "bot": "basic"}])
    # no token exists for the bot's seat; the admin's token is not a seat's
    r = g.post("admin", {"move": {"type": "resign"}})
    assert r.status_code == 403, r.json


def test_a_bot_seat_given_to_a_person_stops_playing_itself(client):
    g = Game(client, "king-of-danger", [{"name": "Robo", "bot": "basic"}, "Ann"])
    r = client.post(f"/v1/games/{g.id}/seats/0/replace", json={"name": "Cy"}, headers=g.auth("admin"))
    assert r.status_code == 201, r.json
    g.tokens[0] = r.json["token"]
    rnd = random.Random(3)
    waited_for_cy = False
    for _ in range(400):
        s = g.summary()
        if s["status"] != "active":
            break
        seat = s["to_act"][0]
        waited_for_cy |= seat == 0
        moves = [m for m in g.legal(seat) if m["type"] != "resign"]
        assert g.post(seat, {"move": rnd.choice(moves)}).status_code == 201
    assert waited_for_cy
    assert audit(client, g)["valid"]


def test_the_audit_refuses_a_bot_move_the_bot_would_not_make(client):
    from referee.events import Event
    from referee.table import Table
    from tests.helpers import canonical_lines
    from tests.test_audit import reseal

    g = Game(client, "king-of-danger", [{"name": "A", "bot": "random"}, {"name": "B", "bot": "random"}])
    lines = canonical_lines(g.export())
    first_move = next(i for i, e in enumerate(lines) if isinstance(e["actor"], int))
    table = Table.replay([Event.from_dict(e) for e in lines[:first_move]])
    seat = lines[first_move]["actor"]
    others = [m for m in table.engine.legal(table.state, seat)
              if m["type"] != "resign" and m != lines[first_move]["payload"]["move"]]
    lines[first_move]["payload"]["move"] = others[0]  # resealed: a legal move, not the bot's
    report = client.post("/v1/audit", data=reseal(lines), content_type="application/x-ndjson").json
    assert not report["valid"] and report["first_error"]["seq"] == lines[first_move]["seq"], report


def test_an_absent_players_seat_given_to_a_bot_is_played_by_the_referee(client):
    g = Game(client, "king-of-danger", ["Ann", "Bob", "Cy"])
    r = client.post(f"/v1/games/{g.id}/seats/1/replace", json={"name": "Robo", "bot": "basic"},
                    headers=g.auth("admin"))
    assert r.status_code == 201, r.json
    assert r.json["bot"] == "basic" and "token" not in r.json
    assert r.json["events"][0]["payload"] == {"seat": 1, "name": "Robo", "bot": "basic"}
    # seat 1 was to act: the bot has moved already, and the answer's version counts it
    assert r.json["events"][0]["seq"] < r.json["version"] == g.summary()["version"]
    assert g.get("/view", 1).status_code == 401  # the old token is gone, and no new one
    assert g.summary()["players"] == ["Ann", "Robo", "Cy"]
    rnd = random.Random(11)
    for _ in range(3000):
        s = g.summary()
        if s["status"] == "finished":
            break
        assert 1 not in s["to_act"], s  # the referee moves for the bot's seat
        seat = s["to_act"][0]
        moves = [m for m in g.legal(seat) if m["type"] != "resign"]
        assert g.post(seat, {"move": rnd.choice(moves)}).status_code == 201
    assert g.summary()["status"] == "finished"
    report = audit(client, g)
    assert report["valid"] and report["seed"] == "verified", report


def test_the_last_person_of_a_castle_danger_game_without_turn_limit_stays_a_person(client):
    g = Game(client, "castle-danger", ["Ann", {"name": "Robo", "bot": "basic"}])
    before = g.export()
    r = client.post(f"/v1/games/{g.id}/seats/0/replace", json={"name": "Robo2", "bot": "random"},
                    headers=g.auth("admin"))
    assert r.status_code == 400 and r.json["field"] == "bot", r.json
    assert g.export() == before


def test_the_audit_refuses_a_seat_given_to_an_unknown_bot(client):
    from tests.helpers import canonical_lines
    from tests.test_audit import reseal

    g = Game(client, "king-of-danger", ["Ann", "Bob"])
    r = client.post(f"/v1/games/{g.id}/seats/1/replace", json={"name": "Robo", "bot": "basic"},
                    headers=g.auth("admin"))
    assert r.status_code == 201
    lines = canonical_lines(g.export())
    i = next(i for i, e in enumerate(lines) if e["type"] == "seat-replaced")
    assert client.post("/v1/audit", data=reseal(lines), content_type="application/x-ndjson").json["valid"]
    lines[i]["payload"]["bot"] = "oracle"
    report = client.post("/v1/audit", data=reseal(lines), content_type="application/x-ndjson").json
    assert not report["valid"] and report["first_error"]["code"] == "bad-seat-replaced", report
