"""Time banks: ``clock: {"kind": "bank", ...}``. Each seat starts with the initial
bank, pays the time it takes, gains the increment when its turn ends (capped), and
its deadline is when its bank runs out; worked out by hand on a frozen clock."""

from __future__ import annotations

import pytest
from freezegun import freeze_time

from referee import timeouts
from tests.helpers import Game

BANK = {"kind": "bank", "initial_seconds": 600, "increment_seconds": 60, "max_seconds": 700,
        "on_timeout": "forfeit"}


def _first_legal(g: Game, seat: int) -> None:
    r = g.post(seat, {"move": g.legal(seat)[0]})
    assert r.status_code == 201, r.json


def _banks(g: Game) -> dict:
    return {b["seat"]: b["seconds"] for b in g.summary()["banks"]}


def test_a_bank_clock_is_kept_complete_and_shown(client):
    g = Game(client, "castle-danger", 2, {"clock": {"kind": "bank", "initial_seconds": 300}})
    first = g.get("/events").json["events"][0]
    assert first["payload"]["options"]["clock"] == {
        "kind": "bank", "initial_seconds": 300, "increment_seconds": 0, "max_seconds": 300,
        "remind_seconds": 0, "on_timeout": "remind"}
    assert g.summary()["banks"] == [{"seat": 0, "seconds": 300.0}, {"seat": 1, "seconds": 300.0}]
    assert g.get("/view", 0).json["banks"] == g.summary()["banks"]
    # a clock a move has no banks
    assert Game(client, "castle-danger", 2, {"clock": {"move_seconds": 60}}).summary()["banks"] == []


def test_banks_pay_the_time_taken_and_gain_the_increment_capped(client):
    with freeze_time("2026-03-02T10:00:00Z") as frozen:
        g = Game(client, "king-of-danger", 2, {"clock": BANK, "seed": 7})
        a = g.summary()["to_act"][0]
        b = 1 - a
        assert g.summary()["deadlines"] == [{"seat": a, "deadline": "2026-03-02T10:10:00.000000Z",
                                             "overdue": False}]
        frozen.tick(100)  # a takes 100 s: 600 - 100 + 60
        _first_legal(g, a)
        assert g.summary()["to_act"] == [b]
        assert _banks(g) == {a: 560.0, b: 600.0}
        # b's time started at a's move: b's whole bank from then
        assert g.summary()["deadline"] == "2026-03-02T10:11:40.000000Z"
        frozen.tick(0.5)  # b answers at once: 600 - 0.5 + 60, under the cap
        _first_legal(g, b)
        assert _banks(g)[b] == 659.5
        s = g.summary()
        if s["to_act"] == [b]:  # b won the trick and leads: the cap holds its bank at 700
            frozen.tick(1)
            _first_legal(g, b)
            assert _banks(g)[b] == 700.0
        # reading later changes nothing: the banks are the log's
        seen = _banks(g)
        frozen.tick(50)
        assert _banks(g) == seen
        r = client.post("/v1/audit", data=g.export(), content_type="application/x-ndjson")
        assert r.status_code == 200 and r.json["valid"], r.json


def test_the_deadline_is_when_the_bank_runs_out(client, service):
    with freeze_time("2026-03-02T10:00:00Z") as frozen:
        g = Game(client, "king-of-danger", 2, {"clock": BANK, "seed": 7})
        a = g.summary()["to_act"][0]
        frozen.tick(599)
        assert timeouts.tick(service, g.id)["timeout"] is None
        frozen.tick(1)
        assert timeouts.tick(service, g.id)["timeout"] == a
        s = g.summary()
        assert s["status"] == "finished" and s["result"]["winners"] == [1 - a]
        r = client.post("/v1/audit", data=g.export(), content_type="application/x-ndjson")
        assert r.status_code == 200 and r.json["valid"], r.json


def test_a_pause_keeps_the_time_used_and_a_new_bank_fills_every_bank(client):
    with freeze_time("2026-03-02T10:00:00Z") as frozen:
        g = Game(client, "king-of-danger", 2, {"clock": BANK, "seed": 7})
        a = g.summary()["to_act"][0]
        frozen.tick(100)
        r = g.client.post(f"/v1/games/{g.id}/clock", json={"paused": True}, headers=g.auth("admin"))
        assert r.status_code == 201, r.json
        assert _banks(g)[a] == 500.0 and g.summary()["deadlines"] == []
        frozen.tick(86400)  # a day away: it costs nothing
        r = g.client.post(f"/v1/games/{g.id}/clock", json={"paused": False}, headers=g.auth("admin"))
        assert r.status_code == 201, r.json
        assert g.summary()["deadline"] == "2026-03-03T10:10:00.000000Z"  # resumed 10:01:40 + 500 s
        frozen.tick(10)
        r = g.client.post(f"/v1/games/{g.id}/clock", json={"clock": {**BANK, "initial_seconds": 120,
                                                                         "max_seconds": 120}},
                          headers=g.auth("admin"))
        assert r.status_code == 201, r.json
        assert set(_banks(g).values()) == {120.0}
        r = client.post("/v1/audit", data=g.export(), content_type="application/x-ndjson")
        assert r.status_code == 200 and r.json["valid"], r.json


@pytest.mark.parametrize("clock, field", [
    ({"kind": "hourglass", "initial_seconds": 60}, "options.clock.kind"),
    ({"kind": "bank"}, "options.clock.initial_seconds"),
    ({"kind": "bank", "initial_seconds": 4}, "options.clock.initial_seconds"),
    ({"kind": "bank", "initial_seconds": 60, "increment_seconds": -1}, "options.clock.increment_seconds"),
    ({"kind": "bank", "initial_seconds": 60, "max_seconds": 59}, "options.clock.max_seconds"),
    ({"kind": "bank", "initial_seconds": 60, "remind_seconds": 60}, "options.clock.remind_seconds"),
    ({"kind": "bank", "initial_seconds": 60, "on_timeout": "explode"}, "options.clock.on_timeout"),
    ({"kind": "bank", "initial_seconds": 60, "move_seconds": 60}, "options.clock.move_seconds"),
])
def test_a_bad_bank_is_refused_naming_its_field(client, clock, field):
    before = client.get("/v1/games").json["games"]
    r = client.post("/v1/games", json={"game": "king-of-danger", "players": ["a", "b"],
                                       "options": {"clock": clock}})
    assert r.status_code == 400, r.json
    assert r.json["field"] == field
    assert client.get("/v1/games").json["games"] == before


def test_a_notice_tells_every_bank_in_words(client, service, smtp):
    from referee.mail import sending

    players = [{"name": "Ann", "email": "ann@example.org"}, {"name": "Bob", "email": "bob@example.org"}]
    with freeze_time("2026-03-02T10:00:00Z") as frozen:
        g = Game(client, "king-of-danger", players, {"clock": BANK, "seed": 7})
        a = g.summary()["to_act"][0]
        frozen.tick(100)
        _first_legal(g, a)
        sending.deliver_due(service, 2e9)
    turn = smtp.inbox.to(players[1 - a]["email"])[-1].get_content()
    print(turn)  # as the player reads it (pytest -s)
    banks = {a: "9 minutes 20 seconds", 1 - a: "10 minutes"}
    assert f"Time banks: Ann {banks[0]}, Bob {banks[1]}." in turn
    assert "a time bank of 10 minutes, 1 minute more a turn up to 11 minutes 40 seconds" in \
        g.get("/log").json["lines"][0]["text"]
