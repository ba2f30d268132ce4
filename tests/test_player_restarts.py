"""Ratings follow games across real processes: a real RQ worker rates a finished
game once, and a process killed -9 between a game's end and its rating loses
nothing: `referee serve` (SQLite) and `referee worker` (Redis) catch up when they
start."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

from referee.players.store import open_players
from referee.queue import RQQueue
from referee.store import open_store
from referee.system import assemble
from tests.test_durability import Server
from tests.test_workers import run_burst

GAME = "king-of-danger"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# A process that registers two players, seats them, and is killed -9 by its own
# hand the moment the game's end would queue the ratings job: the game is over in
# the log, and no rating was written or queued.
DIES_AT_THE_END = r"""
import json, os, signal, sys
from referee.players import accounts
from referee.queue import InlineQueue, RQQueue
from referee.caller import Caller
from referee.store import open_store
from referee.system import assemble

store, queue = sys.argv[1], sys.argv[2]
svc = assemble(open_store(store), InlineQueue() if queue == "inline" else RQQueue(queue))
ann = accounts.register(svc, {"name": "Ann"})
bob = accounts.register(svc, {"name": "Bob"})
game = svc.create("king-of-danger", [{"player": ann["id"]}, {"player": bob["id"]}])
svc.settle(game["id"])
print(json.dumps({"game": game["id"], "ann": ann["id"], "bob": bob["id"]}), flush=True)
enqueue = svc.queue.enqueue
def dying(kind, game_id):
    if kind == "ratings":
        os.kill(os.getpid(), signal.SIGKILL)
    enqueue(kind, game_id)
svc.queue.enqueue = dying
svc.submit(game["id"], Caller(1), {"move": {"type": "resign"}})
svc.settle(game["id"])  # with RQ the seed's reveal is a job: made here, as a worker would
print("not killed", flush=True)
"""


def die_at_the_end(store: str, queue: str) -> dict:
    path = os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")]))
    proc = subprocess.run([sys.executable, "-c", DIES_AT_THE_END, store, queue], capture_output=True,
                          text=True, timeout=120, env={**os.environ, "PYTHONPATH": path})
    assert proc.returncode == -9, proc.stdout + proc.stderr  # killed where it meant to be
    return json.loads(proc.stdout.splitlines()[0])


def test_a_real_worker_rates_a_finished_game_once(redis_url):
    svc = assemble(open_store(redis_url), RQQueue(redis_url))
    from referee.caller import Caller
    from referee.players import accounts

    ann, bob = accounts.register(svc, {"name": "Ann"}), accounts.register(svc, {"name": "Bob"})
    gid = svc.create(GAME, [{"player": ann["id"]}, {"player": bob["id"]}])["id"]
    run_burst(redis_url, redis_url)  # the deal
    svc.submit(gid, Caller(0), {"move": {"type": "resign"}})
    run_burst(redis_url, redis_url)  # the seed's reveal, then the ratings job it queues
    assert svc.summary(gid)["status"] == "finished"
    players = open_players(svc.store)
    assert players.recorded(gid)["rated"] is True
    rating = players.ratings(bob["id"])[GAME]
    assert rating["games"] == 1 and rating["mu"] > 25
    svc.queue.enqueue("ratings", gid)  # the job again: nothing twice
    run_burst(redis_url, redis_url)
    assert players.ratings(bob["id"])[GAME] == rating and players.stats(bob["id"])[GAME]["played"] == 1


def test_killed_between_the_end_and_the_rating_a_worker_catches_up(redis_url):
    made = die_at_the_end(redis_url, redis_url)
    players = open_players(open_store(redis_url))
    assert players.recorded(made["game"]) is None  # the end is in the log, the rating nowhere
    run_burst(redis_url, redis_url)
    assert players.recorded(made["game"])["rated"] is True
    assert players.ratings(made["ann"])[GAME]["games"] == 1
    run_burst(redis_url, redis_url)  # a second start records nothing twice
    assert players.stats(made["ann"])[GAME] == {"played": 1, "won": 1}


def test_killed_between_the_end_and_the_rating_serve_catches_up(tmp_path):
    store = f"sqlite:///{tmp_path / 'referee.db'}"
    made = die_at_the_end(store, "inline")
    assert open_players(open_store(store)).recorded(made["game"]) is None
    server = Server(store, tmp_path)
    try:
        deadline = time.time() + 30
        while True:
            status, profile = server.call("GET", f"/v1/players/{made['ann']}")
            assert status == 200
            if profile["ratings"]:
                break
            assert time.time() < deadline, "serve never caught up with the finished game"
            time.sleep(0.2)
        assert profile["ratings"][GAME]["games"] == 1 and profile["won"] == 1
        assert server.call("GET", f"/v1/players/{made['bob']}")[1]["ratings"][GAME]["games"] == 1
    finally:
        server.kill()
