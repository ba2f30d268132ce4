"""The stores, both kinds: compare-and-set appends, answers, cached states, and
many writers at once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

import pytest

from referee.events import GENESIS, Draft, chain
from referee.queue import InlineQueue
from referee.store import Conflict, DuplicateRequest, GameRecord, Snapshot, open_store
from referee.system import assemble


def new_game(store, gid="g1"):
    first = chain([Draft("game-created", {"id": gid})], "referee", 1, GENESIS)[0]
    store.create(GameRecord(gid, "toy", first.at, ["a", "b"], {"h": 0}, "seed"), first)
    return first


def test_append_is_compare_and_set(store):
    first = new_game(store)
    evs = chain([Draft("x", {"n": 1}), Draft("y", {})], 0, 2, first.hash)
    store.append("g1", 1, evs, status="active")
    with pytest.raises(Conflict) as lost:
        store.append("g1", 1, chain([Draft("z", {})], 0, 2, first.hash), status="active")
    assert lost.value.current == 3
    got = store.events("g1")
    assert [e.seq for e in got] == [1, 2, 3] and got[1].payload == {"n": 1}
    assert store.record("g1").version == 3 and store.record("g1").status == "active"
    assert store.events("g1", after=2) == [got[2]]
    assert store.events("g1", after=1, limit=1) == [got[1]]


def test_raw_events_are_the_exact_canonical_lines(store):
    first = new_game(store)
    assert store.raw_events("g1") == [first.to_json()]


def test_answers_are_written_with_the_append_and_only_once(store):
    first = new_game(store)
    ev = chain([Draft("x", {})], 0, 2, first.hash)
    store.append("g1", 1, ev, status="active", idem=("k", {"answer": 1}))
    assert store.answer("g1", "k") == {"answer": 1}
    ev3 = chain([Draft("y", {})], 0, 3, ev[0].hash)
    with pytest.raises(DuplicateRequest) as dup:
        store.append("g1", 2, ev3, status="active", idem=("k", {"answer": 2}))
    assert dup.value.answer == {"answer": 1}
    assert len(store.events("g1")) == 2


def test_a_lost_append_writes_no_answer(store):
    first = new_game(store)
    with pytest.raises(Conflict):
        store.append("g1", 5, chain([Draft("x", {})], 0, 2, first.hash), status="active", idem=("k", {"a": 1}))
    assert store.answer("g1", "k") is None


def test_games_list_by_status(store):
    new_game(store, "g1")
    new_game(store, "g2")
    assert {g["id"] for g in store.games()} == {"g1", "g2"}
    assert store.games(status="finished") == []
    assert {g["id"] for g in store.games(status="settling")} == {"g1", "g2"}


def test_many_threads_one_winner_per_version(store_url):
    """Every thread tries to append at the same version; exactly one wins each
    round, the others see Conflict, and the log has no gap and no duplicate."""
    setup = open_store(store_url)
    first = new_game(setup)
    wins, losses = [], []
    lock = threading.Lock()

    def writer(n):
        s = open_store(store_url)  # its own connection, as another process would have
        for _ in range(5):
            head = s.events("g1")[-1]
            ev = chain([Draft("w", {"writer": n})], 0, head.seq + 1, head.hash)
            try:
                s.append("g1", head.seq, ev, status="active")
                with lock:
                    wins.append(ev[0].seq)
            except Conflict:
                with lock:
                    losses.append(n)
        s.close()

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    log = setup.events("g1")
    assert [e.seq for e in log] == list(range(1, len(log) + 1))
    assert sorted(wins) == list(range(2, len(log) + 1)), "a version was won twice or lost"
    assert len(wins) + len(losses) == 40
    for a, b in zip(log, log[1:], strict=False):
        assert b.prev == a.hash
    assert first.hash == log[0].hash


def test_snapshot_round_trip_in_redis(redis_url):
    s = open_store(redis_url)
    first = new_game(s)
    ev = chain([Draft("x", {})], 0, 2, first.hash)
    s.append("g1", 1, ev, status="active", snapshot=Snapshot(2, "code", b"\x00\xffblob"))
    assert s.snapshot("g1") == Snapshot(2, "code", b"\x00\xffblob")


def test_store_urls():
    with pytest.raises(ValueError):
        open_store("postgres://x")


# ---- the service on top: concurrency across "processes" ---------------------------

def test_concurrent_submissions_through_two_services(store_url):
    """Two services on one store stand for two API processes, each with its own
    cache. Threads submit the same seat's moves with expected_version: every
    version is won once, every loser gets 409 version-conflict, and the log audits."""
    from referee.games.base import RefereeError
    from referee.service import Caller

    a = assemble(open_store(store_url), InlineQueue())
    b = assemble(open_store(store_url), InlineQueue())
    created = a.create("king-of-danger", ["p0", "p1", "p2"], {"seed": "race"})
    gid = created["id"]
    outcomes = []
    lock = threading.Lock()

    def player(svc, n):
        for _ in range(6):
            s = svc.summary(gid)
            if s["status"] != "active":
                return
            seat = s["to_act"][0]
            legal = [m for m in svc.legal(gid, Caller(seat))["moves"] if m["type"] != "resign"]
            if not legal:  # the turn passed between the two reads
                continue
            try:
                svc.submit(gid, Caller(seat), {"move": legal[n % len(legal)], "expected_version": s["version"]})
                with lock:
                    outcomes.append("won")
            except RefereeError as err:
                with lock:
                    outcomes.append(err.code)

    threads = [threading.Thread(target=player, args=(a if i % 2 else b, i)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert "won" in outcomes and "version-conflict" in outcomes
    assert set(outcomes) == {"won", "version-conflict"}
    from referee.games.base import ADMIN

    log = a.export(gid, Caller(ADMIN))
    report = a.audit(log)
    assert report["valid"], report
    events = [json.loads(line) for line in log.splitlines()]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    moves = [e for e in events if isinstance(e["actor"], int) and "move" in e["payload"]]
    assert len(moves) == outcomes.count("won")


def test_a_group_commit_keeps_each_compare_and_set_apart(tmp_path):
    """Appends committed together: the one that lost its compare-and-set writes
    nothing and gets Conflict; the others land."""
    from referee.store.sqlite import SqliteStore, _Append

    store = SqliteStore(str(tmp_path / "g.db"))
    f1, f2 = new_game(store, "g1"), new_game(store, "g2")
    ok1 = _Append(("g1", 1, chain([Draft("x", {})], 0, 2, f1.hash), "active", ("k", {"a": 1}), None))
    lost = _Append(("g1", 1, chain([Draft("y", {})], 0, 2, f1.hash), "finished", ("k2", {"a": 2}), None))
    ok2 = _Append(("g2", 1, chain([Draft("z", {})], 0, 2, f2.hash), "active", None,
                   Snapshot(2, "code", b"blob")))
    store._commit([ok1, lost, ok2])
    assert ok1.error is None and ok2.error is None and isinstance(lost.error, Conflict)
    assert [e.type for e in store.events("g1")] == ["game-created", "x"]
    assert store.record("g1").status == "active" and store.answer("g1", "k2") is None
    assert [e.type for e in store.events("g2")] == ["game-created", "z"]
    assert store.snapshot("g2") == Snapshot(2, "code", b"blob")
    # a request answered already, committed with others: it writes nothing, not
    # even the version its compare-and-set would have moved, and the others land
    x, z = store.events("g1")[-1], store.events("g2")[-1]
    again = _Append(("g1", 2, chain([Draft("w", {})], 0, 3, x.hash), "finished", ("k", {"a": 3}), None))
    ok3 = _Append(("g2", 2, chain([Draft("v", {})], 0, 3, z.hash), "active", None, None))
    store._commit([again, ok3])
    assert isinstance(again.error, DuplicateRequest) and again.error.answer == {"a": 1} and ok3.error is None
    assert [e.type for e in store.events("g1")] == ["game-created", "x"]
    assert store.record("g1").version == 2 and store.record("g1").status == "active"
    assert [e.type for e in store.events("g2")] == ["game-created", "z", "v"]


OPEN_AT_ONCE = """
import os, sys, time
from referee.store.sqlite import SqliteStore
print("ready", flush=True)
while not os.path.exists(sys.argv[2]):
    time.sleep(0.0005)
SqliteStore(sys.argv[1])
"""


def test_processes_opening_one_new_sqlite_file_at_once_all_open_it(tmp_path):
    """Turning a new file to WAL takes an exclusive lock that SQLite refuses at once
    (no busy wait) to a process asking while another holds the file: each process
    must ask again, not fail its start (it did, a few processes in a hundred)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    for trial in range(6):
        go = tmp_path / f"go{trial}"
        procs = [subprocess.Popen([sys.executable, "-c", OPEN_AT_ONCE, str(tmp_path / f"s{trial}.db"), str(go)],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
                 for _ in range(16)]
        for p in procs:  # every one imported and waiting: then all at once
            assert p.stdout.readline().strip() == "ready"
        go.write_text("")
        failed = [p.stderr.read()[-300:] for p in procs if p.wait(60) != 0]
        assert failed == [], failed
