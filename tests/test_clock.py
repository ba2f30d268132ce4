"""Clocks: the clock option and deadlines as a pure function of the log."""

from __future__ import annotations

import random

import pytest
from freezegun import freeze_time

from referee.table import Table
from tests.helpers import Game

CLOCK = {"move_seconds": 3600, "remind_seconds": 600, "on_timeout": "forfeit"}


def _move(game: Game, seat: int, rnd=None) -> dict:
    from referee.bots import NEVER

    # as a bot picks: no resigning, no draw offers that could end the game early
    moves = [m for m in game.legal(seat) if m["type"] not in NEVER]
    r = game.post(seat, {"move": (rnd or random.Random(1)).choice(moves)})
    assert r.status_code == 201, r.json
    return r.json


def test_the_clock_is_recorded_in_the_log_with_defaults(client):
    g = Game(client, "castle-danger", 2, {"clock": {"move_seconds": 120}})
    first = g.get("/events").json["events"][0]
    assert first["payload"]["options"]["clock"] == {"move_seconds": 120, "remind_seconds": 0,
                                                    "on_timeout": "remind"}
    assert g.summary()["options"]["clock"]["move_seconds"] == 120


def test_no_clock_no_deadline(client):
    g = Game(client, "castle-danger", 2)
    s = g.summary()
    assert s["deadline"] is None and s["deadlines"] == []
    assert "clock" not in s["options"]


@pytest.mark.parametrize("clock,field", [
    ("fast", "options.clock"),
    ({"move_seconds": 4}, "options.clock.move_seconds"),
    ({"move_seconds": True}, "options.clock.move_seconds"),
    ({"move_seconds": 60.5}, "options.clock.move_seconds"),
    ({"move_seconds": 10**12}, "options.clock.move_seconds"),
    ({}, "options.clock.move_seconds"),
    ({"move_seconds": 600, "remind_seconds": 600}, "options.clock.remind_seconds"),
    ({"move_seconds": 600, "remind_seconds": -1}, "options.clock.remind_seconds"),
    ({"move_seconds": 600, "on_timeout": "explode"}, "options.clock.on_timeout"),
    ({"move_seconds": 600, "tick": 1}, "options.clock.tick"),
])
def test_a_bad_clock_is_refused_naming_its_field(client, clock, field):
    before = client.get("/v1/games").json["games"]
    r = client.post("/v1/games", json={"game": "king-of-danger", "players": ["a", "b"],
                                       "options": {"clock": clock}})
    assert r.status_code == 400, r.json
    assert r.content_type == "application/problem+json"
    assert r.json["field"] == field
    assert client.get("/v1/games").json["games"] == before


def test_deadlines_follow_the_log(client):
    with freeze_time("2026-03-01T10:00:00Z") as frozen:
        g = Game(client, "castle-danger", 2, {"clock": CLOCK})
        s = g.summary()
        seat = s["to_act"][0]
        assert s["deadlines"] == [{"seat": seat, "deadline": "2026-03-01T11:00:00.000000Z", "overdue": False}]
        assert s["deadline"] == "2026-03-01T11:00:00.000000Z"
        # the other seat's own view has no deadline; the acting seat's has its own
        assert g.get("/view", 1 - seat).json["deadline"] is None
        assert g.get("/view", seat).json["deadline"] == "2026-03-01T11:00:00.000000Z"
        # reading later changes nothing: the deadline is the log's, not the wall's
        frozen.tick(1800)
        assert g.summary()["deadline"] == "2026-03-01T11:00:00.000000Z"
        # a move starts the clock again (of whoever is then to act), at the move's time
        frozen.tick(95)
        _move(g, seat)
        s = g.summary()
        assert {d["seat"] for d in s["deadlines"]} == set(s["to_act"])
        assert all(d["deadline"] == "2026-03-01T11:31:35.000000Z" for d in s["deadlines"])


def test_deadline_is_a_pure_function_of_the_log(client):
    """Replaying the export (as an audit or another process does) gives the same
    deadlines as the live table, at any later wall time."""
    rnd = random.Random(7)
    with freeze_time("2026-03-01T10:00:00Z") as frozen:
        g = Game(client, "castle-danger", 2, {"clock": {"move_seconds": 300}})
        for _ in range(6):
            frozen.tick(rnd.randrange(1, 250))
            s = g.summary()
            _move(g, rnd.choice(s["to_act"]), rnd)
        live = g.summary()["deadlines"]
        export = g.export()
    from referee.log_lines import parse

    with freeze_time("2031-01-01"):
        from referee import clock

        assert clock.deadlines(Table.replay(parse(export))) == live
        assert g.summary()["deadlines"] == live


def test_a_clocked_game_audits_valid(client):
    with freeze_time("2026-03-01T10:00:00Z"):
        g = Game(client, "kings-keys", 3, {"clock": CLOCK})
        g.post(0, {"move": {"type": "resign"}})
        r = client.post("/v1/audit", data=g.export(), content_type="application/x-ndjson")
    assert r.status_code == 200 and r.json["valid"], r.json


def _clock(g: Game, body, who="admin"):
    return client_post(g, "/clock", body, who)


def client_post(g: Game, path: str, body, who="admin"):
    return g.client.post(f"/v1/games/{g.id}{path}", json=body, headers=g.auth(who))


def test_the_admin_pauses_resumes_and_changes_the_clock(client):
    with freeze_time("2026-03-01T10:00:00Z") as frozen:
        g = Game(client, "castle-danger", 2, {"clock": CLOCK})
        seat = g.summary()["to_act"][0]
        frozen.tick(1000)
        r = _clock(g, {"paused": True})
        assert r.status_code == 201, r.json
        assert r.json["events"][0]["type"] == "clock-changed"
        assert r.json["events"][0]["payload"] == {"clock": CLOCK, "paused": True}
        s = g.summary()
        assert s["deadline"] is None and s["deadlines"] == []
        assert s["clock"] == {**CLOCK, "paused": True}
        # resuming gives each seat to act a full move_seconds from the resume
        frozen.tick(5000)
        assert _clock(g, {"paused": False}).status_code == 201
        assert g.summary()["deadlines"] == [{"seat": seat, "deadline": "2026-03-01T12:40:00.000000Z", "overdue": False}]
        # a new clock, defaults filled in, from the moment it is set
        frozen.tick(60)
        r = _clock(g, {"clock": {"move_seconds": 600}})
        assert r.json["events"][0]["payload"] == {
            "clock": {"move_seconds": 600, "remind_seconds": 0, "on_timeout": "remind"}, "paused": False}
        s = g.summary()
        assert s["deadline"] == "2026-03-01T11:51:00.000000Z"
        assert s["options"]["clock"] == CLOCK  # the creation's option is unchanged in the log
        # no clock at all
        assert _clock(g, {"clock": None}).status_code == 201
        s = g.summary()
        assert s["clock"] is None and s["deadline"] is None
        r = client.post("/v1/audit", data=g.export(), content_type="application/x-ndjson")
        assert r.json["valid"], r.json


def test_a_clock_can_be_set_on_a_game_created_without_one(client):
    with freeze_time("2026-03-01T10:00:00Z"):
        g = Game(client, "king-of-danger", 2)
        assert _clock(g, {"clock": {"move_seconds": 60}}).status_code == 201
        s = g.summary()
        assert s["deadline"] == "2026-03-01T10:01:00.000000Z"
        assert client.post("/v1/audit", data=g.export(), content_type="application/x-ndjson").json["valid"]


@pytest.mark.parametrize("body,who,status,field", [
    ({"paused": True}, 0, 403, None),
    ({"paused": True}, None, 403, None),
    ({}, "admin", 400, "body"),
    ({"paused": True, "clock": None}, "admin", 400, "body"),
    ({"paused": "yes"}, "admin", 400, "paused"),
    ({"clock": {"move_seconds": 4}}, "admin", 400, "clock.move_seconds"),
    ({"clock": "soon"}, "admin", 400, "clock"),
    ({"tick": 1}, "admin", 400, "body"),
])
def test_bad_clock_changes_change_nothing(client, body, who, status, field):
    g = Game(client, "castle-danger", 2, {"clock": CLOCK})
    before = g.export()
    r = _clock(g, body, who)
    assert r.status_code == status, r.json
    assert r.content_type == "application/problem+json"
    if field:
        assert r.json["field"] == field
    assert g.export() == before


def test_pausing_a_game_without_a_clock_is_refused(client):
    g = Game(client, "castle-danger", 2)
    r = _clock(g, {"paused": True})
    assert r.status_code == 400 and r.json["field"] == "paused"


def test_the_clock_of_a_finished_game_cannot_change(client):
    g = Game(client, "castle-danger", 2, {"clock": CLOCK})
    seat = g.summary()["to_act"][0]
    assert g.post(seat, {"move": {"type": "resign"}}).status_code == 201
    assert _clock(g, {"paused": True}).status_code == 409


@pytest.mark.parametrize("forge", [
    lambda p: p["clock"].update(move_seconds=4),  # below the minimum
    lambda p: p["clock"].pop("on_timeout"),  # not completed as the referee completes it
    lambda p: p.update(paused="yes"),
])
def test_the_audit_refuses_a_forged_clock_change(client, forge):
    from tests.helpers import canonical_lines
    from tests.test_audit import reseal

    g = Game(client, "castle-danger", 2, {"clock": CLOCK})
    assert _clock(g, {"clock": {"move_seconds": 600}}).status_code == 201
    lines = canonical_lines(g.export())
    assert lines[-1]["type"] == "clock-changed"
    assert client.post("/v1/audit", data=reseal(lines), content_type="application/x-ndjson").json["valid"]
    forge(lines[-1]["payload"])  # resealed: only the rule is wrong, not the chain
    report = client.post("/v1/audit", data=reseal(lines), content_type="application/x-ndjson").json
    assert not report["valid"] and report["first_error"]["seq"] == lines[-1]["seq"], report
