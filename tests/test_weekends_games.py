"""Weekends off in games: a player's zone and weekends go into their games' logs
(``seat-calendar``), and each deadline in the log equals the one the clock's rules
give (worked by hand, and by hypothesis across zones and daylight saving changes
against a minute-by-minute count); the audit re-derives them."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest
from freezegun import freeze_time
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee import timeouts
from tests.playertools import auth, new_game, register
from tests.test_weekends import ZONES, brute_deadline

DAY = {"move_seconds": 86400, "on_timeout": "forfeit"}


def _calendar_events(client, gid, token) -> list[dict]:
    return [e["payload"] for e in client.get(f"/v1/games/{gid}/events", headers=auth(token)).json["events"]
            if e["type"] == "seat-calendar"]


def _deadline_of(client, gid: str, seat: int) -> str | None:
    return next((d["deadline"] for d in client.get(f"/v1/games/{gid}").json["deadlines"] if d["seat"] == seat), None)


def test_a_friday_evening_deadline_waits_for_monday_in_berlin(client):
    ann, bob = register(client, name="Ann"), register(client, name="Bob")
    # (auto vacation off: the deadline that passes is the weekends' to show, not a day drawn)
    r = client.patch("/v1/players/me", json={"timezone": "Europe/Berlin", "weekends_off": True,
                                             "auto_vacation": False}, headers=auth(ann["token"]))
    assert r.status_code == 200
    # Friday 27 March 2026, 20:00 in Berlin; the clocks go forward on Sunday the 29th
    with freeze_time("2026-03-27T19:00:00Z") as frozen:
        made = new_game(client, [{"player": ann["id"]}, {"player": bob["id"]}], options={"clock": DAY, "seed": 3})
        gid = made["id"]
        assert _calendar_events(client, gid, ann["token"]) == [
            {"seat": 0, "timezone": "Europe/Berlin", "weekends_off": True}]
        s = client.get(f"/v1/games/{gid}").json
        if s["to_act"] != [0]:  # Bob first: he moves at once, and Ann's day starts then
            bob_move = client.get(f"/v1/games/{gid}/legal", headers=auth(bob["token"])).json["moves"][0]
            assert client.post(f"/v1/games/{gid}/moves", json={"move": bob_move},
                               headers=auth(bob["token"])).status_code == 201
        # four hours of Friday, then from Monday 00:00 CEST (Sunday 22:00 UTC) twenty more
        assert _deadline_of(client, gid, 0) == "2026-03-30T18:00:00.000000Z"
        service = client.application.extensions["referee"]
        frozen.move_to("2026-03-30T17:59:59Z")
        assert timeouts.tick(service, gid)["timeout"] is None
        frozen.move_to("2026-03-30T18:00:00Z")
        assert timeouts.tick(service, gid)["timeout"] == 0
    bundle = client.get(f"/v1/games/{gid}/export", headers=auth(ann["token"]))
    assert bundle.status_code == 200, bundle.json
    audited = client.post("/v1/audit", data=bundle.data, content_type="application/x-ndjson").json
    assert audited["valid"], audited


def test_a_change_of_weekends_goes_into_the_running_games(client):
    ann, bob = register(client, name="Ann"), register(client, name="Bob")
    with freeze_time("2026-06-05T08:00:00Z"):  # a Friday
        made = new_game(client, [{"player": ann["id"]}, {"player": bob["id"]}], options={"clock": DAY, "seed": 3})
        gid = made["id"]
        s = client.get(f"/v1/games/{gid}").json
        seat = s["to_act"][0]
        who = [ann, bob][seat]
        assert _calendar_events(client, gid, who["token"]) == []  # nobody's weekends are off
        assert _deadline_of(client, gid, seat) == "2026-06-06T08:00:00.000000Z"
    with freeze_time("2026-06-05T10:00:00Z"):  # two hours used, then the weekends go off
        r = client.patch("/v1/players/me", json={"timezone": "America/New_York", "weekends_off": True},
                         headers=auth(who["token"]))
        assert r.status_code == 200
        assert _calendar_events(client, gid, who["token"]) == [
            {"seat": seat, "timezone": "America/New_York", "weekends_off": True}]
        # 22 hours left: Friday 06:00 to 24:00 New York (04:00 UTC Saturday) is 18, then
        # 4 from Monday 00:00 EDT (04:00 UTC)
        assert _deadline_of(client, gid, seat) == "2026-06-08T08:00:00.000000Z"
        # the same setting again writes nothing more
        client.patch("/v1/players/me", json={"weekends_off": True}, headers=auth(who["token"]))
        assert len(_calendar_events(client, gid, who["token"])) == 1
    with freeze_time("2026-06-05T11:00:00Z"):  # and back on: every day counts again, from now
        client.patch("/v1/players/me", json={"weekends_off": False}, headers=auth(who["token"]))
        assert _deadline_of(client, gid, seat) == "2026-06-06T08:00:00.000000Z"
    # the game runs (no token exports a game of players before its end): the operator's copy
    whole = client.application.extensions["referee"].whole_log(gid)
    audited = client.post("/v1/audit", data=whole, content_type="application/x-ndjson").json
    assert audited["valid"], audited


def test_a_bad_seat_calendar_is_refused(service):
    from referee.table import Table

    created = Table.created_event("king-of-danger", "g1", ["a", "b"], {"clock": DAY}, "seed", True,
                                  at="2026-01-01T00:00:00.000000Z")
    table = Table.from_created(created)
    for payload, field in [({"seat": 0, "timezone": "Mars/Base", "weekends_off": True}, "timezone"),
                           ({"seat": 2, "timezone": "UTC", "weekends_off": True}, "seat"),
                           ({"seat": 0, "timezone": "UTC", "weekends_off": "yes"}, "weekends_off"),
                           ({"seat": 0, "timezone": "UTC"}, "body")]:
        with pytest.raises(Exception) as err:
            table.propose_calendar(payload)
        assert err.value.extra["field"] == field


PLAYERS: dict = {}
minutes = st.integers(min_value=60, max_value=3 * 24 * 60)
moments = st.datetimes(min_value=datetime(2020, 1, 1), max_value=datetime(2032, 1, 1)).map(
    lambda d: d.replace(second=0, microsecond=0, tzinfo=UTC))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(ZONES), start=moments, move_minutes=minutes, bank=st.booleans())
def test_the_logs_deadlines_are_the_clock_rules(client, name, start, move_minutes, bank):
    if id(client) not in PLAYERS:  # registered once (registration is rate-limited per client)
        PLAYERS.clear()
        PLAYERS[id(client)] = register(client, name="Ann"), register(client, name="Bob")
    ann, bob = PLAYERS[id(client)]
    client.patch("/v1/players/me", json={"timezone": name, "weekends_off": True}, headers=auth(ann["token"]))
    clock = ({"kind": "bank", "initial_seconds": move_minutes * 60} if bank else {"move_seconds": move_minutes * 60})
    with freeze_time(start):
        made = new_game(client, [{"player": ann["id"]}, {"player": bob["id"]}], options={"clock": clock, "seed": 5})
        gid = made["id"]
        s = client.get(f"/v1/games/{gid}").json
        if s["to_act"] != [0]:
            move = client.get(f"/v1/games/{gid}/legal", headers=auth(bob["token"])).json["moves"][0]
            client.post(f"/v1/games/{gid}/moves", json={"move": move}, headers=auth(bob["token"]))
        want = brute_deadline(start, move_minutes, ZoneInfo(name))
        assert _deadline_of(client, gid, 0) == want.strftime("%Y-%m-%dT%H:%M:%S.000000Z")


def test_a_seats_calendar_sends_no_notice_of_its_own(client, service):
    from referee.mail import outbox

    ann = register(client, name="Ann", webhook="https://hooks.example/ann")
    bob = register(client, name="Bob", webhook="https://hooks.example/bob")
    made = new_game(client, [{"player": ann["id"]}, {"player": bob["id"]}], options={"clock": DAY, "seed": 3})
    before = [n["id"] for n in outbox.outbox_of(service).of_game(made["id"])]
    for who in (ann, bob):
        r = client.patch("/v1/players/me", json={"timezone": "Asia/Tokyo", "weekends_off": True},
                         headers=auth(who["token"]))
        assert r.status_code == 200
    assert len(_calendar_events(client, made["id"], ann["token"])) == 2
    assert [n["id"] for n in outbox.outbox_of(service).of_game(made["id"])] == before
