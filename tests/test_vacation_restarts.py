"""A vacation's start and end survive ``kill -9``, on both stores: a process of
the referee (its keeper's look at the starts, a game's tick) is killed with -9 at
the worst moments (between two games' pauses, just before and just after a
resume's append, between a day drawn and its pause); what it left is still due in
the store's indexes, and the next look writes each event once and draws each day
once. The process runs at an injected moment (freezegun in the child), so no test
waits for a real midnight."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest
from freezegun import freeze_time

from referee import timeouts
from tests.playertools import auth, new_game, register

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DAY = {"move_seconds": 86400, "on_timeout": "forfeit"}

# The child: the referee as configured, at a frozen moment, doing one thing; at the
# point named it says so and waits there to be killed.
CHILD = r"""
import sys, time
from freezegun import freeze_time
from referee.config import Config
from referee.system import build
from referee.calendar import pausing
from referee import timeouts

store, now, what, stop, game = sys.argv[1:6]


def halt():
    print("here", flush=True)
    time.sleep(600)


with freeze_time(now):
    service = build(Config(store, "inline"))
    if stop == "after-first-game":
        real = pausing.Vacations.sync_seat
        def sync_seat(self, *args, **kw):
            wrote = real(self, *args, **kw)
            if wrote:
                halt()
            return wrote
        pausing.Vacations.sync_seat = sync_seat
    elif stop in ("before-append", "after-append"):
        real_append = service.store.append
        def append(*args, **kw):
            if stop == "before-append":
                halt()
            got = real_append(*args, **kw)
            halt()
            return got
        service.store.append = append
    if what == "round":
        service.player_settings.vacations.round()
    else:
        timeouts.tick(service, game)
    print("done", flush=True)
"""


def killed_at(store_url: str, now: str, what: str, stop: str, game: str = "-") -> None:
    """Run the child until it reaches ``stop``, then kill it with -9."""
    path = os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")]))
    proc = subprocess.Popen([sys.executable, "-c", CHILD, store_url, now, what, stop, game],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            start_new_session=True, env={**os.environ, "PYTHONPATH": path})
    try:
        line = proc.stdout.readline()
        assert line.strip() == "here", f"the child ended before {stop}: {line!r}"
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(30)


def _events(client, gid, token, *types):
    return [(e["type"], e["payload"]) for e in client.get(f"/v1/games/{gid}/events", headers=auth(token)).json["events"]
            if e["type"] in types]


@pytest.fixture
def two_games(client, store_url):
    """Ann in two games with Bob, her vacation booked from 2 to 3 June."""
    with freeze_time("2026-06-01T10:00:00Z"):
        ann, bob = register(client, name="Ann"), register(client, name="Bob")
        for who in (ann, bob):  # (only the booking's pauses in these logs)
            client.patch("/v1/players/me", json={"auto_vacation": False}, headers=auth(who["token"]))
        games = [new_game(client, [{"player": ann["id"]}, {"player": bob["id"]}], options={"clock": DAY, "seed": s})["id"]
                 for s in (3, 4)]
        assert client.post("/v1/players/me/vacation", json={"from": "2026-06-02", "to": "2026-06-03"},
                           headers=auth(ann["token"])).status_code == 200
    return ann, bob, games


def test_a_keeper_killed_between_two_games_pauses_leaves_the_start_due(client, service, store_url, two_games):
    ann, bob, games = two_games
    killed_at(store_url, "2026-06-02 00:00:05", "round", "after-first-game")
    vacations = service.player_settings.vacations
    assert vacations.store.due("2026-06-02T00:00:05.000000Z") == [ann["id"]]  # still due
    paused = [len(_events(client, g, bob["token"], "clock-paused")) for g in games]
    assert sorted(paused) == [0, 1]
    with freeze_time("2026-06-02T00:00:06Z"):
        assert vacations.round() == 1
        assert vacations.round() == 0
    for g in games:  # each game paused once, from the vacation's start
        assert _events(client, g, bob["token"], "clock-paused") == [("clock-paused", {
            "seat": 0, "reason": "vacation", "from": "2026-06-02T00:00:00.000000Z",
            "until": "2026-06-04T00:00:00.000000Z"})]


@pytest.mark.parametrize("stop", ["before-append", "after-append"])
def test_a_tick_killed_at_a_vacations_end_resumes_once(client, service, store_url, two_games, stop):
    ann, bob, games = two_games
    with freeze_time("2026-06-02T00:00:00Z"):
        service.player_settings.vacations.round()
    gid = games[0]
    killed_at(store_url, "2026-06-04 00:00:01", "tick", stop, gid)
    resumed = _events(client, gid, bob["token"], "clock-resumed")
    assert len(resumed) == (0 if stop == "before-append" else 1)
    if stop == "before-append":  # the resume is still the game's due timer
        assert gid in service.store.due_timers("2026-06-04T00:00:01.000000Z")
    with freeze_time("2026-06-04T00:00:02Z"):
        timeouts.tick(service, gid, "2026-06-04T00:00:02.000000Z")
        timeouts.tick(service, gid, "2026-06-04T00:00:03.000000Z")
    assert _events(client, gid, bob["token"], "clock-resumed") == [("clock-resumed", {"seat": 0, "reason": "vacation"})]
    assert service.store.timer(gid) != "2026-06-04T00:00:00.000000Z"  # the resume's timer is done


def test_a_tick_killed_between_a_day_drawn_and_its_pause_draws_it_once(client, service, store_url):
    with freeze_time("2026-06-01T10:00:00Z"):
        ann, bob = register(client, name="Ann"), register(client, name="Bob")
        gid = new_game(client, [{"player": ann["id"]}, {"player": bob["id"]}], options={"clock": DAY, "seed": 3})["id"]
        seat = client.get(f"/v1/games/{gid}").json["to_act"][0]
        who = [ann, bob][seat]
    killed_at(store_url, "2026-06-02 10:00:01", "tick", "before-append", gid)
    with freeze_time("2026-06-02T10:00:02Z"):
        assert client.get("/v1/players/me", headers=auth(who["token"])).json["vacation_days_left"] == 20
        assert timeouts.tick(service, gid, "2026-06-02T10:00:02.000000Z")["timeout"] is None
        assert client.get("/v1/players/me", headers=auth(who["token"])).json["vacation_days_left"] == 20
    assert [p["reason"] for _, p in _events(client, gid, who["token"], "clock-paused")] == ["auto-vacation"]
