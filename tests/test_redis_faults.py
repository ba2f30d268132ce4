"""Redis, the shared store, killed with -9 and started again while players play:
every move the API acknowledged is in the log afterwards, no referee step is
written twice, the games audit valid, the API answers 503 (never 500) while Redis
is down and recovers by itself, and so does the job worker."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

import redis

from tests.conftest import free_port, start_redis_server


class DurableRedis:
    """A redis-server configured as deploy/redis.conf asks: every write fsynced."""

    def __init__(self, folder):
        self.port = free_port()
        self.folder = folder
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.start()

    def start(self):
        self.proc = start_redis_server(self.port, self.folder, "--appendonly", "yes", "--appendfsync", "always",
                                       "--save", "")

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)


def spawn(*args, env):
    return subprocess.Popen([sys.executable, "-m", "referee.cli", *args], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


def call(base, method, path, body=None, token=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(base + path, data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b"null")


def test_redis_killed_under_load_loses_no_acknowledged_move(tmp_path):
    store = DurableRedis(tmp_path)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {**os.environ, "REFEREE_STORE": store.url}
    procs = [spawn("serve", "--port", str(port), "--threads", "4", env=env), spawn("worker", env=env)]
    try:
        deadline = time.time() + 60
        while True:
            try:
                if call(base, "GET", "/healthz")[0] == 200:
                    break
            except OSError:
                pass
            assert time.time() < deadline, "referee serve did not start"
            time.sleep(0.1)
        games = []
        for i, (game, n) in enumerate([("king-of-danger", 3), ("kings-keys", 3)]):
            status, created = call(base, "POST", "/v1/games", {"game": game, "players": [f"p{k}" for k in range(n)],
                                                               "options": {"seed": f"redis-kill-{i}"}})
            assert status == 201
            games.append((created["id"], [s["token"] for s in created["seats"]]))
        acked: dict[str, dict[int, str]] = {gid: {} for gid, _ in games}
        statuses: list[int] = []
        stop = threading.Event()

        def player(gid, tokens, seed):
            rnd = random.Random(seed)
            while not stop.is_set():
                try:
                    code, s = call(base, "GET", f"/v1/games/{gid}")
                    statuses.append(code)
                    if code != 200 or s["status"] != "active":
                        time.sleep(0.02)
                        continue
                    seat = s["to_act"][0]
                    code, legal = call(base, "GET", f"/v1/games/{gid}/legal", token=tokens[seat])
                    statuses.append(code)
                    if code != 200:
                        continue
                    moves = [m for m in legal["moves"] if m["type"] != "resign"]
                    code, ans = call(base, "POST", f"/v1/games/{gid}/moves",
                                     {"move": rnd.choice(moves), "expected_version": s["version"]},
                                     token=tokens[seat])
                    statuses.append(code)
                    if code == 201:
                        for ev in ans["events"]:
                            acked[gid][ev["seq"]] = ev["hash"]
                except OSError:
                    time.sleep(0.05)

        threads = [threading.Thread(target=player, args=(gid, tokens, i)) for i, (gid, tokens) in enumerate(games)]
        for t in threads:
            t.start()
        deadline = time.time() + 40
        while min(len(a) for a in acked.values()) < 15 and time.time() < deadline:
            time.sleep(0.05)
        store.kill()
        down_since = len(statuses)
        time.sleep(1.5)  # the players keep trying while Redis is down
        store.start()
        time.sleep(0.5)
        before_restart = {gid: len(a) for gid, a in acked.items()}
        deadline = time.time() + 40
        while any(len(acked[gid]) < before_restart[gid] + 10 for gid, _ in games) and time.time() < deadline:
            time.sleep(0.05)
        stop.set()
        for t in threads:
            t.join(20)
        during = statuses[down_since:]
        assert 500 not in statuses and 502 not in statuses, "a 500 while Redis was down or back"
        assert 503 in during, "nothing was answered while Redis was down"
        for gid, _ in games:
            assert len(acked[gid]) >= before_restart[gid] + 10, "play did not resume after the restart"
        # every acknowledged event is in the log, exactly; every log audits
        for gid, _ in games:
            export = subprocess.run([sys.executable, "-m", "referee.cli", "export", gid, "--store", store.url],
                                    capture_output=True, text=True, timeout=60)
            assert export.returncode == 0, export.stderr
            stored = {json.loads(ln)["seq"]: json.loads(ln)["hash"] for ln in export.stdout.splitlines()}
            for seq, h in acked[gid].items():
                assert stored.get(seq) == h, f"acknowledged event {seq} of {gid} was lost or changed"
            audit = subprocess.run([sys.executable, "-m", "referee.cli", "audit", "-"], input=export.stdout,
                                   capture_output=True, text=True, timeout=60)
            assert json.loads(audit.stdout)["valid"], audit.stdout
        # the worker lived through it
        assert procs[1].poll() is None, "the worker died with Redis"
    finally:
        for p in procs:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait(10)
        if store.proc.poll() is None:
            store.kill()


def test_a_worker_outlives_a_redis_restart_and_resumes(tmp_path):
    from referee.config import Config
    from referee.system import build as build_service

    store = DurableRedis(tmp_path)
    env = {**os.environ, "REFEREE_STORE": store.url}
    worker = spawn("worker", env=env)
    try:
        service = build_service(Config.load(store.url))
        gid = service.create("kings-keys", ["a", "b", "c"], {"seed": "outlive-1"})["id"]

        def dealt(game_id, within=30.0):
            deadline = time.time() + within
            while time.time() < deadline:
                if service.summary(game_id)["status"] == "active":
                    return True
                time.sleep(0.1)
            return False

        assert dealt(gid), "the worker did not deal the first game"
        for _ in range(3):  # several restarts: the worker must survive every one
            store.kill()
            time.sleep(1.0)
            assert worker.poll() is None, "the worker died while Redis was down"
            store.start()
        gid = build_service(Config.load(store.url)).create("kings-keys", ["a", "b", "c"], {"seed": "outlive-2"})["id"]
        assert dealt(gid), "the worker did not resume after Redis came back"
        assert worker.poll() is None
    finally:
        if worker.poll() is None:
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait(10)
        store.kill()


class LosingProxy:
    """A TCP proxy in front of a Redis server that, once armed, passes the next
    append (an EVALSHA) on to the server, lets the server run it, and then drops
    the server's reply and closes the connection: the answer is lost with its
    connection, after the append landed. Everything else passes untouched."""

    def __init__(self, redis_url: str):
        import socket

        self.upstream = redis.Redis.from_url(redis_url).connection_pool.connection_kwargs
        self.server = socket.create_server(("127.0.0.1", 0))
        self.url = f"redis://127.0.0.1:{self.server.getsockname()[1]}/{self.upstream.get('db', 0)}"
        self.armed = False
        self.lost = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        import socket

        while True:
            client, _ = self.server.accept()
            up = socket.create_connection((self.upstream["host"], self.upstream["port"]))
            state = {"lose": False}
            threading.Thread(target=self._pump, args=(client, up, state, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(up, client, state, False), daemon=True).start()

    def _pump(self, src, dst, state, to_server: bool) -> None:
        try:
            while data := src.recv(65536):
                if to_server and self.armed and b"EVALSHA" in data:
                    self.armed, state["lose"] = False, True
                elif not to_server and state["lose"]:  # the append's answer: dropped
                    self.lost += 1
                    break
                dst.sendall(data)
        except OSError:
            pass
        import socket

        for sock in (src, dst):  # shut down first: the other pump, blocked reading, wakes
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()


def test_an_append_whose_answer_is_lost_lands_once(redis_url):
    """The append's answer lost with its connection: it is sent again, finds its
    own events already in the log, and answers as written, never writing twice."""
    from referee.events import GENESIS, Draft, chain
    from referee.store import GameRecord, open_store

    proxy = LosingProxy(redis_url)
    store = open_store(proxy.url)
    first = chain([Draft("game-created", {"id": "lost1"})], "referee", 1, GENESIS)[0]
    store.create(GameRecord("lost1", "toy", first.at, ["a", "b"], {"h": 0}, "seed", status="active"), first)
    warm = chain([Draft("x", {"n": 0})], 0, 2, first.hash)
    store.append("lost1", 1, warm, status="active")  # the script is loaded, the connection made
    evs = chain([Draft("x", {"n": 1}), Draft("y", {})], 0, 3, warm[-1].hash)
    proxy.armed = True
    store.append("lost1", 2, evs, status="active")  # no Conflict: it knows its own events
    assert proxy.lost == 1
    assert [e.seq for e in store.events("lost1")] == [1, 2, 3, 4]
    assert store.record("lost1").version == 4


def test_a_move_whose_answer_is_lost_is_made_once(redis_url):
    """Through the API: the move's append loses its answer; the move is in the log
    once and its client gets 201, not a second copy of the move or a 409."""
    from referee.api import create_app
    from referee.queue import InlineQueue
    from referee.store import open_store
    from referee.system import assemble
    from tests.helpers import Game

    proxy = LosingProxy(redis_url)
    client = create_app(assemble(open_store(proxy.url), InlineQueue())).test_client()
    g = Game(client, "castle-danger", 2, {"seed": "lost2"})
    seat = g.summary()["to_act"][0]
    assert g.post(seat, {"text": "c1-b1"}).status_code == 201  # the record kept: next, one round trip
    version = g.summary()["version"]
    proxy.armed = True
    r = g.post(seat, {"text": "b1-a1"})
    assert proxy.lost == 1
    assert r.status_code == 201 and r.json["version"] == version + 1, r.json
    assert g.summary()["version"] == version + 1
