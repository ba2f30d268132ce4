"""The cached state: a speed-up that is rebuilt from the log whenever it is
missing, stale or damaged, and never changes an answer."""

from __future__ import annotations

import random

from referee.games.base import ADMIN
from referee.queue import InlineQueue
from referee.service import Caller
from referee.store import open_store
from referee.system import assemble


def play_some(svc, gid, n, rnd):
    for _ in range(n):
        s = svc.summary(gid)
        if s["status"] != "active":
            return
        seat = s["to_act"][0]
        legal = [m for m in svc.legal(gid, Caller(seat))["moves"] if m["type"] != "resign"]
        svc.submit(gid, Caller(seat), {"move": rnd.choice(legal)})


def test_another_process_catches_up_from_the_log(store_url):
    a = assemble(open_store(store_url), InlineQueue())
    b = assemble(open_store(store_url), InlineQueue())
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


def test_snapshot_is_used_by_a_new_process(store_url, monkeypatch):
    a = assemble(open_store(store_url), InlineQueue())
    gid = a.create("king-of-danger", ["x", "y"], {"seed": "c3"})["id"]
    play_some(a, gid, 6, random.Random(4))
    b = assemble(open_store(store_url), InlineQueue())
    reads = []
    real = b.store.events

    def spy(game_id, after=0, limit=None):
        reads.append(after)
        return real(game_id, after, limit)

    monkeypatch.setattr(b.store, "events", spy)
    assert b.view(gid, Caller(ADMIN)) == a.view(gid, Caller(ADMIN))
    assert reads and all(r > 0 for r in reads), "the new process replayed the whole log"


def _damage(store, gid, column, value):
    if hasattr(store, "r"):
        key = f"{{g:{gid}}}:snap"
        if column is None:
            store.r.delete(key)
        else:
            store.r.hset(key, column, value)
    else:
        conn = store._conn()
        if column is None:
            conn.execute("DELETE FROM snapshots WHERE game_id = ?", (gid,))
        else:
            conn.execute(f"UPDATE snapshots SET {column} = ? WHERE game_id = ?", (value, gid))


def test_a_damaged_stale_or_foreign_snapshot_is_rebuilt_from_the_log(store_url):
    a = assemble(open_store(store_url), InlineQueue())
    gid = a.create("king-of-danger", ["x", "y"], {"seed": "c4"})["id"]
    play_some(a, gid, 4, random.Random(5))
    want = a.view(gid, Caller(ADMIN))
    assert a.store.snapshot(gid) is not None
    _damage(a.store, gid, "blob", b"not a pickle")
    assert assemble(open_store(store_url), InlineQueue()).view(gid, Caller(ADMIN)) == want
    _damage(a.store, gid, "code", "0.0.0:king-of-danger:0")
    assert assemble(open_store(store_url), InlineQueue()).view(gid, Caller(ADMIN)) == want
    _damage(a.store, gid, None, None)
    assert assemble(open_store(store_url), InlineQueue()).view(gid, Caller(ADMIN)) == want


def test_a_snapshot_behind_the_log_is_caught_up_and_one_claiming_more_is_refused(store_url):
    import pickle

    a = assemble(open_store(store_url), InlineQueue())
    gid = a.create("king-of-danger", ["x", "y"], {"seed": "c5"})["id"]
    play_some(a, gid, 3, random.Random(6))
    old = a.store.snapshot(gid)
    play_some(a, gid, 4, random.Random(7))
    want = a.view(gid, Caller(ADMIN))
    # an older snapshot: the new process applies the events after it
    _damage(a.store, gid, "blob", old.blob)
    _damage(a.store, gid, "seq", old.seq)
    assert assemble(open_store(store_url), InlineQueue()).view(gid, Caller(ADMIN)) == want
    # a snapshot whose table disagrees with its own seq is never trusted
    fields = pickle.loads(old.blob)
    fields["seq"] += 1
    _damage(a.store, gid, "blob", pickle.dumps(fields))
    assert assemble(open_store(store_url), InlineQueue()).view(gid, Caller(ADMIN)) == want


def test_a_long_game_writes_a_snapshot_every_few_events(store_url):
    from referee.service import SNAPSHOT_EVERY

    a = assemble(open_store(store_url), InlineQueue())
    gid = a.create("castle-danger", ["x", "y"], {"seed": "c6"})["id"]
    play_some(a, gid, 3 * SNAPSHOT_EVERY, random.Random(8))
    version = a.summary(gid)["version"]
    assert version - a.store.snapshot(gid).seq <= SNAPSHOT_EVERY + 30  # a batch may write several
