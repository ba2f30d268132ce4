"""Booking vacations, on both stores: the refusals each name their rule, a day
counts in its own year, parallel bookings never overdraw the allowance, a
league's clock bounds what its games draw, and nobody else sees more of a
player's vacation than ``on_vacation_until``."""

from __future__ import annotations

import threading

from freezegun import freeze_time

from referee import timeouts
from referee.calendar.booking import VacationRefused
from referee.players.store import players_of
from tests.leaguetools import new_league
from tests.playertools import auth, new_game, register

NOW = "2026-06-01T10:00:00Z"


def _book(client, who, first, last):
    return client.post("/v1/players/me/vacation", json={"from": first, "to": last}, headers=auth(who["token"]))


def _me(client, who):
    return client.get("/v1/players/me", headers=auth(who["token"])).json


def test_each_refusal_names_its_rule_or_field_and_keeps_nothing(client):
    with freeze_time(NOW):
        ann = register(client, name="Ann")
        assert client.post("/v1/players/me/vacation", json={"from": "2026-06-02", "to": "2026-06-02"}).status_code == 401
        for body, status, named in [
            ({"from": "2026-05-31", "to": "2026-06-02"}, 409, ("rule", "vacation-in-the-past")),
            ({"from": "2026-06-05", "to": "2026-06-03"}, 400, ("field", "to")),
            ({"from": "2026-6-5", "to": "2026-06-07"}, 400, ("field", "from")),
            ({"from": "2026-06-05"}, 400, ("field", "to")),
            ({"from": "2026-06-05", "to": 20260606}, 400, ("field", "to")),
            ({"from": "2027-05-31", "to": "2027-06-02"}, 409, ("rule", "vacation-too-far-ahead")),
        ]:
            r = client.post("/v1/players/me/vacation", json=body, headers=auth(ann["token"]))
            assert r.status_code == status and r.json[named[0]] == named[1], (body, r.json)
            assert r.headers["Content-Type"] == "application/problem+json"
        assert client.post("/v1/players/me/vacation", json={"from": "2026-06-05", "to": "2026-06-06", "x": 1},
                           headers=auth(ann["token"])).status_code == 400
        assert _book(client, ann, "2026-06-10", "2026-06-20").json["vacation_days_left"] == 10
        r = _book(client, ann, "2026-06-20", "2026-06-21")
        assert r.status_code == 409 and r.json["rule"] == "vacation-overlaps"
        assert _book(client, ann, "2026-06-21", "2026-06-30").json["vacation_days_left"] == 0
        r = _book(client, ann, "2026-07-01", "2026-07-01")
        assert r.status_code == 409 and r.json["rule"] == "vacation-allowance" and r.json["days_left"] == 0
        me = _me(client, ann)
        assert me["vacation_days_left"] == 0
        assert me["vacations"] == [{"from": "2026-06-10", "to": "2026-06-20"}, {"from": "2026-06-21", "to": "2026-06-30"}]
        # a cancel before they begin gives every day back
        assert client.delete("/v1/players/me/vacation", headers=auth(ann["token"])).json == {
            "vacation_days_left": 21, "vacations": []}


def test_a_vacation_over_new_year_takes_each_day_from_its_own_year(client):
    with freeze_time("2026-12-20T09:00:00Z"):
        ann = register(client, name="Ann")
        assert _book(client, ann, "2026-12-28", "2027-01-03").json["vacation_days_left"] == 17  # four in 2026
        assert _book(client, ann, "2027-01-10", "2027-01-27").status_code == 200  # 18 more in 2027: 21
        r = _book(client, ann, "2027-02-01", "2027-02-01")
        assert r.status_code == 409 and r.json["rule"] == "vacation-allowance" and r.json["year"] == 2027
        assert _book(client, ann, "2026-12-30", "2026-12-30").json["rule"] == "vacation-overlaps"
    with freeze_time("2027-01-02T09:00:00Z"):  # the new year's count: none left
        assert _me(client, ann)["vacation_days_left"] == 0
        assert client.get(f"/v1/players/{ann['id']}").json["on_vacation_until"] == "2027-01-03"


def test_parallel_bookings_never_overdraw_the_allowance(client, service):
    ann = register(client, name="Ann")
    vacations = service.player_settings.vacations
    booked, refused = [], []
    start = threading.Barrier(10)

    def book(i):
        start.wait()
        first = f"2026-07-{1 + 3 * i:02d}"
        try:
            vacations.book(ann["id"], {"from": first, "to": f"2026-07-{3 + 3 * i:02d}"}, now="2026-06-01T10:00:00.000000Z")
            booked.append(i)
        except VacationRefused as err:
            refused.append(err.extra["rule"])

    threads = [threading.Thread(target=book, args=(i,)) for i in range(10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # ten bookings of three days each against 21: seven taken, three refused, whatever the order
    assert len(booked) == 7 and refused == ["vacation-allowance"] * 3
    shown = vacations.shown(ann["id"], "2026-06-01T10:00:00.000000Z")
    assert shown["vacation_days_left"] == 0 and len(shown["vacations"]) == 7


def test_nobody_else_sees_more_than_on_vacation_until(client, service):
    with freeze_time(NOW):
        ann, bob = register(client, name="Ann"), register(client, name="Bob")
        gid = new_game(client, [{"player": ann["id"]}, {"player": bob["id"]}],
                       options={"clock": {"move_seconds": 86400, "on_timeout": "forfeit"}, "seed": 3})["id"]
        assert _book(client, ann, "2026-06-01", "2026-06-03").status_code == 200
        assert _book(client, ann, "2026-08-10", "2026-08-12").status_code == 200  # to come: nobody's business
        profile = client.get(f"/v1/players/{ann['id']}").json
        assert profile["on_vacation_until"] == "2026-06-03"
        assert not {"vacations", "vacation_days_left", "auto_vacation"} & set(profile)
        channels = [client.get(f"/v1/players/{ann['id']}").data,
                    client.get("/v1/players/me", headers=auth(bob["token"])).data,
                    client.get(f"/v1/games/{gid}").data,
                    client.get(f"/v1/games/{gid}/events", headers=auth(bob["token"])).data,
                    client.get(f"/v1/games/{gid}/events").data,
                    client.get(f"/players/{ann['id']}").data,
                    client.get("/v1/players?name=Ann").data]
        for seen in channels:
            assert b"2026-08-1" not in seen  # (Bob's own /me shows his own days left, not Ann's)
        # the pause in the game says when it ends: the day after on_vacation_until, no more
        paused = [e["payload"] for e in client.get(f"/v1/games/{gid}/events", headers=auth(bob["token"])).json["events"]
                  if e["type"] == "clock-paused"]
        assert paused == [{"seat": 0, "reason": "vacation", "from": "2026-06-01T10:00:00.000000Z",
                           "until": "2026-06-04T00:00:00.000000Z"}]
        assert _me(client, ann)["vacations"] == [{"from": "2026-06-01", "to": "2026-06-03"},
                                                  {"from": "2026-08-10", "to": "2026-08-12"}]


def test_a_leagues_clock_bounds_the_vacations_of_its_games(client, service):
    clock = {"move_seconds": 86400, "on_timeout": "forfeit"}
    with freeze_time(NOW):
        ann, bob, cy, di = (register(client, name=n) for n in ("Ann", "Bob", "Cy", "Di"))
        new_league(client, [ann, bob], clock={**clock, "vacation_days": 0})
        new_league(client, [cy, di], clock={**clock, "vacation_days": 1})
        (none_gid, _), = players_of(service).seats(ann["id"]).items()
        (one_gid, _), = players_of(service).seats(cy["id"]).items()
        assert client.get(f"/v1/games/{none_gid}").json["clock"]["vacation_days"] == 0
        # no pause for a booked vacation in a game whose clock stops for none
        assert _book(client, ann, "2026-06-01", "2026-06-01").status_code == 200
        assert _book(client, bob, "2026-06-01", "2026-06-01").status_code == 200
        events = client.get(f"/v1/games/{none_gid}/events", headers=auth(ann["token"])).json["events"]
        assert not [e for e in events if e["type"] == "clock-paused"]
        r = client.post("/v1/games", json={"game": "king-of-danger", "players": ["A", "B"],
                                           "options": {"clock": {**clock, "vacation_days": -1}}})
        assert r.status_code == 400 and r.json["field"] == "options.clock.vacation_days"
    with freeze_time("2026-06-02T10:00:00Z"):  # no auto vacation there either: the timeout
        assert timeouts.tick(service, none_gid)["timeout"] is not None
        assert _me(client, ann)["vacation_days_left"] == 20 and _me(client, bob)["vacation_days_left"] == 20
        # one day of auto vacation in the other league's game, then the timeout
        assert timeouts.tick(service, one_gid)["timeout"] is None
    with freeze_time("2026-06-03T10:00:00Z"):
        assert timeouts.tick(service, one_gid)["timeout"] is not None
        waiting = client.get(f"/v1/games/{one_gid}/events", headers=auth(cy["token"])).json["events"]
        assert [e["payload"]["reason"] for e in waiting if e["type"] == "clock-paused"] == ["auto-vacation"]
    bundle = client.get(f"/v1/games/{one_gid}/export", headers=auth(cy["token"]))
    assert bundle.status_code == 200, bundle.json  # (over, its seed out)
    audited = client.post("/v1/audit", data=bundle.data, content_type="application/x-ndjson").json
    assert audited["valid"], audited
