"""Vacations in games, on both stores: a booking stops the player's own clock in
each of their games (``clock-paused`` / ``clock-resumed`` in the logs, fired by
the keeper), the deadline is derived from the log with the paused time left out,
auto vacation draws a day at a time before a timeout, and the audit re-derives
all of it (and catches a pause edited with its chain sealed again)."""

from __future__ import annotations

import json

from freezegun import freeze_time

from referee import timeouts
from tests.playertools import auth, new_game, register
from tests.test_audit import reseal

DAY = {"move_seconds": 86400, "on_timeout": "forfeit"}


def _game(client, clock=DAY):
    ann, bob = register(client, name="Ann"), register(client, name="Bob")
    gid = new_game(client, [{"player": ann["id"]}, {"player": bob["id"]}], options={"clock": clock, "seed": 3})["id"]
    seat = client.get(f"/v1/games/{gid}").json["to_act"][0]
    return gid, seat, [ann, bob][seat], [ann, bob][1 - seat]


def canonical_lines(text) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line]


def _tick(service, gid, now):
    with freeze_time(now):  # the keeper's events written at that moment
        return timeouts.tick(service, gid, now)


def _deadline(client, gid, seat):
    return next((d["deadline"] for d in client.get(f"/v1/games/{gid}").json["deadlines"] if d["seat"] == seat), None)


def _pauses(client, gid, token):
    return [(e["type"], e["payload"]) for e in client.get(f"/v1/games/{gid}/events", headers=auth(token)).json["events"]
            if e["type"] in ("clock-paused", "clock-resumed")]


def _book(client, who, first, last):
    return client.post("/v1/players/me/vacation", json={"from": first, "to": last}, headers=auth(who["token"]))


def _audit(client, gid, token):
    bundle = client.get(f"/v1/games/{gid}/export", headers=auth(token))
    assert bundle.status_code == 200, bundle.json
    return client.post("/v1/audit", data=bundle.data, content_type="application/x-ndjson").json


def test_a_booked_vacation_stops_the_players_clock_and_the_keeper_resumes_it(client, service):
    vacations = service.player_settings.vacations
    with freeze_time("2026-06-01T10:00:00Z"):
        gid, seat, away, other = _game(client)
        client.patch("/v1/players/me", json={"auto_vacation": False}, headers=auth(away["token"]))
        r = client.post("/v1/players/me/vacation", json={"from": "2026-06-02", "to": "2026-06-04"},
                        headers=auth(away["token"]))
        assert r.status_code == 200, r.json
        assert r.json["vacation_days_left"] == 18 and r.json["vacations"] == [{"from": "2026-06-02", "to": "2026-06-04"}]
        assert _deadline(client, gid, seat) == "2026-06-02T10:00:00.000000Z"  # not yet paused
        # a booking to come is nobody's business: the profile shows nothing of it
        assert client.get(f"/v1/players/{away['id']}").json["on_vacation_until"] is None
    with freeze_time("2026-06-02T00:00:00Z"):
        assert vacations.round() == 1
        assert _pauses(client, gid, other["token"]) == [("clock-paused", {
            "seat": seat, "reason": "vacation", "from": "2026-06-02T00:00:00.000000Z",
            "until": "2026-06-05T00:00:00.000000Z"})]
        # 14 hours used on the 1st; the other 10 from 00:00 on the 5th
        assert _deadline(client, gid, seat) == "2026-06-05T10:00:00.000000Z"
        assert vacations.round() == 0  # the player's timer moved on: nothing written twice
        assert client.get(f"/v1/players/{away['id']}").json["on_vacation_until"] == "2026-06-04"
        assert service.store.timer(gid) == "2026-06-05T00:00:00.000000Z"  # the resume, a game timer
    assert _tick(service, gid, "2026-06-04T23:59:59.000000Z") == {"reminders": [], "timeout": None}
    assert _tick(service, gid, "2026-06-05T00:00:00.000000Z")["resumed"] == [seat]
    assert _pauses(client, gid, other["token"])[-1] == ("clock-resumed", {"seat": seat, "reason": "vacation"})
    assert _deadline(client, gid, seat) == "2026-06-05T10:00:00.000000Z"
    assert _tick(service, gid, "2026-06-05T09:59:59.000000Z")["timeout"] is None
    assert _tick(service, gid, "2026-06-05T10:00:00.000000Z")["timeout"] == seat
    audited = _audit(client, gid, other["token"])
    assert audited["valid"], audited


def test_the_other_seats_clock_runs_as_usual_and_a_bank_is_kept(client, service):
    bank = {"kind": "bank", "initial_seconds": 7200, "increment_seconds": 0, "on_timeout": "forfeit"}
    with freeze_time("2026-06-01T10:00:00Z"):
        gid, seat, away, other = _game(client, bank)
        assert client.post("/v1/players/me/vacation", json={"from": "2026-06-01", "to": "2026-06-01"},
                           headers=auth(away["token"])).status_code == 200
        # booked today: paused from the booking at once, the bank of two hours whole
        assert _pauses(client, gid, other["token"])[0][1]["from"] == "2026-06-01T10:00:00.000000Z"
        assert _deadline(client, gid, seat) == "2026-06-02T02:00:00.000000Z"
    with freeze_time("2026-06-01T11:00:00Z"):  # the away player moves all the same
        move = client.get(f"/v1/games/{gid}/legal", headers=auth(away["token"])).json["moves"][0]
        assert client.post(f"/v1/games/{gid}/moves", json={"move": move}, headers=auth(away["token"])).status_code == 201
        s = client.get(f"/v1/games/{gid}").json
        assert s["to_act"] == [1 - seat]  # (seed 3: the turn passes)
        # the other's time runs from the move, not paused; the pause kept the away seat's bank
        assert _deadline(client, gid, 1 - seat) == "2026-06-01T13:00:00.000000Z"
        assert {"seat": seat, "seconds": 7200.0} in s["banks"]


def test_auto_vacation_draws_a_day_at_a_time_then_the_seat_times_out(client, service, monkeypatch):
    monkeypatch.setenv("REFEREE_VACATION_DAYS", "2")
    with freeze_time("2026-06-01T10:00:00Z"):
        gid, seat, away, other = _game(client)
    deadline = "2026-06-02T10:00:00.000000Z"
    # the keeper a second late: the pause starts at the deadline all the same
    got = _tick(service, gid, "2026-06-02T10:00:01.000000Z")
    assert got["timeout"] is None
    assert _pauses(client, gid, other["token"]) == [("clock-paused", {
        "seat": seat, "reason": "auto-vacation", "from": deadline, "until": "2026-06-03T10:00:00.000000Z"})]
    with freeze_time("2026-06-02T12:00:00Z"):
        assert client.get("/v1/players/me", headers=auth(away["token"])).json["vacation_days_left"] == 1
        # auto vacation is no vacation: the profile says nothing
        assert client.get(f"/v1/players/{away['id']}").json["on_vacation_until"] is None
    assert _deadline(client, gid, seat) == "2026-06-03T10:00:00.000000Z"
    # the day over: resumed, the deadline passes again at once, the second day drawn
    assert _tick(service, gid, "2026-06-03T10:00:00.000000Z") == {
        "reminders": [], "timeout": None, "resumed": [seat]}
    assert [t for t, _ in _pauses(client, gid, other["token"])] == [
        "clock-paused", "clock-resumed", "clock-paused"]
    with freeze_time("2026-06-03T12:00:00Z"):
        assert client.get("/v1/players/me", headers=auth(away["token"])).json["vacation_days_left"] == 0
    got = _tick(service, gid, "2026-06-04T10:00:00.000000Z")
    assert got["resumed"] == [seat] and got["timeout"] == seat  # the allowance spent
    lines = [line["text"] for line in client.get(f"/v1/games/{gid}/log").json["lines"]]
    name = ["Ann", "Bob"][seat]
    assert f"{name} draws a day of vacation: their clock stops until Wednesday 3 June 2026, 10:00 UTC" in lines
    assert f"{name}'s clock runs again" in lines
    audited = _audit(client, gid, other["token"])
    assert audited["valid"], audited


def test_auto_vacation_off_or_a_reminders_clock_draws_nothing(client, service):
    with freeze_time("2026-06-01T10:00:00Z"):
        gid, seat, away, _ = _game(client)
        client.patch("/v1/players/me", json={"auto_vacation": False}, headers=auth(away["token"]))
        remind_gid, remind_seat, remind_away, _ = _game(client, {"move_seconds": 86400})
    assert _tick(service, gid, "2026-06-02T10:00:00.000000Z")["timeout"] == seat
    assert _tick(service, remind_gid, "2026-06-02T10:00:00.000000Z")["timeout"] == remind_seat
    with freeze_time("2026-06-02T12:00:00Z"):
        for who in (away, remind_away):
            assert client.get("/v1/players/me", headers=auth(who["token"])).json["vacation_days_left"] == 21


def test_a_game_started_during_a_vacation_is_paused_at_once_and_a_cancel_resumes(client, service):
    with freeze_time("2026-06-01T10:00:00Z"):
        ann = register(client, name="Ann")
        assert client.post("/v1/players/me/vacation", json={"from": "2026-06-01", "to": "2026-06-05"},
                           headers=auth(ann["token"])).status_code == 200
        bob = register(client, name="Bob")
        gid = new_game(client, [{"player": ann["id"]}, {"player": bob["id"]}],
                       options={"clock": DAY, "seed": 3})["id"]
        assert _pauses(client, gid, bob["token"]) == [("clock-paused", {
            "seat": 0, "reason": "vacation", "from": "2026-06-01T10:00:00.000000Z",
            "until": "2026-06-06T00:00:00.000000Z"})]
    with freeze_time("2026-06-02T08:00:00Z"):
        r = client.delete("/v1/players/me/vacation", headers=auth(ann["token"]))
        assert r.status_code == 200, r.json
        # the 1st and the 2nd begun, so taken; the 3rd to the 5th given back
        assert r.json == {"vacation_days_left": 19, "vacations": []}
        assert _pauses(client, gid, bob["token"])[-1] == ("clock-resumed", {"seat": 0, "reason": "vacation"})
        assert client.get(f"/v1/players/{ann['id']}").json["on_vacation_until"] is None
        r = client.post(f"/v1/games/{gid}/moves", json={"move": {"type": "resign"}}, headers=auth(bob["token"]))
        assert r.status_code == 201, r.json
    audited = _audit(client, gid, bob["token"])
    assert audited["valid"], audited


def test_the_audit_catches_a_pause_edited_so_a_timeout_comes_early(client, service):
    with freeze_time("2026-06-01T10:00:00Z"):
        gid, seat, away, other = _game(client)
        client.patch("/v1/players/me", json={"auto_vacation": False}, headers=auth(away["token"]))
        client.post("/v1/players/me/vacation", json={"from": "2026-06-02", "to": "2026-06-02"},
                    headers=auth(away["token"]))
    with freeze_time("2026-06-02T00:00:00Z"):
        service.player_settings.vacations.round()
    _tick(service, gid, "2026-06-03T00:00:00.000000Z")  # resumed
    assert _tick(service, gid, "2026-06-03T10:00:00.000000Z")["timeout"] == seat
    lines = canonical_lines(client.get(f"/v1/games/{gid}/export", headers=auth(other["token"])).data)
    assert client.post("/v1/audit", data=reseal(lines), content_type="application/x-ndjson").json["valid"]
    paused = next(line for line in lines if line["type"] == "clock-paused")
    timed_out = next(line for line in lines if line["type"] == "seat-timed-out")
    # the pause stretched back to the seat's start: the timeout logged is then 14 hours early
    paused["payload"]["from"] = "2026-06-01T10:00:00.000000Z"
    report = client.post("/v1/audit", data=reseal(lines), content_type="application/x-ndjson").json
    assert not report["valid"] and report["first_error"]["seq"] == timed_out["seq"], report
    assert report["first_error"]["code"] == "bad-timeout", report
    # a vacation's end that is no day's end, an auto vacation not at the deadline, a
    # pause written before it starts: no pause the referee writes
    for edit in ({"until": "2026-06-03T07:00:00.000000Z"}, {"reason": "auto-vacation"},
                 {"from": "2026-06-02T00:00:00.000001Z"}):
        forged = [{**line, "payload": {**line["payload"], **edit}} if line is paused else line for line in lines]
        forged_pause = next(line for line in forged if line["type"] == "clock-paused")
        forged_pause["payload"].setdefault("from", "2026-06-02T00:00:00.000000Z")
        if "from" not in edit:
            forged_pause["payload"]["from"] = "2026-06-02T00:00:00.000000Z"
        report = client.post("/v1/audit", data=reseal(forged), content_type="application/x-ndjson").json
        assert not report["valid"] and report["first_error"] == {**report["first_error"], "seq": paused["seq"],
                                                                  "code": "bad-pause"}, (edit, report)


def test_the_worked_example_of_the_docs_a_vacation_over_a_weekend_off(client, service):
    """docs/clock.md, "Vacations": Ann's weekends off in Berlin, a day a move, to act
    from Thursday 10:00 UTC, away from Friday to Monday: her deadline is Tuesday 10:00."""
    ann, bob = register(client, name="Ann"), register(client, name="Bob")
    client.patch("/v1/players/me", json={"timezone": "Europe/Berlin", "weekends_off": True, "auto_vacation": False},
                 headers=auth(ann["token"]))
    with freeze_time("2026-06-04T10:00:00Z"):
        gid = new_game(client, [{"player": ann["id"]}, {"player": bob["id"]}], options={"clock": DAY, "seed": 3})["id"]
        if client.get(f"/v1/games/{gid}").json["to_act"] != [0]:  # Bob first: he moves at once
            move = client.get(f"/v1/games/{gid}/legal", headers=auth(bob["token"])).json["moves"][0]
            assert client.post(f"/v1/games/{gid}/moves", json={"move": move},
                               headers=auth(bob["token"])).status_code == 201
        assert _book(client, ann, "2026-06-05", "2026-06-08").status_code == 200
    with freeze_time("2026-06-05T00:00:00Z"):
        assert service.player_settings.vacations.round() == 1
        assert _deadline(client, gid, 0) == "2026-06-09T10:00:00.000000Z"


def test_a_vacation_under_way_is_shortened_and_its_pauses_end_sooner(client, service):
    with freeze_time("2026-06-01T10:00:00Z"):
        gid, seat, away, other = _game(client)
        for who in (away, other):
            client.patch("/v1/players/me", json={"auto_vacation": False}, headers=auth(who["token"]))
        assert _book(client, away, "2026-06-01", "2026-06-05").json["vacation_days_left"] == 16
        assert _book(client, away, "2026-07-01", "2026-07-10").json["vacation_days_left"] == 6
    with freeze_time("2026-06-02T08:00:00Z"):
        r = client.delete("/v1/players/me/vacation?to=2026-06-03", headers=auth(away["token"]))
        assert r.status_code == 200, r.json
        assert r.json["vacation_days_left"] == 8 and r.json["vacations"][0] == {"from": "2026-06-01", "to": "2026-06-03"}
        assert _pauses(client, gid, other["token"])[-1] == ("clock-paused", {
            "seat": seat, "reason": "vacation", "from": "2026-06-01T10:00:00.000000Z",
            "until": "2026-06-04T00:00:00.000000Z"})
        assert client.get(f"/v1/players/{away['id']}").json["on_vacation_until"] == "2026-06-03"
        # the one to come is shortened too, its pause not yet written
        assert client.delete("/v1/players/me/vacation?to=2026-07-02",
                             headers=auth(away["token"])).json["vacation_days_left"] == 16
        for to, rule in (("2026-06-01", "vacation-in-the-past"), ("2026-06-20", "vacation-not-shortened"),
                         ("2026-07-02", "vacation-not-shortened")):
            r = client.delete(f"/v1/players/me/vacation?to={to}", headers=auth(away["token"]))
            assert r.status_code == 409 and r.json["rule"] == rule, (to, r.json)
        assert client.delete("/v1/players/me/vacation?to=June", headers=auth(away["token"])).json["field"] == "to"
    assert _tick(service, gid, "2026-06-04T00:00:00.000000Z")["resumed"] == [seat]
    assert _deadline(client, gid, seat) == "2026-06-05T00:00:00.000000Z"  # a whole day from the resume
    assert _tick(service, gid, "2026-06-05T00:00:00.000000Z")["timeout"] == seat
    audited = _audit(client, gid, other["token"])
    assert audited["valid"], audited


def test_a_deadline_that_passed_before_the_vacation_began_times_out_first(client, service):
    """The keeper down from before a deadline until after a vacation began: the
    vacation cannot save a deadline that passed before it, so the timeout comes
    first (the vacation's look waits for it), and the log audits."""
    vacations = service.player_settings.vacations
    with freeze_time("2026-06-01T10:00:00Z"):
        gid, seat, away, other = _game(client, {"move_seconds": 86400})  # remind: the game goes on
        client.patch("/v1/players/me", json={"auto_vacation": False}, headers=auth(away["token"]))
        assert _book(client, away, "2026-06-03", "2026-06-04").status_code == 200
    with freeze_time("2026-06-03T01:00:00Z"):
        assert vacations.round() == 1
        assert _pauses(client, gid, other["token"]) == []  # the deadline of the 2nd first
        assert vacations.store.due("2026-06-03T01:00:00.000000Z") == [away["id"]]
    assert _tick(service, gid, "2026-06-03T01:00:00.000000Z")["timeout"] == seat
    with freeze_time("2026-06-03T01:00:01Z"):
        assert vacations.round() == 1
        assert vacations.store.due("2026-06-03T01:00:01.000000Z") == []
    assert _pauses(client, gid, other["token"]) == [("clock-paused", {
        "seat": seat, "reason": "vacation", "from": "2026-06-03T00:00:00.000000Z",
        "until": "2026-06-05T00:00:00.000000Z"})]
    with freeze_time("2026-06-03T02:00:00Z"):
        assert client.post(f"/v1/games/{gid}/moves", json={"move": {"type": "resign"}},
                           headers=auth(other["token"])).status_code == 201
    audited = _audit(client, gid, other["token"])
    assert audited["valid"], audited
