"""Excused misses: ``on_timeout: {"excused": N, "then": ...}``. A seat's first N
timeouts in the game have the basic bot play its whole turn (in Castle Danger, a
turn of several actions, to its end), the next one ends as ``then``; the log says
which, and the audit re-derives every one."""

from __future__ import annotations

import pytest
from freezegun import freeze_time

from referee import timeouts
from tests.helpers import Game
from tests.leaguetools import new_league
from tests.test_timeouts import T0, at

EXCUSED = {"move_seconds": 3600, "on_timeout": {"excused": 1, "then": "forfeit"}}


def _events(g: Game) -> list[dict]:
    return g.get("/events", "admin", limit=1000).json["events"]


def test_the_first_miss_is_a_whole_turn_played_and_the_next_loses(client, service):
    with freeze_time(T0):
        g = Game(client, "castle-danger", 2, {"clock": EXCUSED, "seed": 11})
        seat = g.summary()["to_act"][0]
        assert g.summary()["clock"]["on_timeout"] == {"excused": 1, "then": "forfeit"}
    with freeze_time(at(3600)):
        assert timeouts.tick(service, g.id)["timeout"] == seat
    log = _events(g)
    out = next(i for i, e in enumerate(log) if e["type"] == "seat-timed-out")
    assert log[out]["payload"] == {"seat": seat, "deadline": at(3600), "on_timeout": "turn", "excused": 1}
    played = [e for e in log[out + 1:] if e["actor"] == seat]
    # the whole turn: every action up to the turn's end is the seat's, played by the referee
    assert len({e["seq"] for e in played}) > 1 and g.summary()["to_act"] == [1 - seat]
    # the other seat moves; the first seat's next turn runs out: no more excuses
    s = g.summary()
    with freeze_time(at(3700)):
        while s["to_act"] == [1 - seat] and s["status"] == "active":
            r = g.post(1 - seat, {"move": [m for m in g.legal(1 - seat) if m["type"] != "resign"][-1]})
            assert r.status_code == 201, r.json
            s = g.summary()
    assert s["to_act"] == [seat]
    with freeze_time(at(3700 + 3600)):
        assert timeouts.tick(service, g.id)["timeout"] == seat
    s = g.summary()
    assert s["status"] == "finished" and s["result"]["winners"] == [1 - seat]
    last = [e for e in _events(g) if e["type"] == "seat-timed-out"][-1]
    assert last["payload"]["on_timeout"] == "forfeit" and "excused" not in last["payload"]
    r = client.post("/v1/audit", data=g.export(), content_type="application/x-ndjson")
    assert r.status_code == 200 and r.json["valid"], r.json


@pytest.mark.parametrize("on_timeout, field", [
    ({"excused": 0}, "options.clock.on_timeout.excused"),
    ({"excused": 101}, "options.clock.on_timeout.excused"),
    ({"excused": True}, "options.clock.on_timeout.excused"),
    ({"excused": 2, "then": "remind"}, "options.clock.on_timeout.then"),
    ({"excused": 2, "grace": 1}, "options.clock.on_timeout.grace"),
    ({}, "options.clock.on_timeout.excused"),
])
def test_bad_excused_misses_are_refused_naming_the_field(client, on_timeout, field):
    r = client.post("/v1/games", json={"game": "king-of-danger", "players": ["a", "b"],
                                       "options": {"clock": {"move_seconds": 60, "on_timeout": on_timeout}}})
    assert r.status_code == 400 and r.json["field"] == field, r.json


def test_a_league_may_set_the_excused_misses(client):
    ps = [client.post("/v1/players", json={"name": f"P{i}", "bot": "random"}).json for i in range(2)]
    league = new_league(client, ps, name="L", game="king-of-danger", options={"target": 1}, format="round-robin",
                        clock={"move_seconds": 86400, "on_timeout": {"excused": 3, "then": "autoplay"}})
    game = client.get(f"/v1/leagues/{league['id']}").json["rounds"][0]["games"][0]["game"]
    assert client.get(f"/v1/games/{game}").json["clock"]["on_timeout"] == {"excused": 3, "then": "autoplay"}
