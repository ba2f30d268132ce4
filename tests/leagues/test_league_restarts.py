"""A league survives its process killed with -9 at the worst moments, on both stores:
while a round's games are being made, and when a game's end has queued the job
that records its result (the job lost with the process). The next `referee serve`
(embedded, SQLite) or `referee worker` (Redis) heals it as it starts: every step
owed is done once, every game the league lists is there, the league plays on to
its end and its export audits valid."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from referee.leagues import audit_league, running
from referee.leagues.keeping import leagues_of
from referee.queue import InlineQueue
from referee.store import open_store
from referee.system import assemble
from tests.test_clock_restarts import kill
from tests.test_durability import ROOT, Server
from tests.test_redis_faults import spawn

# A process that plays a league in embedded mode (every job in-process) on the store
# it is given and kills itself with -9 at the moment named:
# - "pairing": a swiss of eight bots, once two of round 2's four games are made;
# - "job": a round-robin of Ann and three bots, when Ann's finished game (played
#   here, a legal move at a time) queues the job that would record its result.
DIES = r"""
import json, os, signal, sys
from referee.caller import Caller
from referee.leagues import running
from referee.leagues.keeping import leagues_of
from referee.players import accounts
from referee.queue import InlineQueue
from referee.store import open_store
from referee.system import assemble
from tests.leaguetools import started

store, moment = sys.argv[1], sys.argv[2]
svc = assemble(open_store(store), InlineQueue())

def die(**said):
    print(json.dumps(said), flush=True)
    os.kill(os.getpid(), signal.SIGKILL)

bots = [accounts.register(svc, {"name": f"Bot{i}", "bot": "random"})["id"] for i in range(8)]
if moment == "pairing":
    create, made = svc.create, []
    def dying(game, players, options=None, **kw):
        out = create(game, players, options, **kw)
        if "r2t" in kw["game_id"]:
            made.append(kw["game_id"])
            if len(made) == 2:
                die(league=leagues_of(svc).page()[0]["id"], made=made)
        return out
    svc.create = dying
    started(svc, {"name": "Killed", "game": "king-of-danger", "options": {"target": 1},
                         "format": "swiss", "rounds": 3, "players": bots})
else:
    ann = accounts.register(svc, {"name": "Ann"})
    league = started(svc, {"name": "Killed", "game": "king-of-danger", "options": {"target": 1},
                                  "format": "round-robin", "players": [ann["id"]] + bots[:3]})
    mine = next(g["game"] for g in league["rounds"][0]["games"] if ann["id"] in g["seats"])
    enqueue = svc.queue.enqueue
    def dying(kind, game_id):
        if kind == "league-result":
            die(league=league["id"], game=game_id, ann=ann["id"])
        enqueue(kind, game_id)
    svc.queue.enqueue = dying
    for _ in range(500):
        summary = svc.summary(mine)
        if summary["status"] != "active":
            break
        seat = Caller(summary["to_act"][0])
        svc.submit(mine, seat, {"move": svc.legal(mine, seat)["moves"][0]})
print("not killed", flush=True)
"""


def die_at(store: str, moment: str) -> dict:
    path = os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")]))
    proc = subprocess.run([sys.executable, "-c", DIES, store, moment], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": path})
    assert proc.returncode == -9, proc.stdout + proc.stderr  # killed where it meant to be
    return json.loads(proc.stdout.splitlines()[0])


def left_owing(store: str, said: dict) -> list[str]:
    """What the killed process left: the league's events; it is marked as owing."""
    service = assemble(open_store(store), InlineQueue())
    assert said["league"] in leagues_of(service).owing()
    return [ev.type for ev in leagues_of(service).events(said["league"])]


def played_once(store: str, league_id: str, until) -> dict:
    """Wait for ``until(view)``; then every listed game is there, every result and
    step was written once, and the export audits valid."""
    service = assemble(open_store(store), InlineQueue())
    deadline = time.time() + 90
    while not until(view := running.view(service, league_id)):
        assert time.time() < deadline, view
        time.sleep(0.2)
    events = leagues_of(service).events(league_id)
    listed = [t["game"] for ev in events if ev.type == "round-paired" for t in ev.payload["tables"]]
    assert all(service.store.record(g) is not None for g in listed)
    recorded = [ev.payload["game"] for ev in events if ev.type == "result-recorded"]
    assert len(set(recorded)) == len(recorded) and set(recorded) <= set(listed)
    paired = [ev.payload["round"] for ev in events if ev.type == "round-paired"]
    assert paired == list(range(1, len(paired) + 1))
    report = audit_league(running.export(service, league_id))
    assert report["valid"], report["first_error"]
    return {"view": view, "types": [ev.type for ev in events], "listed": listed, "recorded": recorded}


def finished(view) -> bool:
    return view["status"] == "finished"


def round_two_paired(view) -> bool:
    return len(view["rounds"]) == 2


def check(moment: str, said: dict, store: str) -> None:
    if moment == "pairing":
        done = played_once(store, said["league"], finished)
        assert done["types"].count("round-paired") == 3 and done["types"][-1] == "seed-revealed"
        assert set(said["made"]) <= set(done["listed"])  # the games made before the kill, kept
    else:  # Ann's result recorded once, round 2 paired, her new game waiting on her
        done = played_once(store, said["league"], round_two_paired)
        assert said["game"] in done["recorded"] and done["view"]["rounds"][0]["closed"]
        mine = next(g["game"] for g in done["view"]["rounds"][1]["games"] if said["ann"] in g["seats"])
        assert assemble(open_store(store), InlineQueue()).summary(mine)["status"] == "active"


@pytest.mark.parametrize("moment", ["pairing", "job"])
def test_embedded_serve_killed_heals_its_leagues_when_it_starts(tmp_path, moment):
    store = f"sqlite:///{tmp_path / 'referee.db'}"
    said = die_at(store, moment)
    types = left_owing(store, said)
    assert types.count("round-paired") == 1  # round 2: nothing logged, and no job will come
    server = Server(store, tmp_path)
    try:
        check(moment, said, store)
        for rnd in server.call("GET", f"/v1/leagues/{said['league']}")[1]["rounds"]:
            for g in rnd["games"]:  # as a player would find them: none answers 404
                assert server.call("GET", f"/v1/games/{g['game']}")[0] == 200
    finally:
        server.kill()


@pytest.mark.parametrize("moment", ["pairing", "job"])
def test_a_worker_started_on_redis_heals_the_leagues_a_killed_process_left(redis_url, moment):
    said = die_at(redis_url, moment)
    types = left_owing(redis_url, said)
    assert types.count("round-paired") == 1
    procs = [spawn("worker", env={**os.environ, "REFEREE_STORE": redis_url})]
    try:
        check(moment, said, redis_url)
    finally:
        kill(procs)
