"""Play goes on while the queue's Redis is down: moves and game creations are
acknowledged (their steps written to the store, only their jobs not queued), and
once the queue's Redis is back a real worker reconnects, sweeps the settling
games and runs their steps (deals, bots' moves, scorings) within seconds."""

from __future__ import annotations

import os
import random
import signal
import time

import redis

from referee import queue as queue_module
from referee.api import create_app
from referee.queue import RQQueue
from referee.store import open_store
from referee.system import assemble
from tests.conftest import free_port, start_redis_server
from tests.helpers import Game
from tests.test_workers import worker

BACK_WITHIN = 5.0  # seconds from the queue's return to every owed step written


class QueueRedis:
    """The queue's own redis-server, killed -9 and started again on its port (a
    restart that lost whatever it held: no persistence)."""

    def __init__(self, workdir):
        self.port, self.dir = free_port(), workdir
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.start()

    def start(self) -> None:
        self.proc = start_redis_server(self.port, self.dir, "--save", "", "--appendonly", "no",
                                       "--loglevel", "warning")

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def silent(self, silent: bool) -> None:
        """Stopped (SIGSTOP): it takes connections and answers nothing; or going on."""
        self.proc.send_signal(signal.SIGSTOP if silent else signal.SIGCONT)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


def wait_for(ok, seconds: float, what: str) -> float:
    """Poll ``ok()`` until it holds; the seconds it took (fails after ``seconds``)."""
    start = time.monotonic()
    while not ok():
        assert time.monotonic() - start < seconds, what
        time.sleep(0.02)
    return time.monotonic() - start


def settling(store) -> set[str]:
    """The settling games as the store lists them (read without kicking them: a
    read through the service would queue their steps itself)."""
    return {row["id"] for row in store.games(status="settling")}


def idle(url: str) -> bool:
    """Every job done and the worker waiting for the next one."""
    from rq import Queue, Worker
    from rq.registry import StartedJobRegistry

    from referee.queue import QUEUE_NAMES

    conn = redis.Redis.from_url(url)
    workers = Worker.all(connection=conn)
    return bool(workers) and all(w.get_state() == "idle" for w in workers) and all(
        Queue(name, connection=conn).count == 0 and StartedJobRegistry(name, connection=conn).count == 0
        for name in QUEUE_NAMES)


def one_move(g: Game, rnd: random.Random) -> dict:
    """A random legal move (no resignation) of the first seat to act; its answer."""
    seat = g.summary()["to_act"][0]
    r = g.post(seat, {"move": rnd.choice([m for m in g.legal(seat) if m["type"] != "resign"])})
    assert r.status_code == 201, r.json
    return r.json


def move_until_settling(g: Game, rnd: random.Random) -> int:
    """Random legal moves until a step of the referee's is due; how many (each
    acknowledged, 201)."""
    n = 1
    while one_move(g, rnd)["status"] == "active":
        n += 1
    return n


def test_play_goes_on_while_the_queues_redis_is_down_and_its_steps_follow_its_return(
        redis_url, tmp_path, hooks, monkeypatch):
    monkeypatch.setenv("REFEREE_WEBHOOK_ALLOW_PRIVATE", "1")  # the receiver is on this machine
    queue = QueueRedis(tmp_path)
    store = open_store(redis_url)
    client = create_app(assemble(open_store(redis_url), RQQueue(queue.url))).test_client()
    proc = worker(redis_url, queue.url, burst=False)
    try:
        dealt = Game(client, "king-of-danger", 2, {"seed": "down-dealt"})
        botted = Game(client, "castle-danger", ["a", {"name": "Robo", "bot": "basic"}],
                      {"seed": "down-bot"})
        told = Game(client, "castle-danger", ["a", {"name": "b", "webhook": hooks.url}], {"seed": "down-told"})
        wait_for(lambda: not settling(store) & {dealt.id, botted.id}, 60, "the worker never dealt")
        # killed under a worker waiting for its next job (as it mostly is), not in one
        wait_for(lambda: idle(queue.url), 30, "the worker never went idle")

        queue.kill()
        down_at = time.monotonic()
        rnd = random.Random(11)
        acknowledged = move_until_settling(dealt, rnd)  # a hand played out: its scoring is owed
        while botted.summary()["to_act"] == [0]:  # the bot's move is owed after a's
            acknowledged += move_until_settling(botted, rnd)
        while told.summary()["to_act"] == [0]:  # b's turn: a notice owed, and no step
            one_move(told, rnd)
            acknowledged += 1
        turned = told.summary()["version"]
        made = []
        for i in range(3):  # new games: their first deals are owed
            r = client.post("/v1/games", json={"game": "king-of-danger", "players": ["x", "y"],
                                               "options": {"seed": f"down-new-{i}"}})
            assert r.status_code == 201, r.json
            made.append(r.json["id"])
        owed = {dealt.id, botted.id, *made}
        assert acknowledged >= 3
        assert settling(store) >= owed, "the steps owed are not in the store's settling listing"
        # an outage longer than a worker's first tries to reach it again
        wait_for(lambda: time.monotonic() - down_at > 3, 10, "")
        assert proc.poll() is None, f"the worker died with the queue's Redis: {proc.stdout.read()!r}"

        queue.start()
        back = time.monotonic()
        took = wait_for(lambda: not settling(store) & owed, BACK_WITHIN,
                        f"the owed steps were not run within {BACK_WITHIN} s of the queue's return")
        for gid in made:
            kinds = [e.type for e in store.events(gid)]
            assert kinds[:2] == ["game-created", "hand-dealt"], kinds
        assert "hand-scored" in [e.type for e in store.events(dealt.id)]
        assert botted.summary()["to_act"] == [0] or botted.summary()["status"] == "finished"
        # b is told of its turn, though no referee step followed the move that gave it
        wait_for(lambda: any(n["seat"] == 1 and int(n["id"].split(".")[2]) >= turned for n in hooks.json()),
                 BACK_WITHIN - (time.monotonic() - back), "b was never told of its turn")
        print(f"owed steps written {took:.2f} s after the queue's return")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
        queue.stop()


def test_a_queue_silent_for_a_moment_loses_no_step(redis_url, tmp_path):
    """The queue's Redis stopped for a moment: the worker, waiting for its next job,
    never notices (it sweeps nothing); the API's enqueue gives up after 0.5 s and
    the move is acknowledged; once the queue answers again, the API process queues
    the step it could not, with its next enqueue."""
    queue = QueueRedis(tmp_path)
    store = open_store(redis_url)
    client = create_app(assemble(open_store(redis_url), RQQueue(queue.url))).test_client()
    proc = worker(redis_url, queue.url, burst=False)
    try:
        dealt = Game(client, "king-of-danger", 2, {"seed": "silent-dealt"})
        wait_for(lambda: dealt.id not in settling(store), 60, "the worker never dealt")
        wait_for(lambda: idle(queue.url), 30, "the worker never went idle")

        queue.silent(True)
        try:
            move_until_settling(dealt, random.Random(5))  # a hand played out: its scoring owed
        finally:
            queue.silent(False)
        assert dealt.id in settling(store)
        resumed = time.monotonic()
        # the process tries the queue again once its pause after the failure is over
        wait_for(lambda: time.monotonic() - resumed > queue_module.DOWN_PAUSE, 5, "")
        r = client.post("/v1/games", json={"game": "king-of-danger", "players": ["x", "y"],
                                           "options": {"seed": "silent-new"}})
        assert r.status_code == 201, r.json
        wait_for(lambda: not settling(store) & {dealt.id, r.json["id"]}, BACK_WITHIN,
                 "the step left while the queue was silent was never queued")
        assert "hand-scored" in [e.type for e in store.events(dealt.id)]
        assert proc.poll() is None
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
        queue.stop()
