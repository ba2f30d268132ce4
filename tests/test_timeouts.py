"""Reminders and timeouts firing on their own: the deadline index, the tick, the
three ``on_timeout`` rules and their audit. Times are frozen (freezegun); the
real-process restarts are in tests/test_clock_restarts.py."""

from __future__ import annotations

import datetime as dt

import pytest
from freezegun import freeze_time

from referee import timeouts
from referee.games.base import ADMIN
from referee.service import Caller
from tests.helpers import Game

T0 = "2026-03-01T10:00:00Z"


def at(seconds: float) -> str:
    moment = dt.datetime(2026, 3, 1, 10, 0, 0, tzinfo=dt.UTC) + dt.timedelta(seconds=seconds)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def cd_game(client, on_timeout="remind", remind=600, players=None):
    clock = {"move_seconds": 3600, "remind_seconds": remind, "on_timeout": on_timeout}
    return Game(client, "castle-danger", players or ["Ann", "Bob"], {"clock": clock})


def events(game: Game) -> list[dict]:
    return game.get("/events", "admin", limit=1000).json["events"]


def audit(client, game: Game) -> dict:
    return client.post("/v1/audit", data=game.export(), content_type="application/x-ndjson").json


def test_the_index_holds_each_games_next_reminder_then_deadline(client, service):
    with freeze_time(T0):
        g = cd_game(client)
        seat = g.summary()["to_act"][0]
    assert service.store.timer(g.id) == at(3000)  # the reminder, 10 minutes before the hour
    assert service.store.due_timers(at(2999)) == []
    assert service.store.due_timers(at(3000)) == [g.id]
    with freeze_time(at(3000)):
        fired = timeouts.tick(service, g.id)
    assert fired == {"reminders": [], "timeout": None}  # no contact to remind: nothing queued
    assert service.store.timer(g.id) == at(3600)  # on to the deadline
    assert service.store.due_timers(at(3000)) == []
    with freeze_time(at(1000)):  # the seat moves: its time starts again
        moves = [m for m in g.legal(seat) if m["type"] not in ("resign",)]
        assert g.post(seat, {"move": moves[0]}).status_code == 201
    assert service.store.timer(g.id) == at(1000 + 3000)


def test_games_without_a_clock_are_never_in_the_index(client, service):
    g = Game(client, "castle-danger", 2)
    assert service.store.timer(g.id) is None
    assert service.store.due_timers("9999-01-01T00:00:00.000000Z") == []


def test_a_reminder_is_queued_once_and_names_the_time_left(client, service):
    from referee.mail import outbox

    with freeze_time(T0):
        g = cd_game(client, players=[{"name": "Ann", "email": "ann@example.org"},
                                     {"name": "Bob", "email": "bob@example.org"}])
        seat = g.summary()["to_act"][0]
    for _ in range(3):  # the keeper may tick a game any number of times
        with freeze_time(at(3001)):
            timeouts.tick(service, g.id)
    reminders = [n for n in outbox.outbox_of(service).of_game(g.id) if n["reason"] == "reminder"]
    assert len(reminders) == 1 and reminders[0]["seat"] == seat
    assert reminders[0]["body"]["note"] == "9 minutes 59 seconds left to move."
    assert reminders[0]["body"]["deadline"] == at(3600)


def test_on_timeout_remind_logs_the_timeout_once_and_the_seat_stays_to_act(client, service):
    with freeze_time(T0):
        g = cd_game(client, "remind")
        seat = g.summary()["to_act"][0]
    with freeze_time(at(3600)):
        assert timeouts.tick(service, g.id)["timeout"] == seat
        assert timeouts.tick(service, g.id)["timeout"] is None  # once per turn
        s = g.summary()
    last = events(g)[-1]
    assert (last["type"], last["actor"]) == ("seat-timed-out", "referee")
    assert last["payload"] == {"seat": seat, "deadline": at(3600), "on_timeout": "remind"}
    assert s["to_act"] == [seat] and s["status"] == "active"
    assert s["deadlines"] == [{"seat": seat, "deadline": at(3600), "overdue": True}]
    assert service.store.timer(g.id) is None  # nothing more to fire until someone moves
    assert audit(client, g)["valid"]
    with freeze_time(at(4000)):  # a late move is still a move; its time starts again
        move = [m for m in g.legal(seat) if m["type"] != "resign"][0]
        assert g.post(seat, {"move": move}).status_code == 201
        assert all(not d["overdue"] for d in g.summary()["deadlines"])


def test_on_timeout_autoplay_makes_the_basic_bots_move_for_the_seat(client, service):
    from referee import bots
    from referee.rng import Rng

    with freeze_time(T0):
        g = cd_game(client, "autoplay", remind=0)
        seat = g.summary()["to_act"][0]
        version = g.summary()["version"]
    rec = service.record(g.id)
    with service._lock(g.id):
        table = service.load(g.id, rec)
        # what the basic bot would do, from the seat's view and the game's seed
        fork = table._forked()
    with freeze_time(at(3600)):
        timeouts.tick(service, g.id)
    log = events(g)
    assert log[version]["type"] == "seat-timed-out"
    assert log[version]["payload"]["on_timeout"] == "autoplay"
    made = log[version + 1]
    assert made["actor"] == seat  # the seat's own move, made by the referee
    fork.apply(service.store.events(g.id, after=version, limit=1)[0])
    assert made["payload"]["move"] == bots.choose("basic", fork, seat, Rng(rec.seed, version + 2))
    report = audit(client, g)
    assert report["valid"] and report["seed"] == "unrevealed", report
    # once the seed is out, the audit makes the bot's choice again itself
    assert g.post(0, {"move": {"type": "resign"}}).status_code == 201
    report = audit(client, g)
    assert report["valid"] and report["seed"] == "verified", report


def test_on_timeout_forfeit_ends_the_game_with_that_seat_losing(client, service):
    with freeze_time(T0):
        g = cd_game(client, "forfeit")
        seat = g.summary()["to_act"][0]
    with freeze_time(at(3599)):
        assert timeouts.tick(service, g.id)["timeout"] is None  # not a moment early
    with freeze_time(at(3600)):
        assert timeouts.tick(service, g.id)["timeout"] == seat
    s = g.summary()
    assert s["status"] == "finished"
    assert s["result"]["winners"] == [1 - seat]
    assert s["result"]["reason"] == f"{['Ann', 'Bob'][seat]} ran out of time"  # in names for people
    logged = [e for e in events(g) if e["type"] == "forfeited"][0]["payload"]["result"]["reason"]
    assert logged == f"seat {seat} ran out of time"  # the log keeps seats by number
    kinds = [(e["type"], e["actor"]) for e in events(g)[-3:]]
    assert kinds == [("seat-timed-out", "referee"), ("forfeited", "referee"), ("seed-revealed", "referee")]
    assert service.store.timer(g.id) is None
    report = audit(client, g)
    assert report["valid"] and report["seed"] == "verified", report


def test_a_move_that_arrives_first_wins_over_the_timeout(client, service):
    with freeze_time(T0):
        g = cd_game(client, "forfeit")
        seat = g.summary()["to_act"][0]
    with freeze_time(at(3700)):  # past the deadline, but the keeper has not ticked yet
        move = [m for m in g.legal(seat) if m["type"] != "resign"][0]
        assert g.post(seat, {"move": move}).status_code == 201
        assert timeouts.tick(service, g.id)["timeout"] is None
    assert g.summary()["status"] == "active"
    assert "seat-timed-out" not in [e["type"] for e in events(g)]


def test_a_paused_clock_fires_nothing_and_a_resumed_one_starts_afresh(client, service):
    with freeze_time(T0):
        g = cd_game(client, "forfeit")
    with freeze_time(at(100)):
        r = client.post(f"/v1/games/{g.id}/clock", json={"paused": True}, headers=g.auth("admin"))
        assert r.status_code == 201
    assert service.store.timer(g.id) is None
    with freeze_time(at(9000)):
        assert timeouts.tick(service, g.id)["timeout"] is None
        client.post(f"/v1/games/{g.id}/clock", json={"paused": False}, headers=g.auth("admin"))
    assert service.store.timer(g.id) == at(9000 + 3000)


def test_the_keeper_finds_due_games_through_the_index_and_fires_them(client, service):
    with freeze_time(T0):
        a, b = cd_game(client, "forfeit"), cd_game(client, "forfeit")
    with freeze_time(at(1800)):
        b_seat = b.summary()["to_act"][0]
        assert b.post(b_seat, {"move": [m for m in b.legal(b_seat) if m["type"] != "resign"][0]}).status_code == 201
    keeper = timeouts.Keeper(service)
    with freeze_time(at(3600)):
        # a's deadline has passed; on Redis b's entry from before its move is found too
        # (the index runs early, never late: referee/store/redis_timers.py), and its tick
        # fires nothing and moves it on
        assert keeper.round() == (2 if hasattr(service.store, "timers") else 1)
        assert keeper.round() == 0
    assert a.summary()["status"] == "finished" and b.summary()["status"] == "active"
    assert service.store.timer(b.id) == at(1800 + 3000)


@pytest.mark.parametrize("forge", ["early", "wrong-deadline", "not-to-act"])
def test_the_audit_refuses_a_forged_timeout(client, service, forge):
    from tests.helpers import canonical_lines
    from tests.test_audit import reseal

    with freeze_time(T0):
        g = cd_game(client, "remind")
    with freeze_time(at(3600)):
        timeouts.tick(service, g.id)
    lines = canonical_lines(g.export())
    last = lines[-1]
    assert last["type"] == "seat-timed-out"
    if forge == "early":
        last["at"] = at(3599)
    elif forge == "wrong-deadline":
        last["payload"]["deadline"] = at(7200)
    else:
        last["payload"]["seat"] = 1 - last["payload"]["seat"]
    report = client.post("/v1/audit", data=reseal(lines), content_type="application/x-ndjson").json
    assert not report["valid"] and report["first_error"]["seq"] == last["seq"], report
    assert report["first_error"]["code"] == ("diverges" if forge == "wrong-deadline" else "bad-timeout")


def test_the_audit_refuses_an_autoplayed_move_the_bot_would_not_make(client, service):
    from tests.helpers import canonical_lines
    from tests.test_audit import reseal

    with freeze_time(T0):
        g = cd_game(client, "autoplay", remind=0)
    with freeze_time(at(3600)):
        timeouts.tick(service, g.id)
    n = len(events(g))
    seat = events(g)[-1]["actor"]
    assert g.post(1 - seat, {"move": {"type": "resign"}}).status_code == 201
    lines = canonical_lines(g.export())
    made = lines[n - 1]
    assert made["actor"] == seat
    rec = service.record(g.id)
    # Another legal move at that point, with every later event resealed: only the
    # choice is wrong, and the audit (seed revealed) makes the bot's choice itself.
    from referee.events import Event
    from referee.table import Table

    table = Table.replay([Event.from_dict(e) for e in lines[:n - 1]])
    others = [m for m in table.engine.legal(table.state, seat)
              if m["type"] not in ("resign",) and m != made["payload"]["move"]]
    other_drafts = table.engine.decide(table.state, seat, others[0])
    assert len(other_drafts) == 1  # an action of a Castle Danger turn: one event
    made["payload"] = other_drafts[0].payload
    report = client.post("/v1/audit", data=reseal(lines), content_type="application/x-ndjson").json
    assert not report["valid"], report
    assert report["first_error"]["seq"] == made["seq"], report
    assert report["first_error"]["code"] == "diverges" and "should be" in report["first_error"]["detail"]
    assert rec.seed  # the audit above had the seed: the report is about the choice


def test_an_admin_caller_cannot_force_an_early_timeout(client, service):
    with freeze_time(T0):
        g = cd_game(client, "forfeit")
        seat = g.summary()["to_act"][0]
        rec = service.record(g.id)
        from referee.table import NotDue

        with pytest.raises(NotDue):
            service.admin_event(g.id, Caller(ADMIN, record=rec), "time out a seat",
                                lambda table, when, key: table.propose_timeout(seat, when, salt_key=key))
    assert g.summary()["version"] == rec.version


def test_a_keeper_killed_between_the_games_timer_and_the_redis_index_fires_again_nothing_twice(redis_url,
                                                                                                  monkeypatch):
    """The deadline index may run early, never late (referee/store/redis_timers.py):
    a keeper killed after moving the game's own timer, before the index, leaves the
    old entry due, and the next keeper's tick moves it on."""
    from referee.api import create_app
    from referee.mail import outbox
    from referee.queue import InlineQueue
    from referee.store import open_store
    from referee.store.redis_timers import DeadlineIndex
    from referee.system import assemble

    service = assemble(open_store(redis_url), InlineQueue())
    client = create_app(service).test_client()
    with freeze_time(T0):
        g = cd_game(client, "forfeit", players=[{"name": "Ann", "email": "ann@example.org"},
                                               {"name": "Bob", "email": "bob@example.org"}])

    def killed(*args, **kwargs):
        raise SystemExit("killed")

    monkeypatch.setattr(DeadlineIndex, "put", killed)
    with freeze_time(at(3000)), pytest.raises(SystemExit):
        timeouts.tick(service, g.id)  # the reminder, then the game's timer moved to the deadline
    monkeypatch.undo()
    assert service.store.timer(g.id) == at(3600)
    restarted = assemble(open_store(redis_url), InlineQueue())
    assert restarted.store.repair_timers() == 0  # nothing to repair: the entry is early
    assert restarted.store.due_timers(at(3000)) == [g.id]
    with freeze_time(at(3001)):
        assert timeouts.Keeper(restarted).round() == 1
    assert restarted.store.due_timers(at(3001)) == [] and restarted.store.due_timers(at(3600)) == [g.id]
    reminders = [n for n in outbox.outbox_of(restarted).of_game(g.id) if n["reason"] == "reminder"]
    assert len(reminders) == 1  # fired once, though ticked twice


def test_an_older_writer_never_puts_back_a_timer_a_newer_one_moved(redis_url):
    from referee.store import open_store

    store = open_store(redis_url)
    store._index("g1", 5, at(100))
    store._index("g1", 4, at(50))  # a writer at version 4 finishing late
    assert store.due_timers(at(60)) == []
    assert store.due_timers(at(100)) == ["g1"]


def test_the_log_in_words_says_who_ran_out_of_time_by_name(client, service):
    with freeze_time(T0):
        g = cd_game(client, "forfeit")
        seat = g.summary()["to_act"][0]
        name = ["Ann", "Bob"][seat]
        client.post(f"/v1/games/{g.id}/clock", headers=g.auth("admin"),
                    json={"clock": {"move_seconds": 7200, "on_timeout": "forfeit"}})
    with freeze_time(at(7200)):
        timeouts.tick(service, g.id)
    lines = [line["text"] for line in client.get(f"/v1/games/{g.id}/log").json["lines"]]
    assert "the clock is set to 2 hours a move, a seat out of time loses" in lines
    assert f"{name} ran out of time (deadline Sunday 1 March 2026, 12:00 UTC): they lose the game" in lines
    assert f"{name} loses on time" in lines
    assert "the referee reveals the seed: every deal can now be checked" in lines


@pytest.mark.parametrize("game,players,options", [
    ("king-of-danger", 3, {}), ("castle-danger", 2, {"turn_limit": 6}),
    ("king-of-the-castle", 3, {}), ("kings-keys", 3, {})])
@pytest.mark.parametrize("on_timeout", ["remind", "autoplay"])
@pytest.mark.parametrize("store_url", ["sqlite"], indirect=True)  # the rules, not the store, are tested
def test_random_games_with_absent_players_audit_valid_at_every_timeout(client, service, game, players,
                                                                       options, on_timeout):
    """Random play where seats sometimes stay away past their deadline and the
    keeper ticks at random moments: every timeout the audit sees is one the
    log owed, and the finished game audits valid with its seed."""
    import random

    rnd = random.Random(f"{game}-{on_timeout}")
    clock = {"move_seconds": 600, "remind_seconds": 60, "on_timeout": on_timeout}
    now = 0.0
    with freeze_time(at(now)) as frozen:
        g = Game(client, game, players, {**options, "clock": clock})
        timeouts_seen = 0
        for _ in range(250):
            s = g.summary()
            if s["status"] == "finished":
                break
            step = rnd.choice([5, 30, 300, 700])  # now and then past a deadline
            now += step
            frozen.tick(step)
            fired = timeouts.tick(service, g.id)
            timeouts_seen += fired["timeout"] is not None
            s = g.summary()
            if s["status"] != "active" or not s["to_act"]:
                continue
            seat = rnd.choice(s["to_act"])
            moves = [m for m in g.legal(seat) if m["type"] != "resign"]
            if moves and rnd.random() < 0.8:
                assert g.post(seat, {"move": rnd.choice(moves)}).status_code == 201
        while g.summary()["status"] != "finished":  # at three, seats leave until one is left in
            assert g.post(g.summary()["to_act"][0], {"move": {"type": "resign"}}).status_code == 201
    assert timeouts_seen > 0
    report = audit(client, g)
    assert report["valid"] and report["seed"] == "verified", report
