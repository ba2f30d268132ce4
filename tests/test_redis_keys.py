"""The Redis store's keys that grow with traffic expire, and a move can wait for
replicas: an Idempotency-Key's answer kept for REFEREE_IDEMPOTENCY_HOURS (at
least 24), no counter key per kicked game, and REFEREE_WAIT_REPLICAS answering
503 ``not-replicated`` (written, reacted to, learnable by a retry) when fewer
replicas than asked confirmed a move."""

from __future__ import annotations

import subprocess
import time

import pytest
import redis

from referee.api import create_app
from referee.players.redis import INVITES_KEPT, RedisPlayers
from referee.queue import InlineQueue, RQQueue
from referee.store import open_store
from referee.store.redis import cluster_options, cluster_seeds
from referee.system import assemble
from tests.conftest import RedisServer, free_port, redis_server_binary


def app_on(url: str):
    service = assemble(open_store(url), InlineQueue())
    return service, create_app(service).test_client()


def a_move(client, gid: str, tokens: list[str], key: str):
    """A legal move by the seat to act, sent with Idempotency-Key ``key``; the
    answer, and a function that sends the very same request again."""
    token = tokens[client.get(f"/v1/games/{gid}").json["to_act"][0]]
    legal = client.get(f"/v1/games/{gid}/legal", headers={"Authorization": f"Bearer {token}"}).json["moves"]
    move = next(m for m in legal if m["type"] != "resign")

    def send():
        return client.post(f"/v1/games/{gid}/moves", json={"move": move},
                           headers={"Authorization": f"Bearer {token}", "Idempotency-Key": key})

    return send(), send


def answer_ttls(url: str, gid: str) -> list[int]:
    """The seconds left to each recorded answer of the game (keyed by the caller's
    token and its Idempotency-Key)."""
    r = redis.Redis.from_url(url)
    return [r.ttl(k) for k in r.scan_iter(f"{{g:{gid}}}:answer:*")]


def new_game(client):
    r = client.post("/v1/games", json={"game": "castle-danger", "players": ["Ann", "Bob"],
                                       "options": {"seed": "keys"}})
    assert r.status_code == 201, r.json
    return r.json["id"], [s["token"] for s in r.json["seats"]]


def test_an_idempotency_keys_answer_expires_after_its_hours_not_never(redis_url, monkeypatch):
    monkeypatch.setenv("REFEREE_IDEMPOTENCY_HOURS", "30")
    _, client = app_on(redis_url)
    gid, tokens = new_game(client)
    assert a_move(client, gid, tokens, "once")[0].status_code == 201
    (ttl,) = answer_ttls(redis_url, gid)
    assert 30 * 3600 - 60 < ttl <= 30 * 3600


def test_by_default_an_idempotency_key_is_honoured_a_week(redis_url):
    _, client = app_on(redis_url)
    gid, tokens = new_game(client)
    first, again = a_move(client, gid, tokens, "k")
    assert first.status_code == 201
    (ttl,) = answer_ttls(redis_url, gid)
    assert 7 * 86400 - 60 < ttl <= 7 * 86400
    repeated = again()
    assert repeated.status_code == 201 and repeated.json == first.json


@pytest.mark.parametrize("hours", ["23", "0", "a day", "-5"])
def test_fewer_than_24_hours_of_idempotency_is_refused_at_start(redis_url, monkeypatch, hours):
    monkeypatch.setenv("REFEREE_IDEMPOTENCY_HOURS", hours)
    with pytest.raises(ValueError, match="REFEREE_IDEMPOTENCY_HOURS"):
        open_store(redis_url)


def test_kicking_a_settling_game_leaves_no_counter_key_behind(redis_url):
    queue = RQQueue(redis_url)
    for _ in range(3):
        queue.enqueue_settle("G1", 5, force=True)
    r = redis.Redis.from_url(redis_url)
    assert not r.exists("{g:G1}:kicks")
    # three jobs of their own all the same
    assert len([k for k in r.scan_iter("rq:job:settle-G1-5-k*")]) == 3


def test_a_cluster_url_names_several_seed_nodes():
    assert cluster_seeds("redis+cluster://10.0.0.1:7000,10.0.0.2:7001/0") == [("10.0.0.1", 7000), ("10.0.0.2", 7001)]
    assert cluster_seeds("rediss+cluster://u:p@[::1]:7000, h:1") == [("::1", 7000), ("h", 1)]
    assert cluster_options("rediss+cluster://u:p@h:1,h:2") == {"ssl": True, "username": "u", "password": "p"}
    assert cluster_options("redis+cluster://secret@h:1") == {"password": "secret"}
    with pytest.raises(ValueError, match="HOST:PORT"):
        cluster_seeds("redis+cluster://h:1,h")


class Replica:
    """A redis-server replicating ``master``: the replica a failover would promote."""

    def __init__(self, master: RedisServer, workdir):
        redis.Redis(port=master.port).config_set("repl-diskless-sync-delay", 0)  # sync at once
        self.port = free_port()
        self.proc = subprocess.Popen(
            [redis_server_binary(), "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(workdir), "--replicaof", "127.0.0.1", str(master.port),
             "--loglevel", "warning", "--databases", "64"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 30
        while True:
            try:
                # online as the master sees it (the replica says "up" a little sooner)
                if redis.Redis(port=master.port).info("replication").get("slave0", {}).get("state") == "online":
                    return
            except redis.ConnectionError:
                pass
            if time.time() > deadline:
                self.stop()
                raise RuntimeError("the replica did not come up")
            time.sleep(0.05)

    def stop(self):
        self.proc.kill()
        self.proc.wait(10)


def test_wait_replicas_acknowledges_a_move_only_once_a_replica_has_it(tmp_path, monkeypatch):
    (tmp_path / "m").mkdir()
    master = RedisServer(tmp_path / "m")
    replica = None
    try:
        replica = Replica(master, tmp_path)
        monkeypatch.setenv("REFEREE_WAIT_REPLICAS", "1")
        monkeypatch.setenv("REFEREE_WAIT_MS", "4000")  # a loaded machine's replica is slow to answer
        service, client = app_on(master.url)
        gid, tokens = new_game(client)
        r, _ = a_move(client, gid, tokens, "one")
        assert r.status_code == 201, r.json
        # what the replica holds is the move the client was told of
        assert redis.Redis(port=replica.port).llen(f"{{g:{gid}}}:log") == service.store.version(gid)

        replica.stop()  # no replica now: the next move cannot be confirmed
        before = service.store.version(gid)
        r, again = a_move(client, gid, tokens, "two")
        assert r.status_code == 503 and r.json["code"] == "not-replicated" and r.headers["Retry-After"] == "1"
        assert "Idempotency-Key" in r.json["detail"]
        assert service.store.version(gid) > before, "the move was written"
        stored = client.get(f"/v1/games/{gid}/events", query_string={"after": before}).json["events"]
        assert stored and stored[0]["seq"] == before + 1
        # the same request again, still with no replica: its recorded 201 is not given
        # either (a failover now would lose the move it tells of)
        still = again()
        assert still.status_code == 503 and still.json["code"] == "not-replicated"
        assert service.store.version(gid) == before + 1, "nothing written twice"
        replica = Replica(master, tmp_path)  # a replica again: it copies the log
        learnt = again()  # the same request: it stands, and a replica has it
        assert learnt.status_code == 201 and learnt.json["events"][0]["seq"] == before + 1
        assert redis.Redis(port=replica.port).llen(f"{{g:{gid}}}:log") == before + 1
    finally:
        if replica is not None and replica.proc.poll() is None:
            replica.stop()
        master.stop()


def test_an_addresses_invitations_keep_only_as_many_as_are_ever_shown(redis_url):
    players = RedisPlayers(redis.Redis.from_url(redis_url))
    for i in range(INVITES_KEPT + 30):
        players.invite("addr", f"G{i}")
    assert redis.Redis.from_url(redis_url).llen("{a:addr}:invites") == INVITES_KEPT
    assert players.invited("addr") == [f"G{i}" for i in range(30, INVITES_KEPT + 30)]
