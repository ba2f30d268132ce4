"""The record a process keeps for moves (GameService.caller(kept=True)): a move
reads nothing before its append, and yet the kept copy never changes an answer.
Two apps on one store stand for two API processes."""

from __future__ import annotations

import pytest

from referee.api import create_app
from referee.events import GENESIS, Draft, chain
from referee.store import Conflict, GameRecord, open_store
from referee.system import assemble
from tests.helpers import Game


def two_processes(store_url):
    a = create_app(assemble(open_store(store_url))).test_client()
    b = create_app(assemble(open_store(store_url))).test_client()
    return a, b


def move_on(g: Game, client) -> None:
    """One legal move (not a resignation) of the seat to act, through ``client``."""
    seat = g.summary()["to_act"][0]
    move = next(m for m in g.legal(seat) if m["type"] != "resign")
    r = client.post(f"/v1/games/{g.id}/moves", json={"move": move}, headers=g.auth(seat))
    assert r.status_code == 201, r.json


def until_another_seat_acts(g: Game, client) -> None:
    """Moves through ``client`` until the seat to act is another one."""
    first = g.summary()["to_act"][0]
    for _ in range(200):
        move_on(g, client)
        if g.summary()["to_act"][0] != first:
            return
    raise AssertionError("the turn never passed")


def test_a_replaced_token_cannot_move_where_the_record_was_kept(store_url):
    a, b = two_processes(store_url)
    g = Game(a, "castle-danger", ["Ann", "Bob"])
    move_on(g, b)  # b keeps the record now
    seat = g.summary()["to_act"][0]
    old = g.tokens[seat]
    r = a.post(f"/v1/games/{g.id}/seats/{seat}/replace", json={"name": "Cleo"}, headers=g.auth("admin"))
    assert r.status_code == 201, r.json
    g.tokens[seat] = r.json["token"]
    move = next(m for m in g.legal(seat) if m["type"] != "resign")
    before = g.summary()["version"]
    # the old token, through the process that kept the record it was in: refused,
    # and nothing written
    r = b.post(f"/v1/games/{g.id}/moves", json={"move": move}, headers={"Authorization": f"Bearer {old}"})
    assert r.status_code == 401 and r.json["code"] == "unauthenticated", r.json
    assert g.summary()["version"] == before
    # the new token, which the kept copy never held: it plays there
    r = b.post(f"/v1/games/{g.id}/moves", json={"move": move}, headers=g.auth(seat))
    assert r.status_code == 201, r.json
    assert g.summary()["version"] == before + 1


def test_a_token_replaced_between_the_check_and_the_append_is_refused(store_url, monkeypatch):
    """The race: the kept copy admits the old token, then another process rewrites
    the record before the move's append. The append's compare-and-set on the
    record's text refuses it; decided again on the fresh record, the move is 401."""
    a, b = two_processes(store_url)
    g = Game(a, "castle-danger", ["Ann", "Bob"])
    move_on(g, b)
    seat = g.summary()["to_act"][0]
    move = next(m for m in g.legal(seat) if m["type"] != "resign")
    svc_b = b.application.extensions["referee"]
    real = svc_b.store.append
    replaced = {}

    def replace_first(*args, **kw):  # another process replaces the seat meanwhile
        if not replaced:
            r = a.post(f"/v1/games/{g.id}/seats/{seat}/replace", json={"name": "Cleo"},
                       headers=g.auth("admin"))
            assert r.status_code == 201, r.json
            replaced["token"] = r.json["token"]
        return real(*args, **kw)

    monkeypatch.setattr(svc_b.store, "append", replace_first)
    r = b.post(f"/v1/games/{g.id}/moves", json={"move": move}, headers=g.auth(seat))
    assert r.status_code == 401, r.json
    assert [e["type"] for e in a.get(f"/v1/games/{g.id}/events?limit=1000",
                                     headers=g.auth("admin")).json["events"]][-1] == "seat-replaced"


def test_a_move_is_judged_on_the_game_as_it_is_not_as_kept(store_url):
    a, b = two_processes(store_url)
    g = Game(a, "castle-danger", ["Ann", "Bob"])
    move_on(g, b)  # b keeps the record (and the table) at this version
    until_another_seat_acts(g, a)
    # Legal now, but not the kept copy's seat to act: b must not refuse it.
    move_on(g, b)
    # And the other way round: a move b's copy finds legal that is no longer.
    seat = g.summary()["to_act"][0]
    stale = next(m for m in g.legal(seat) if m["type"] != "resign")
    until_another_seat_acts(g, a)
    before = g.summary()["version"]
    r = b.post(f"/v1/games/{g.id}/moves", json={"move": stale}, headers=g.auth(seat))
    assert r.status_code != 201, r.json
    assert g.summary()["version"] == before
    # a process that never kept the record refuses it the same way
    fresh = create_app(assemble(open_store(store_url))).test_client()
    plain = fresh.post(f"/v1/games/{g.id}/moves", json={"move": stale}, headers=g.auth(seat))
    assert (r.status_code, r.json["code"]) == (plain.status_code, plain.json["code"]), (r.json, plain.json)


def test_a_kept_record_spares_the_read(store_url, monkeypatch):
    """Once a process has kept a game's record, its moves read none before the
    append (the read this saves is what the copy is for)."""
    app = create_app(assemble(open_store(store_url)))
    c = app.test_client()
    g = Game(c, "castle-danger", ["Ann", "Bob"])
    move_on(g, c)
    store = app.extensions["referee"].store
    reads = []
    real = store.record
    monkeypatch.setattr(store, "record", lambda gid: reads.append(gid) or real(gid))
    seat = g.summary()["to_act"][0]
    move = next(m for m in g.legal(seat) if m["type"] != "resign")
    reads.clear()
    r = c.post(f"/v1/games/{g.id}/moves", json={"move": move}, headers=g.auth(seat))
    assert r.status_code == 201, r.json
    assert reads == []


def test_the_append_compares_the_record_text(store):
    first = chain([Draft("game-created", {"id": "k1"})], "referee", 1, GENESIS)[0]
    store.create(GameRecord("k1", "toy", first.at, ["a", "b"], {"h": 0}, "seed"), first)
    rec = store.record("k1")
    assert rec.raw is not None and "raw" not in rec.to_dict()
    other = store.record("k1")
    other.extra = {"note": "rewritten"}
    store.put_record(other)
    nxt = chain([Draft("x", {})], 0, 2, first.hash)
    with pytest.raises(Conflict) as lost:
        store.append("k1", 1, nxt, status="active", record_text=rec.raw)
    assert lost.value.current == 1  # the log did not move: the record did
    assert store.record("k1").version == 1 and len(store.events("k1")) == 1
    store.append("k1", 1, nxt, status="active", record_text=store.record("k1").raw)
    assert store.record("k1").version == 2 and store.record("k1").extra == {"note": "rewritten"}


def test_a_record_rewritten_without_a_move_reaches_the_next_move(store_url):
    """Contacts change beside the log (no event, the version stays): the process
    that kept the record must not act on the old copy. Its next move's notices go
    to the contact given meanwhile in another process."""
    a, b = two_processes(store_url)
    g = Game(a, "castle-danger", ["Ann", "Bob"])
    move_on(g, b)  # b keeps the record: no contact anywhere
    assert a.get(f"/v1/games/{g.id}/notices", headers=g.auth("admin")).json["notices"] == []
    for seat in (0, 1):
        r = a.put(f"/v1/games/{g.id}/contacts/{seat}", json={"email": f"p{seat}@example.org"},
                  headers=g.auth("admin"))
        assert r.status_code == 200, r.json
    until_another_seat_acts(g, b)
    notices = a.get(f"/v1/games/{g.id}/notices", headers=g.auth("admin")).json["notices"]
    assert notices, "the move was told with the record b kept from before the contacts"


@pytest.mark.parametrize("game,players,seed", [("castle-danger", 2, 7), ("king-of-danger", 3, 8)])
def test_two_processes_judge_every_move_as_a_fresh_read_would(store_url, game, players, seed):
    """Random moves through two processes at random, each keeping its own copy of
    the record, which the other's moves keep making stale; half of the moves are
    ones that were legal at some earlier moment. Each is accepted exactly when a
    process that keeps nothing finds it legal just before, and a refused one
    writes nothing."""
    import random

    from referee.service import Caller

    apps = two_processes(store_url)
    judge = assemble(open_store(store_url))  # reads afresh: forget() before each look
    rnd = random.Random(seed)
    g = Game(apps[0], game, players, {"seed": f"kept-{seed}"})
    seen: list[tuple[int, dict]] = []
    accepted = refused = 0

    def playable(seat):  # no move that would end the game early (a resignation, a draw)
        return [m for m in judge.legal(g.id, Caller(seat))["moves"]
                if m["type"] not in ("resign", "offer-draw", "accept-draw", "take-back")]

    for _ in range(120):
        judge.forget()
        if judge.summary(g.id)["status"] != "active":
            break
        seat = rnd.randrange(players)
        legal_now = playable(seat)
        seen += [(seat, m) for m in legal_now]
        if legal_now and rnd.random() < 0.5:
            move = rnd.choice(legal_now)
        else:  # a move this or another seat could make at some moment before
            seat, move = rnd.choice(seen) if seen else (seat, {"type": "end"})
            legal_now = playable(seat)
        before = judge.summary(g.id)["version"]
        r = rnd.choice(apps).post(f"/v1/games/{g.id}/moves", json={"move": move}, headers=g.auth(seat))
        judge.forget()
        if move in legal_now:
            assert r.status_code == 201, (move, r.json)
            accepted += 1
        else:
            assert r.status_code != 201 and 400 <= r.status_code < 500, (move, r.json)
            assert judge.summary(g.id)["version"] == before
            refused += 1
    assert accepted >= 20 and refused >= 20, (accepted, refused)  # both paths walked, often
