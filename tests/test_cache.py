"""The cached state: a speed-up that is rebuilt from the log whenever it is
missing, stale or damaged, and never changes an answer."""

from __future__ import annotations

import random

from referee.games.base import ADMIN
from referee.queue import InlineQueue
from referee.service import Caller, GameService
from referee.store import open_store


def play_some(svc, gid, n, rnd):
    for _ in range(n):
        s = svc.summary(gid)
        if s["status"] != "active":
            return
        seat = s["to_act"][0]
        legal = [m for m in svc.legal(gid, Caller(seat))["moves"] if m["type"] != "resign"]
        svc.submit(gid, Caller(seat), {"move": rnd.choice(legal)})


def test_another_process_catches_up_from_the_log(store_url):
    a = GameService(open_store(store_url), InlineQueue())
    b = GameService(open_store(store_url), InlineQueue())
    gid = a.create("king-of-danger", ["x", "y", "z"], {"seed": "c1"})["id"]
    b.summary(gid)  # b caches the game now
    play_some(a, gid, 5, random.Random(1))
    assert b.view(gid, Caller(ADMIN)) == a.view(gid, Caller(ADMIN))
    play_some(b, gid, 5, random.Random(2))
    assert a.view(gid, Caller(ADMIN)) == b.view(gid, Caller(ADMIN))


def test_dropping_the_cache_changes_no_answer(service):
    gid = service.create("king-of-danger", ["x", "y"], {"seed": "c2"})["id"]
    play_some(service, gid, 7, random.Random(3))
    before = service.view(gid, Caller(ADMIN)), service.legal(gid, Caller(service.summary(gid)["to_act"][0]))
    service.forget()
    after = service.view(gid, Caller(ADMIN)), service.legal(gid, Caller(service.summary(gid)["to_act"][0]))
    assert before == after


def test_redis_snapshot_is_used_by_a_new_process(redis_url, monkeypatch):
    a = GameService(open_store(redis_url), InlineQueue())
    gid = a.create("king-of-danger", ["x", "y"], {"seed": "c3"})["id"]
    play_some(a, gid, 6, random.Random(4))
    b = GameService(open_store(redis_url), InlineQueue())
    reads = []
    real = b.store.events

    def spy(game_id, after=0, limit=None):
        reads.append(after)
        return real(game_id, after, limit)

    monkeypatch.setattr(b.store, "events", spy)
    assert b.view(gid, Caller(ADMIN)) == a.view(gid, Caller(ADMIN))
    assert reads and all(r > 0 for r in reads), "the new process replayed the whole log"


def test_a_damaged_or_foreign_snapshot_is_rebuilt_from_the_log(redis_url):
    a = GameService(open_store(redis_url), InlineQueue())
    gid = a.create("king-of-danger", ["x", "y"], {"seed": "c4"})["id"]
    play_some(a, gid, 4, random.Random(5))
    want = a.view(gid, Caller(ADMIN))
    r = a.store.r
    key = f"{{g:{gid}}}:snap"
    r.hset(key, "blob", b"not a pickle")
    assert GameService(open_store(redis_url), InlineQueue()).view(gid, Caller(ADMIN)) == want
    r.hset(key, "code", "0.0.0:king-of-danger:0")
    assert GameService(open_store(redis_url), InlineQueue()).view(gid, Caller(ADMIN)) == want
    r.delete(key)
    assert GameService(open_store(redis_url), InlineQueue()).view(gid, Caller(ADMIN)) == want
