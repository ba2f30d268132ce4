"""A take-back in each of the four games, staged from a seeded deal: a seat
disputes a move, the admin takes the game back to an earlier event, the position,
the legal moves and the log in words follow, play goes on to the end, and the
audit re-derives all of it."""

from __future__ import annotations

import json
import random

import pytest

from referee.audit import audit
from referee.events import Event
from referee.table import Table
from tests.helpers import Game

GAMES = [("king-of-danger", 3, {}), ("castle-danger", 2, {"turn_limit": 12}),
         ("king-of-the-castle", 3, {}), ("kings-keys", 3, {})]


def moves(g: Game, rnd: random.Random, n: int) -> None:
    for _ in range(n):
        s = g.summary()
        seat = rnd.choice(s["to_act"])
        legal = [m for m in g.legal(seat) if m["type"] not in ("resign", "offer-draw", "take-back")]
        r = g.post(seat, {"move": rnd.choice(legal), "expected_version": s["version"]})
        assert r.status_code == 201, r.json


def position_at(g: Game, n: int) -> Table:
    events = [Event.from_dict(json.loads(line)) for line in g.export().splitlines()]
    return Table.replay(events[:n])


@pytest.mark.parametrize("game,players,options", GAMES)
def test_a_take_back_returns_to_the_position_and_play_goes_on_to_an_audited_end(client, game, players, options):
    g = Game(client, game, players, {"seed": f"take-back-{game}", **options})
    rnd = random.Random(game)
    moves(g, rnd, 2)
    to = g.summary()["version"]
    before = {seat: g.get("/view", seat).json["view"] for seat in range(players)}
    legal_then = {seat: g.legal(seat) for seat in range(players)}
    moves(g, rnd, 3)
    version = g.summary()["version"]
    r = g.client.post(f"/v1/games/{g.id}/disputes", json={"text": "that play broke the rules", "seq": version},
                      headers=g.auth(1))
    assert r.status_code == 201, r.json
    d = r.json["dispute"]["id"]
    r = g.client.post(f"/v1/games/{g.id}/rulings", json={"dispute": d, "decision": {"kind": "take-back", "to": to},
                                                          "text": "back to before the disputed play"},
                      headers=g.auth("admin"))
    assert r.status_code == 201, r.json
    assert "receipt" in r.json and r.json["ruling"]["decision"] == {"kind": "take-back", "to": to}
    # the position and the legal moves are those after event `to`, for every seat
    for seat in range(players):
        assert g.get("/view", seat).json["view"] == before[seat]
        assert g.legal(seat) == legal_then[seat]
    assert g.get("/view", 0).json["text"].count("taken back to the position after event") == 1
    # a take-back to before this ruling is refused, naming decision.to, and writes nothing
    d2 = g.client.post(f"/v1/games/{g.id}/disputes", json={"text": "and again"}, headers=g.auth(0)).json
    now = g.summary()["version"]
    r = g.client.post(f"/v1/games/{g.id}/rulings", json={"dispute": d2["dispute"]["id"], "decision": {
        "kind": "take-back", "to": to}, "text": "no"}, headers=g.auth("admin"))
    assert r.status_code == 400 and r.json["field"] == "decision.to", r.json
    assert g.summary()["version"] == now
    r = g.client.post(f"/v1/games/{g.id}/rulings", json={"dispute": d2["dispute"]["id"], "decision": {
        "kind": "dismiss"}, "text": "no"}, headers=g.auth("admin"))
    assert r.status_code == 201
    # a fresh replay of the log (another process, a restart) finds the same position
    replayed = position_at(g, g.summary()["version"])
    assert replayed.engine.view(replayed.state, 0) == g.get("/view", 0).json["view"]
    end = g.play_random(rnd)
    assert end["status"] == "finished"
    report = audit(g.export())
    assert report["valid"], report
    assert report["seed"] == "verified"
    assert report["result"]["winners"] == end["result"]["winners"]


def test_a_log_that_plays_on_as_if_the_take_back_were_not_fails_the_audit(client):
    from tests.test_audit import reseal

    g = Game(client, "king-of-danger", 2, {"seed": "forged-take-back"})
    rnd = random.Random(4)
    moves(g, rnd, 1)
    to = g.summary()["version"]
    moves(g, rnd, 3)
    d = g.client.post(f"/v1/games/{g.id}/disputes", json={"text": "misplay"}, headers=g.auth(0)).json["dispute"]
    ruled = g.client.post(f"/v1/games/{g.id}/rulings", json={"dispute": d["id"], "decision": {
        "kind": "take-back", "to": to}, "text": "back"}, headers=g.auth("admin")).json["ruling"]["seq"]
    moves(g, rnd, 3)
    assert audit(g.export())["valid"]
    lines = [json.loads(line) for line in g.export().splitlines()]
    lines[ruled - 1]["payload"]["decision"] = {"kind": "dismiss"}  # the position never went back
    report = audit(reseal(lines))
    assert not report["valid"] and report["first_error"]["seq"] > ruled, report


@pytest.mark.parametrize("game,players,options", GAMES)
def test_random_games_with_votes_disputes_and_take_backs_audit_at_every_moment(client, game, players, options):
    g = Game(client, game, players, {"seed": f"random-rulings-{game}", **options})
    rnd = random.Random(f"rulings-{game}")
    last_ruling = 0
    checked = 0

    def meddle(game_: Game):
        nonlocal last_ruling, checked
        s = game_.summary()
        if s["status"] != "active" or rnd.random() > 0.15:
            return
        seat = rnd.randrange(players)
        if rnd.random() < 0.5:
            r = game_.client.post(f"/v1/games/{game_.id}/votes", json={"proposal": "pause"},
                                  headers=game_.auth(seat))
            assert r.status_code in (201, 400, 409), r.json
        r = game_.client.post(f"/v1/games/{game_.id}/disputes", json={"text": "look again"}, headers=game_.auth(seat))
        assert r.status_code == 201, r.json
        version = r.json["dispute"]["id"]
        low = max(last_ruling, 1)
        to = rnd.randrange(low, version) if version - low > 1 and rnd.random() < 0.6 else None
        decision = {"kind": "take-back", "to": to} if to else {"kind": "dismiss"}
        r = game_.client.post(f"/v1/games/{game_.id}/rulings", json={
            "dispute": version, "decision": decision, "text": "so"}, headers=game_.auth("admin"))
        if r.status_code == 400 and r.json["field"] == "decision.to":  # the middle of a move: not a position
            assert "in the middle of" in r.json["detail"], r.json
            r = game_.client.post(f"/v1/games/{game_.id}/rulings", json={
                "dispute": version, "decision": {"kind": "dismiss"}, "text": "so"}, headers=game_.auth("admin"))
        assert r.status_code == 201, r.json
        last_ruling = r.json["ruling"]["seq"]
        if checked % 3 == 0:  # a running game's export audits at any moment (every third: time)
            report = audit(game_.export())
            assert report["valid"], report
        checked += 1

    g.play_random(rnd, on_step=meddle)
    assert checked >= 2
    report = audit(g.export())
    assert report["valid"] and report["seed"] == "verified", report


def test_a_take_back_into_the_middle_of_a_move_is_refused(client):
    g = Game(client, "king-of-danger", 2, {"seed": "middle"})
    rnd = random.Random(5)
    events = []
    while not any(e["type"] == "trick-won" and isinstance(e["actor"], int) for e in events):
        moves(g, rnd, 1)
        events = g.get("/events", "admin", limit=1000).json["events"]
    won = next(e for e in events if e["type"] == "trick-won" and isinstance(e["actor"], int))
    d = g.client.post(f"/v1/games/{g.id}/disputes", json={"text": "x"}, headers=g.auth(0)).json["dispute"]
    version = g.summary()["version"]
    r = g.client.post(f"/v1/games/{g.id}/rulings", json={"dispute": d["id"], "decision": {
        "kind": "take-back", "to": won["seq"] - 1}, "text": "back"}, headers=g.auth("admin"))
    assert r.status_code == 400 and r.json["field"] == "decision.to", r.json
    assert g.summary()["version"] == version
    r = g.client.post(f"/v1/games/{g.id}/rulings", json={"dispute": d["id"], "decision": {
        "kind": "take-back", "to": won["seq"]}, "text": "back"}, headers=g.auth("admin"))
    assert r.status_code == 201, r.json
    assert audit(g.export())["valid"]
