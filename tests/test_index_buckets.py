"""The shared indexes split by hash on Redis (the listing, the deadline index, the
notices due): games spread over the buckets, readers merge them in one order, the
layout from before the split is moved at start; the deadline index runs early,
never late, whatever a crash leaves, and the sender's start-up sweep reads only
the games after its mark. The cluster's own tests are in tests/test_cluster.py."""

from __future__ import annotations

import datetime as dt
import threading

import pytest

from referee.events import GENESIS, Draft, chain
from referee.store import GameRecord
from referee.store.buckets import BUCKETS, bucket


def at(i: int) -> str:
    moment = dt.datetime(2026, 1, 1, tzinfo=dt.UTC) + dt.timedelta(seconds=i)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def new_game(store, gid, created, status="active", timer=None):
    first = chain([Draft("game-created", {"id": gid})], "referee", 1, GENESIS, created)[0]
    store.create(GameRecord(gid, "toy", created, ["Ann", gid], {"h": 0}, "seed", status=status), first,
                 timer=timer)
    return first


def all_pages(store, status=None, limit=7):
    seen, after = [], None
    while True:
        rows, after = store.page(status, limit, after)
        seen += [r["id"] for r in rows]
        if after is None:
            return seen


def test_games_spread_over_the_buckets_and_are_read_as_one_order(redis_url):
    from referee.store.redis import RedisStore
    from referee.store.redis_listing import set_of
    from referee.store.redis_timers import keys as timer_keys

    store = RedisStore(redis_url)
    ids = [f"g{i:03d}" for i in range(120)]
    for i, gid in enumerate(ids):
        # created in one order, due in another: the merge must follow each index's own
        new_game(store, gid, at(i), timer=at(10_000 - 7 * i % 120))
    used = {bucket(gid) for gid in ids}
    assert len(used) == BUCKETS  # 120 random-ish ids fill all 16
    assert all(store.r.zcard(set_of(gid, None)) >= 1 and store.r.zscore(timer_keys(gid)[0], gid) is not None
               for gid in ids)
    assert not store.r.exists("{referee:list}:all", "{referee:timers}:at")  # the old, single keys
    newest_first = sorted(ids, key=lambda g: (at(ids.index(g)), g), reverse=True)
    assert all_pages(store) == newest_first
    assert all_pages(store, "active", limit=5) == newest_first
    store.append(ids[5], 1, chain([Draft("x", {})], "referee", 2, "h", at(500)), status="finished")
    assert all_pages(store, "active") == [g for g in newest_first if g != ids[5]]
    assert all_pages(store, "finished") == [ids[5]]
    due = sorted(ids, key=lambda g: (at(10_000 - 7 * ids.index(g) % 120), g))
    assert store.due_timers(at(20_000), limit=15) == due[:15]
    assert store.due_timers(at(10_000 - 110), limit=1000) == [g for g in due if at(10_000 - 7 * ids.index(g) % 120)
                                                             <= at(10_000 - 110)]


def test_a_page_is_whole_when_the_newest_games_crowd_one_bucket(redis_url):
    from referee.store.redis import RedisStore

    store = RedisStore(redis_url)
    crowded = [gid for gid in (f"c{i:04d}" for i in range(2000)) if bucket(gid) == 3][:60]
    spread = [f"s{i:03d}" for i in range(40)]
    for i, gid in enumerate(spread + crowded):  # the 60 newest all in bucket 3
        new_game(store, gid, at(i))
    newest_first = list(reversed(spread + crowded))
    for limit in (1, 7, 25, 59, 60, 61, 100, 150):
        assert all_pages(store, limit=limit) == newest_first, limit
    rows, after = store.page(None, 50, None)
    assert [r["id"] for r in rows] == newest_first[:50] and after == newest_first[49]


def to_old_layout(store, notices: list[tuple[str, float]]) -> None:
    """Rewrite a store's split indexes as the version before the split kept them:
    one listing, one deadline index, one set of notices due."""
    from referee.store.redis_timers import score

    r = store.r
    for key in r.scan_iter("{referee:list:*"):
        r.delete(key)
    for gid in [k.decode()[3:-6] for k in r.scan_iter("{g:*}:meta")]:
        created, status, version, timer = r.hmget(f"{{g:{gid}}}:meta", "created_at", "status", "version", "timer")
        member = f"{created.decode()}|{gid}"
        r.zadd("{referee:list}:all", {member: 0})
        r.zadd("{referee:list}:" + status.decode(), {member: 0})
        r.hset("{referee:list}:version", gid, version)
        if timer:
            r.zadd("{referee:timers}:at", {gid: score(timer.decode())})
            r.hset("{referee:timers}:version", gid, version)
    for key in r.scan_iter("{referee:timers:*"):
        r.delete(key)
    for key in r.scan_iter("{referee:notices-due:*"):
        r.delete(key)
    for member, when in notices:
        r.zadd("referee:notices-due", {member: when})


def test_the_old_layout_is_moved_once_by_two_processes_starting_together(redis_url):
    from referee.mail.outbox_store import RedisOutbox
    from referee.store.redis import RedisStore
    from referee.store.redis_layout import move_old_layout

    store = RedisStore(redis_url)
    box = RedisOutbox(store.r)
    ids = [f"old{i:02d}" for i in range(60)]
    for i, gid in enumerate(ids):
        new_game(store, gid, at(i), status="finished" if i % 3 == 0 else "active",
                 timer=None if i % 3 == 0 else at(1000 + i))
        box.put({"id": f"{gid}.0.1.start", "game": gid, "seat": 0, "version": 1, "reason": "start",
                 "body": {}, "created": 100.0 + i})
    listing, active, due = all_pages(store), all_pages(store, "active"), store.due_timers(at(5000), 1000)
    sending = [n["id"] for n in box.due(1000.0, 1000)]
    to_old_layout(store, [(f"{gid}|{gid}.0.1.start", 100.0 + i) for i, gid in enumerate(ids)])
    assert all_pages(store) == [] and store.due_timers(at(5000)) == []  # unread until moved

    ready = threading.Barrier(2)
    started = []

    def start():
        ready.wait()
        s = RedisStore(redis_url)  # each process moves what it finds, at once
        started.append((s, RedisOutbox(s.r)))

    both = [threading.Thread(target=start) for _ in range(2)]
    for t in both:
        t.start()
    for t in both:
        t.join()
    later, later_box = started[0]
    assert not later.r.exists("{referee:list}:all", "{referee:list}:active", "{referee:list}:version",
                              "{referee:timers}:at", "{referee:timers}:version", "referee:notices-due")
    assert all_pages(later) == listing and all_pages(later, "active") == active
    assert later.due_timers(at(5000), 1000) == due and len(due) == 40
    assert [n["id"] for n in later_box.due(1000.0, 1000)] == sending and len(sending) == 60
    assert move_old_layout(later) == 0 and later_box.move_old_due() == 0  # idempotent: nothing left


def test_a_start_moves_what_an_older_process_wrote_after_the_last_move(redis_url):
    from referee.store.redis import RedisStore

    store = RedisStore(redis_url)
    new_game(store, "late", at(1))
    # a process of the version before, still running through an upgrade, lists a game the old way
    store.r.zadd("{referee:list}:all", {f"{at(1)}|late": 0})
    store.r.zadd("{referee:list}:finished", {f"{at(1)}|late": 0})
    store.r.hset("{referee:list}:version", "late", 9)
    store.r.hset("{g:late}:meta", mapping={"status": "finished", "version": 9})
    again = RedisStore(redis_url)
    assert all_pages(again, "finished") == ["late"] and all_pages(again, "active") == []
    assert not again.r.exists("{referee:list}:all")


def timed(store, gid, expected, timer, at_=10):
    """A referee event appended at ``expected`` moving the game's timer to ``timer``."""
    return store.append(gid, expected, chain([Draft("x", {})], "referee", expected + 1, "h", at(at_)),
                        status="active", timer=timer)


def entry(store, gid):
    from referee.store.redis_timers import keys

    return store.r.zscore(keys(gid)[0], gid)


def test_a_later_timer_writes_nothing_to_the_index_and_an_earlier_one_is_there_before_its_append(
        redis_url, monkeypatch):
    from referee.store.redis import RedisStore
    from referee.store.redis_timers import keys, score

    store = RedisStore(redis_url)
    new_game(store, "g1", at(0), timer=at(3600))
    tag = store.r.hget(keys("g1")[1], "g1")
    timed(store, "g1", 1, at(7200))  # the next seat's time starts later: the ordinary move
    assert store.timer("g1") == at(7200)
    assert entry(store, "g1") == score(at(3600)) and store.r.hget(keys("g1")[1], "g1") == tag  # untouched
    assert store.due_timers(at(3600)) == ["g1"]  # early, never late: the keeper's tick moves it on
    assert store.set_timer("g1", 2, at(7200))
    assert store.due_timers(at(3600)) == [] and store.due_timers(at(7200)) == ["g1"]

    sent = []
    real = store._run_append
    monkeypatch.setattr(store, "_run_append", lambda keys, args: sent.append(args) or real(keys, args))
    timed(store, "g1", 2, at(600))  # earlier than the index holds: into the index first
    assert len(sent) == 2 and store.timer("g1") == at(600)
    assert store.due_timers(at(600)) == ["g1"]


def test_a_crash_anywhere_leaves_the_index_early_never_late_and_a_start_reads_no_game(redis_url, monkeypatch):
    from referee.store.redis import RedisStore
    from referee.store.redis_timers import score

    store = RedisStore(redis_url)
    for i in range(10_000):
        new_game(store, f"g{i:05d}", at(0), timer=at(3600 + i))
    new_game(store, "crashed", at(0), timer=at(3600))
    real = store._run_append
    calls = []

    def dies_on_the_second(keys, args):  # after the index's write, before the append's
        calls.append(1)
        if len(calls) == 2:
            raise SystemExit("killed")
        return real(keys, args)

    monkeypatch.setattr(store, "_run_append", dies_on_the_second)
    with pytest.raises(SystemExit):
        timed(store, "crashed", 1, at(60))
    monkeypatch.undo()
    assert store.timer("crashed") == at(3600) and entry(store, "crashed") == score(at(60))  # early
    # a keeper killed between the record's timer and the index's: the old, due entry stays
    monkeypatch.setattr(type(store.timers), "put", lambda *a, **kw: (_ for _ in ()).throw(SystemExit("killed")))
    with pytest.raises(SystemExit):
        store.set_timer("g00000", 1, at(9000))
    monkeypatch.undo()
    assert entry(store, "g00000") == score(at(3600)) and store.timer("g00000") == at(9000)

    restarted = RedisStore(redis_url)
    for name in ("page", "games", "timer", "record", "glance"):  # a start reads no game
        monkeypatch.setattr(restarted, name, lambda *a, **kw: pytest.fail("a game was read"))
    monkeypatch.setattr(restarted.r, "hmget", lambda *a, **kw: pytest.fail("a game was read"))
    assert restarted.repair_timers() == 0
    assert restarted.due_timers(at(60)) == ["crashed"]  # early: its tick fires nothing and moves it on


def test_a_keeper_finishing_late_never_raises_an_entry_a_newer_append_lowered(redis_url):
    from referee.store.redis import RedisStore, _k

    store = RedisStore(redis_url)
    new_game(store, "g1", at(0), timer=at(3600))
    # a keeper read version 1 and wrote the game's next timer to its record...
    assert store._set_timer(keys=[_k("g1", "meta")], args=[1, at(5000)])
    timed(store, "g1", 1, at(600))  # ...then a move lowered the index and appended version 2...
    store.timers.put("g1", 1, at(5000))  # ...before the keeper's index write of version 1 landed
    assert store.due_timers(at(600)) == ["g1"] and store.timer("g1") == at(600)


def test_a_game_over_takes_its_entry_out_of_the_index(redis_url):
    from referee.store.redis import RedisStore

    store = RedisStore(redis_url)
    new_game(store, "g1", at(0), timer=at(3600))
    store.append("g1", 1, chain([Draft("x", {})], "referee", 2, "h", at(10)), status="finished", timer=None)
    assert entry(store, "g1") is None and store.due_timers(at(9999)) == []


def test_the_senders_start_reads_only_games_after_its_mark(store_url, monkeypatch):
    """A start after a crash still queues what the crash left (a game whose notices
    were never swept), and reads none of the old, ended games before the mark."""
    from referee.api import create_app
    from referee.mail import outbox
    from referee.queue import InlineQueue
    from referee.store import open_store
    from referee.system import assemble

    old = 10_000 if store_url.startswith("redis") else 1_000  # SQLite's fsync a create: fewer, as telling
    store = open_store(store_url)
    ten_days_ago = (dt.datetime.now(dt.UTC) - dt.timedelta(days=10)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    for i in range(old):
        new_game(store, f"old{i:05d}", ten_days_ago, status="finished")
    service = assemble(store, InlineQueue())
    outbox.sweep_all(service)  # the first start reads them all, and keeps a mark
    assert outbox.outbox_of(service).swept() is not None
    client = create_app(service).test_client()
    monkeypatch.setattr(outbox, "sweep", lambda service, game_id: [])  # the process dies before its sweep
    made = client.post("/v1/games", json={"game": "king-of-danger", "options": {"seed": "mark"},
                                          "players": [{"name": "Ann", "email": "ann@example.org"}, "Bob"]})
    assert made.status_code == 201
    gid = made.json["id"]
    monkeypatch.undo()
    assert outbox.outbox_of(service).of_game(gid) == []

    restarted = assemble(open_store(store_url), InlineQueue())
    read = []
    real = restarted.record
    monkeypatch.setattr(restarted, "record", lambda gid, *a, **kw: read.append(gid) or real(gid, *a, **kw))
    assert outbox.sweep_all(restarted) >= 1
    assert [n["seat"] for n in outbox.outbox_of(restarted).of_game(gid)] == [0]
    assert set(read) == {gid}  # not one of the old games


def test_a_notice_sent_for_good_is_dropped_from_the_due_when_found_there(redis_url):
    """A start's move of the old set may put back a notice another process marked
    sent meanwhile: the reader of the due notices skips it and drops it."""
    from referee.mail.outbox_store import RedisOutbox, _due_key

    box = RedisOutbox(__import__("redis").Redis.from_url(redis_url))
    box.put({"id": "g1.0.1.start", "game": "g1", "seat": 0, "version": 1, "reason": "start", "body": {},
             "created": 10.0})
    box.mark("g1.0.1.start", "sent", 1, 11.0, None)
    box.r.zadd(_due_key("g1"), {"g1|g1.0.1.start": 10.0})
    assert box.due(100.0) == []
    assert box.r.zcard(_due_key("g1")) == 0
