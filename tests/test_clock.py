"""Clocks: the clock option and deadlines as a pure function of the log."""

from __future__ import annotations

import random

import pytest
from freezegun import freeze_time

from referee.table import Table
from tests.helpers import Game

CLOCK = {"move_seconds": 3600, "remind_seconds": 600, "on_timeout": "forfeit"}


def _move(game: Game, seat: int, rnd=None) -> dict:
    moves = [m for m in game.legal(seat) if m["type"] != "resign"]
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
    ({"move_seconds": 59}, "options.clock.move_seconds"),
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
        assert s["deadlines"] == [{"seat": seat, "deadline": "2026-03-01T11:00:00.000000Z"}]
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
    from referee.audit import _parse

    with freeze_time("2031-01-01"):
        from referee import clock

        assert clock.deadlines(Table.replay(_parse(export))) == live
        assert g.summary()["deadlines"] == live


def test_a_clocked_game_audits_valid(client):
    with freeze_time("2026-03-01T10:00:00Z"):
        g = Game(client, "kings-keys", 3, {"clock": CLOCK})
        g.post(0, {"move": {"type": "resign"}})
        r = client.post("/v1/audit", data=g.export(), content_type="application/x-ndjson")
    assert r.status_code == 200 and r.json["valid"], r.json
