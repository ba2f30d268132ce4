"""Following a game live: the long poll ``GET /v1/games/{id}/events?after=N&wait=S``
(referee/follow.py).

Waiters and movers are separate service instances over one store (as two gunicorn
processes are), with both stores, and once a real second process; a seat's long
poll is checked over random games of every kind to answer exactly what that
seat's plain ``events`` call answers.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import threading
import time

import pytest

from referee import follow
from referee.api import create_app
from referee.queue import InlineQueue
from referee.store import open_store
from referee.system import assemble
from tests.conftest import repo_root
from tests.helpers import Game

# A short poll keeps the tests quick; the wakes they time allow for the default.
FAST = 0.05


def instance(url: str, **waiters):
    """One API instance over the store at ``url``: its own service, cache and waiters."""
    app = create_app(assemble(open_store(url), InlineQueue()))
    app.testing = True
    app.extensions["referee-waiters"] = follow.Waiters(**{"places": 16, "poll": FAST, **waiters})
    return app


class Poll(threading.Thread):
    """A long poll in a thread of its own (its own test client), timed."""

    def __init__(self, app, game_id, after, wait, headers=None, **params):
        super().__init__(daemon=True)
        self.app, self.url = app, f"/v1/games/{game_id}/events"
        self.params = {"after": after, "wait": wait, **params}
        self.headers = headers or {}
        self.answer = self.done = None

    def run(self):
        self.answer = self.app.test_client().get(self.url, query_string=self.params, headers=self.headers)
        self.done = time.monotonic()


def _waiting(app, n: int) -> None:
    """Until ``n`` requests hold a place among the app's waiters."""
    until = time.monotonic() + 5
    while app.extensions["referee-waiters"].waiting != n:
        assert time.monotonic() < until, "the long polls never started waiting"
        time.sleep(0.01)


def _move(g: Game, rnd: random.Random):
    s = g.summary()
    seat = rnd.choice(s["to_act"])
    legal = [m for m in g.legal(seat) if m["type"] != "resign"]
    r = g.post(seat, {"move": rnd.choice(legal), "expected_version": s["version"]})
    assert r.status_code == 201, r.json
    return r


def test_a_long_poll_wakes_on_a_move_made_by_another_instance(store_url):
    waiter, mover = instance(store_url), instance(store_url)
    g = Game(mover.test_client(), "kings-keys", 3)
    v = g.summary()["version"]
    poll = Poll(waiter, g.id, v, 20)
    poll.start()
    _waiting(waiter, 1)
    time.sleep(0.3)
    assert poll.is_alive()  # nothing new yet: still waiting
    _move(g, random.Random(1))
    moved = time.monotonic()
    poll.join(10)
    assert poll.answer.status_code == 200, poll.answer.json
    assert poll.done - moved < 1.0, "the waiter woke too late"
    got = poll.answer.json["events"]
    assert got and got[0]["seq"] == v + 1
    assert waiter.extensions["referee-waiters"].waiting == 0  # its place is free again


def test_a_move_made_by_another_process_wakes_the_waiter(tmp_path):
    """A real second process writing the same SQLite file."""
    url = f"sqlite:///{tmp_path}/games.db"
    waiter = instance(url, poll=follow.POLL)  # the poll interval the server really uses
    g = Game(waiter.test_client(), "castle-danger", 2)
    s = g.summary()
    seat = s["to_act"][0]
    move = [m for m in g.legal(seat) if m["type"] != "resign"][0]
    poll = Poll(waiter, g.id, s["version"], 20)
    poll.start()
    _waiting(waiter, 1)
    script = ("import json, sys\n"
              "from referee.queue import InlineQueue\nfrom referee.system import assemble\n"
              "from referee.store import open_store\n"
              "svc = assemble(open_store(sys.argv[1]), InlineQueue())\n"
              "who = svc.caller(sys.argv[2], sys.argv[3])\n"
              "print(json.dumps(svc.submit(sys.argv[2], who, {'move': json.loads(sys.argv[4])})['version']))\n")
    env = {**os.environ, "PYTHONPATH": str(repo_root())}
    done = subprocess.run([sys.executable, "-c", script, url, g.id, g.tokens[seat], json.dumps(move)],
                          env=env, capture_output=True, text=True, timeout=60)
    moved = time.monotonic()
    assert done.returncode == 0, done.stderr
    poll.join(10)
    assert poll.answer.status_code == 200
    assert poll.done - moved < 1.0
    assert [e["seq"] for e in poll.answer.json["events"]][0] == s["version"] + 1


def test_a_long_poll_with_nothing_new_answers_empty_when_its_time_is_up(tmp_path):
    app = instance(f"sqlite:///{tmp_path}/games.db")
    g = Game(app.test_client(), "king-of-danger", 3)
    v = g.summary()["version"]
    start = time.monotonic()
    r = g.get("/events", after=v, wait=1)
    took = time.monotonic() - start
    assert r.status_code == 200 and r.json == {"version": v, "events": []}
    assert 0.95 <= took < 3
    assert "Retry-After" not in r.headers
    # news already there: answered at once, whatever the wait
    start = time.monotonic()
    r = g.get("/events", after=0, wait=25)
    assert time.monotonic() - start < 1 and [e["seq"] for e in r.json["events"]] == list(range(1, v + 1))


def test_past_the_bound_a_long_poll_is_answered_at_once(tmp_path):
    app = instance(f"sqlite:///{tmp_path}/games.db", places=2)
    g = Game(app.test_client(), "kings-keys", 3)
    v = g.summary()["version"]
    polls = [Poll(app, g.id, v, 20) for _ in range(2)]
    for p in polls:
        p.start()
    _waiting(app, 2)
    start = time.monotonic()
    r = g.get("/events", after=v, wait=20)  # every place is taken
    assert time.monotonic() - start < 1
    assert r.status_code == 200 and r.json == {"version": v, "events": []}
    assert r.headers["Retry-After"] == str(follow.BUSY_RETRY)
    # news is answered as always, place or no place
    r = g.get("/events", after=v - 1, wait=20)
    assert [e["seq"] for e in r.json["events"]] == [v]
    _move(g, random.Random(3))
    for p in polls:
        p.join(10)
        assert p.answer.status_code == 200 and p.answer.json["events"]
    assert app.extensions["referee-waiters"].waiting == 0


def test_the_default_bound_leaves_half_the_threads_free(monkeypatch):
    monkeypatch.delenv("REFEREE_MAX_WAITERS", raising=False)
    monkeypatch.setenv("REFEREE_THREADS", "8")
    assert follow.Waiters().places == 4
    monkeypatch.setenv("REFEREE_MAX_WAITERS", "10")
    assert follow.Waiters().places == 10
    monkeypatch.setenv("REFEREE_LONGEST_WAIT", "40")  # never past the documented longest
    assert follow.Waiters().longest == follow.LONGEST


@pytest.mark.parametrize("wait", ["-1", "26", "x", "2.5", "", "1e9"])
def test_a_bad_wait_is_refused_by_name_and_changes_nothing(tmp_path, wait):
    app = instance(f"sqlite:///{tmp_path}/games.db")
    g = Game(app.test_client(), "king-of-danger", 3)
    before = app.extensions["referee"].store.raw_events(g.id)
    start = time.monotonic()
    r = g.get("/events", 0, after=0, wait=wait)
    assert time.monotonic() - start < 1
    assert r.status_code == 400 and r.json["code"] == "malformed" and r.json["field"] == "wait", r.json
    assert app.extensions["referee"].store.raw_events(g.id) == before
    # a bad token or an unknown game is refused at once, not after a wait
    start = time.monotonic()
    assert g.client.get(f"/v1/games/{g.id}/events?wait=5&after=99",
                        headers={"Authorization": "Bearer nope"}).status_code == 401
    assert g.client.get("/v1/games/nosuchgame/events?wait=5").status_code == 404
    assert time.monotonic() - start < 1


def test_a_seat_given_away_while_its_old_token_waits_is_refused(tmp_path):
    app = instance(f"sqlite:///{tmp_path}/games.db")
    g = Game(app.test_client(), "king-of-danger", 3)
    v = g.summary()["version"]
    poll = Poll(app, g.id, v, 20, g.auth(0))
    poll.start()
    _waiting(app, 1)
    r = g.client.post(f"/v1/games/{g.id}/seats/0/replace", json={"name": "Dee"}, headers=g.auth("admin"))
    assert r.status_code == 201, r.json
    poll.join(10)
    # the events after the replacement are the new player's: the old token sees none
    assert poll.answer.status_code == 401 and poll.answer.json["code"] == "unauthenticated"


GAMES = [("king-of-danger", 3, {}), ("castle-danger", 2, {"variant": "hidden-danger"}),
         ("king-of-the-castle", 3, {}), ("kings-keys", 3, {})]


@pytest.mark.parametrize("game,players,options", GAMES)
def test_each_long_poll_answers_what_its_caller_may_see(tmp_path, game, players, options):
    """Over random games: every viewer's long poll (each seat, a spectator, the
    organiser) answers exactly the events its plain ``events`` call gives, redacted
    alike, and the seats' answers really are redacted (they differ from the organiser's)."""
    url = f"sqlite:///{tmp_path}/games.db"
    waiter, mover = instance(url), instance(url)
    rnd = random.Random(f"follow-{game}")
    g = Game(mover.test_client(), game, players, options)
    seen = Game.__new__(Game)
    seen.__dict__.update(g.__dict__, client=waiter.test_client())
    viewers = list(range(players)) + [None, "admin"]
    hidden = 0
    for _ in range(6):
        s = g.summary()
        if s["status"] != "active":
            break
        polls = {w: Poll(waiter, g.id, s["version"], 20, g.auth(w)) for w in viewers}
        for p in polls.values():
            p.start()
        _waiting(waiter, len(viewers))
        _move(g, rnd)
        answers = {}
        for w, p in polls.items():
            p.join(10)
            assert p.answer.status_code == 200, p.answer.json
            answers[w] = p.answer.json["events"]
            plain = seen.get("/events", w, after=s["version"]).json["events"]
            assert answers[w] and answers[w] == plain[:len(answers[w])], w
        for w in range(players):
            n = min(len(answers[w]), len(answers["admin"]))
            hidden += answers[w][:n] != answers["admin"][:n]
    # salts stay secret until the end, so a seat's events always differ from the organiser's
    assert hidden


def test_a_stopping_server_answers_its_long_polls_at_once(tmp_path):
    """`referee serve` (gunicorn) sent SIGTERM, as by a restart: a held long poll
    is answered at once with what there is, not cut off or kept for its whole wait."""
    import signal
    import urllib.request

    from tests.conftest import free_port

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
    env["PYTHONPATH"] = str(repo_root())
    proc = subprocess.Popen([sys.executable, "-m", "referee.cli", "serve", "--store", f"sqlite:///{tmp_path}/r.db",
                             "--port", str(port), "--workers", "1", "--threads", "4", "--no-access-log"],
                            cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)

    def call(path, body=None):
        req = urllib.request.Request(base + path, data=None if body is None else json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.loads(r.read())

    try:
        until = time.monotonic() + 60
        while True:
            try:
                if call("/healthz")[0] == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < until and proc.poll() is None, "referee serve did not start"
            time.sleep(0.1)
        _, created = call("/v1/games", {"game": "kings-keys", "players": ["Ann", "Bob", "Cy"]})
        got = {}

        def poll():
            got["answer"] = call(f"/v1/games/{created['id']}/events?after={created['version'] + 50}&wait=25")
            got["at"] = time.monotonic()

        waiter = threading.Thread(target=poll, daemon=True)
        waiter.start()
        time.sleep(1)
        assert waiter.is_alive()  # held
        proc.send_signal(signal.SIGTERM)
        stopped = time.monotonic()
        waiter.join(10)
        assert got["at"] - stopped < 3, "the long poll was held after the stop"
        status, body = got["answer"]
        assert status == 200 and body["events"] == []
        assert proc.wait(15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
