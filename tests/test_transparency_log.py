"""The transparency log's integration (referee/transparency/log.py, keeping.py), on
both stores: every event of every game and league becomes one leaf, in a batch,
within moments of its append; the checkpoint is signed, its root the tree of
those leaves; integrating again doubles nothing; two sequencers at once write
each leaf once."""

from __future__ import annotations

import base64
import random
import threading
import time

import nacl.signing

from referee.transparency import merkle, notes
from referee.transparency.keeping import tree_of
from referee.transparency.log import TransparencyLog
from tests.helpers import Game
from tests.leagues.test_leagues_http import create, players

KOD = "king-of-danger"


def settled(service, seconds: float = 10.0) -> None:
    """Until the sequencer has integrated every noted event and published its head."""
    tlog = service.transparency
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        tlog.integrate()
        head = tlog.tree.checkpoint()
        if not tlog.tree.pending() and head is not None and head[0] == tlog.tree.size():
            return
        time.sleep(0.05)
    raise AssertionError("the transparency log did not settle")


def moves(g: Game, n: int, rnd: random.Random) -> None:
    """``n`` random legal moves (or fewer, if the game ends)."""
    for _ in range(n):
        s = g.summary()
        if s["status"] != "active":
            return
        seat = rnd.choice(s["to_act"])
        legal = [m for m in g.legal(seat) if m["type"] not in ("resign", "offer-draw", "take-back")]
        assert g.post(seat, {"move": rnd.choice(legal)}).status_code == 201


def every_event(client, game_id: str) -> list[dict]:
    return client.get(f"/v1/games/{game_id}/events", query_string={"limit": 1000}).json["events"]


def head(service) -> notes.Checkpoint:
    note = notes.parse_note(service.transparency.checkpoint())
    return notes.parse_checkpoint(note.text)


def checked_by_pynacl(service, whole: str) -> notes.Checkpoint:
    """The checkpoint's note signature checked with PyNaCl, against GET /v1/keys's
    current key: key name the origin, key ID SHA-256(name \\n 0x01 key)[:4]."""
    import hashlib

    text, _, sigs = whole.partition("\n\n")
    origin = text.split("\n")[0]
    public = service.receipts.ring.current().public
    kid = hashlib.sha256(origin.encode() + b"\n\x01" + public).digest()[:4]
    line = next(s for s in sigs.split("\n") if s.startswith(f"\u2014 {origin} "))
    raw = base64.b64decode(line.rsplit(" ", 1)[1])
    assert raw[:4] == kid
    nacl.signing.VerifyKey(public).verify((text + "\n").encode(), raw[4:])
    return notes.parse_checkpoint(text + "\n")


def test_every_event_of_a_game_is_a_leaf_once(client, service):
    g = Game(client, KOD, 3, {"seed": "tlog-1"})
    moves(g, 12, random.Random(1))
    settled(service)
    events = every_event(client, g.id)
    tree = service.transparency.tree
    got = tree.leaves(0, tree.size())
    assert got == [f"{g.id}\n{ev['seq']}\n{ev['hash']}" for ev in events]
    cp = checked_by_pynacl(service, service.transparency.checkpoint())
    assert cp.size == len(events)
    assert cp.root == merkle.root(cp.size, tree)
    nodes = merkle.MemoryNodes()
    nodes.append([merkle.leaf_hash(d.encode()) for d in got])
    assert cp.root == merkle.root(cp.size, nodes)
    # again, and again: nothing doubles
    service.transparency.integrate(sweep=True)
    service.transparency.integrate()
    assert tree.size() == len(events)
    # more moves: only the new events follow
    seat = g.summary()["to_act"][0]
    g.post(seat, {"move": g.legal(seat)[0]})
    settled(service)
    assert tree.leaves(0, tree.size()) == [f"{g.id}\n{ev['seq']}\n{ev['hash']}" for ev in every_event(client, g.id)]
    for i, ev in enumerate(every_event(client, g.id)):
        proof = service.transparency.inclusion(g.id, ev["seq"], tree.size())
        assert proof["index"] == i
        leaf = merkle.leaf_hash(f"{g.id}\n{ev['seq']}\n{ev['hash']}".encode())
        assert merkle.verify_inclusion(i, tree.size(), leaf, [base64.b64decode(h) for h in proof["hashes"]],
                                       head(service).root)


def test_a_leagues_events_are_leaves_too(client, service):
    league = create(client, players(client, 4))
    settled(service)
    service.transparency.integrate(sweep=True)  # a league's own appends are found by the sweep
    tree = service.transparency.tree
    leaves = tree.leaves(0, tree.size())
    league_leaves = [d for d in leaves if d.startswith(league["id"] + "\n")]
    assert league_leaves and [int(d.split("\n")[1]) for d in league_leaves] == list(
        range(1, len(league_leaves) + 1))
    games = {d.split("\n")[0] for d in leaves} - {league["id"]}
    assert games  # the league's games, played by bots, are in it as well
    assert len(leaves) == len(set(leaves))


def test_the_origin_stays_across_restarts(store, service):
    origin = service.transparency.origin
    again = TransparencyLog(store, None, service.receipts.ring, tree_of(store))
    assert again.origin == origin


def test_two_sequencers_at_once_write_each_leaf_once(client, service, store):
    g = Game(client, KOD, 3, {"seed": "tlog-2"})
    moves(g, 30, random.Random(2))
    others = [TransparencyLog(store, service.transparency.leagues, service.receipts.ring, tree_of(store))
              for _ in range(3)]
    for other in others:
        other.tree.note(g.id, g.summary()["version"])  # each believes the game has events to integrate
    failed = []

    def integrate(o):
        try:
            o.integrate(sweep=True)
        except Exception as err:  # a sequencer that lost the race must say so, not crash
            failed.append(repr(err))

    threads = [threading.Thread(target=integrate, args=(o,)) for o in others]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failed == []
    settled(service)
    tree = service.transparency.tree
    leaves = tree.leaves(0, tree.size())
    assert leaves == [f"{g.id}\n{ev['seq']}\n{ev['hash']}" for ev in every_event(client, g.id)]


def test_on_rq_the_transparency_job_integrates_on_a_real_worker(redis_url):
    """With Redis jobs, an append queues the ``transparency`` job (noted in Redis);
    a real `referee worker` integrates the noted events and publishes the head."""
    from referee.caller import Caller
    from referee.queue import RQQueue
    from referee.store import open_store
    from referee.system import assemble
    from tests.test_workers import run_burst

    svc = assemble(open_store(redis_url), RQQueue(redis_url))
    gid = svc.create("king-of-danger", ["a", "b"], {"seed": "rq-tlog"})["id"]
    svc.transparency.flush()  # (the courier's round, a moment after the append)
    assert svc.transparency.tree.pending() == {gid: 1}  # noted where any worker finds it
    assert svc.queue.rq.count >= 1
    run_burst(redis_url, redis_url)  # deals (settle) and integrates
    s = svc.summary(gid)
    svc.submit(gid, Caller(s["to_act"][0]), {"move": svc.legal(gid, Caller(s["to_act"][0]))["moves"][0]})
    svc.transparency.flush()
    run_burst(redis_url, redis_url)
    tree = svc.transparency.tree
    events = svc.store.events(gid)
    assert tree.leaves(0, tree.size()) == [f"{gid}\n{ev.seq}\n{ev.hash}" for ev in events]
    assert tree.checkpoint()[0] == tree.size() == len(events)
    assert tree.pending() == {}


def test_an_idle_sequencer_ends_and_the_next_append_starts_another(client, service):
    """A process's sequencer thread started by appends ends when none come for a
    while (no thread per service left waiting forever); the next append starts
    another, and its events are integrated all the same."""
    g = Game(client, KOD, 3, {"seed": "tlog-idle"})
    tlog = service.transparency
    first = tlog.sequencer()
    first.idle = 0.05
    first.wake()  # (its wait now ends after the shorter idle time)
    first.join(10)
    assert not first.is_alive() and first.ended
    moves(g, 1, random.Random(9))
    second = tlog._thread
    assert second is not first and second.is_alive()
    settled(service)
    tree = tlog.tree
    assert tree.leaves(0, tree.size()) == [f"{g.id}\n{ev['seq']}\n{ev['hash']}" for ev in every_event(client, g.id)]


def test_the_origin_is_the_operators_when_set_before_the_first_checkpoint(tmp_path, monkeypatch):
    from referee.store import open_store
    from referee.system import assemble

    monkeypatch.setenv("REFEREE_TLOG_ORIGIN", "referee.example/tlog")
    service = assemble(open_store(f"sqlite:///{tmp_path}/o.db"))
    assert notes.parse_note(service.transparency.checkpoint()).text.startswith("referee.example/tlog\n")
    monkeypatch.setenv("REFEREE_TLOG_ORIGIN", "elsewhere.example/tlog")  # kept: the log keeps its name
    again = assemble(open_store(f"sqlite:///{tmp_path}/o.db"))
    assert again.transparency.origin == "referee.example/tlog"
