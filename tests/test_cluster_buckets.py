"""The shared indexes split by hash on a real Redis Cluster (the three masters of
tests/test_cluster.py): the listing and the deadline index spread over buckets and
nodes and read in one order, and the slots a move writes, counted with Redis'
MONITOR on every master."""

from __future__ import annotations

import pytest
import redis

from referee.queue import InlineQueue, RQQueue
from referee.service import Caller
from referee.store import open_store
from referee.system import assemble
from tests.test_cluster import Cluster


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    c = Cluster(tmp_path_factory.mktemp("cluster"))
    yield c
    c.stop()


def test_the_shared_indexes_spread_over_buckets_and_nodes_on_the_cluster(cluster):
    """The listing and the deadline index are split by hash: a cluster's games land
    in many buckets on several nodes, and the readers merge them in one order."""
    from referee.store.buckets import bucket, tag

    svc = assemble(open_store(cluster.url), InlineQueue())
    clock = {"move_seconds": 3600, "remind_seconds": 600, "on_timeout": "remind"}
    made = [svc.create("castle-danger", ["a", "b"], {"seed": f"b{i}", "clock": clock})["id"] for i in range(24)]
    assert len({bucket(gid) for gid in made}) >= 8
    assert len({cluster.node_of(tag("list", bucket(gid))) for gid in made}) >= 2
    assert len({cluster.node_of(tag("timers", bucket(gid))) for gid in made}) >= 2
    store = open_store(cluster.url)  # another process
    rows = store.glance(made)
    listed, after = [], None
    while True:
        page, after = store.page("active", 5, after)
        listed += [r["id"] for r in page if r["id"] in rows]
        if after is None:
            break
    assert listed == sorted(made, key=lambda g: (rows[g]["created_at"], g), reverse=True)
    due = [gid for gid in store.due_timers("9999-01-01T00:00:00.000000Z", 10_000) if gid in rows]
    assert due == sorted(made, key=lambda g: (rows[g]["timer"], g))


WRITES = {b"EVAL", b"EVALSHA", b"ZADD", b"ZREM", b"HSET", b"HSETNX", b"HDEL", b"SET", b"DEL", b"INCR",
          b"INCRBY", b"RPUSH", b"HINCRBY", b"EXPIRE", b"ZREMRANGEBYSCORE", b"UNLINK"}


def slots_written(cluster, act) -> set[int]:
    """The hash slots of every write the cluster's masters saw while ``act`` ran,
    from Redis' MONITOR on each (a script's keys are those its call names)."""
    import re

    from redis.crc import key_slot

    watching = []
    for port in cluster.ports:
        conn = redis.Connection(port=port)
        conn.connect()
        conn.send_command("MONITOR")
        assert conn.read_response() in (b"OK", "OK")
        watching.append(conn)
    act()
    slots = set()
    for port, conn in zip(cluster.ports, watching, strict=True):
        redis.Redis(port=port).echo("done-watching")
        while b'"ECHO" "done-watching"' not in (line := conn.read_response()):
            if b" lua]" in line:  # inside a script: the call's own keys, counted below
                continue
            args = re.findall(rb'"((?:[^"\\]|\\.)*)"', line)
            if not args or args[0].upper() not in WRITES:
                continue
            keys = args[3:3 + int(args[2])] if args[0].upper() in (b"EVAL", b"EVALSHA") else args[1:2]
            slots |= {key_slot(k) for k in keys}
        conn.disconnect()
    return slots


@pytest.mark.parametrize("clocked", [False, True])
def test_an_ordinary_move_writes_its_games_slot_and_no_shared_one(cluster, redis_url, clocked):
    """A move writes one slot, the game's, with a clock or without: the next seat's
    time starts later than the last one's, which the deadline index (early, never
    late) already covers. The transparency log's notes, written by each process's
    courier for many appends at once, are the one other write (``{referee:tlog}``)."""
    from redis.crc import key_slot

    svc = assemble(open_store(cluster.url), RQQueue(redis_url))
    clock = {"clock": {"move_seconds": 3600, "remind_seconds": 600, "on_timeout": "remind"}} if clocked else {}
    gid = svc.create("castle-danger", ["a", "b"], {"seed": f"slots{clocked}", **clock})["id"]
    svc.transparency.flush()
    before = svc.store.timer(gid)
    seat = svc.summary(gid)["to_act"][0]
    move = next(m for m in svc.legal(gid, Caller(seat))["moves"] if m["type"] != "resign")
    written = slots_written(cluster, lambda: svc.submit(gid, Caller(seat), {"move": move}))
    assert written - {key_slot(b"{referee:tlog}")} == {key_slot(f"{{g:{gid}}}:log".encode())}
    assert (svc.store.timer(gid) > before) if clocked else svc.store.timer(gid) is None


def test_an_earlier_timer_writes_its_bucket_first_on_the_cluster(cluster):
    """A timer earlier than the index holds is put there before the append: the
    game's slot and its own bucket of the deadline index, no other."""
    from redis.crc import key_slot

    from referee.events import Draft, chain
    from referee.store.buckets import bucket, tag

    svc = assemble(open_store(cluster.url), InlineQueue())
    clock = {"move_seconds": 3600, "remind_seconds": 600, "on_timeout": "remind"}
    gid = svc.create("castle-danger", ["a", "b"], {"seed": "earlier", "clock": clock})["id"]
    store = open_store(cluster.url)
    version = store.version(gid)
    sooner = "2000-01-01T00:00:00.000000Z"
    events = chain([Draft("x", {})], "referee", version + 1, "h", sooner)
    written = slots_written(cluster, lambda: store.append(gid, version, events, status="active", timer=sooner))
    assert written == {key_slot(f"{{g:{gid}}}:log".encode()), key_slot(f"{tag('timers', bucket(gid))}:at".encode())}
    assert gid in store.due_timers("2000-01-01T00:00:00.000000Z", 10_000)
