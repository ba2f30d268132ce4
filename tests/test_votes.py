"""Votes in every game: a draw, a cancel, a pause and a resume, carried by every
seat's yes and ended by one no or the next move; the audit replays them."""

from __future__ import annotations

import pytest

from referee.audit import audit
from tests.helpers import Game

GAMES = [("king-of-danger", 3), ("castle-danger", 2), ("king-of-the-castle", 3), ("kings-keys", 3)]


def vote(g: Game, seat: int, proposal: str):
    return g.client.post(f"/v1/games/{g.id}/votes", json={"proposal": proposal}, headers=g.auth(seat))


def answer(g: Game, seat, vote_id, yes):
    return g.client.post(f"/v1/games/{g.id}/votes/{vote_id}", json={"yes": yes}, headers=g.auth(seat))


def a_move(g: Game) -> tuple[int, dict]:
    s = g.summary()
    seat = s["to_act"][0]
    move = next(m for m in g.legal(seat) if m["type"] not in ("resign", "offer-draw", "take-back"))
    return seat, move


@pytest.mark.parametrize("game,players", GAMES)
def test_a_draw_carried_by_every_seat_ends_the_game_with_every_seat_winning(client, game, players):
    g = Game(client, game, players, {"seed": 7})
    r = vote(g, 0, "draw")
    assert r.status_code == 201, r.json
    assert r.json["vote"] == {"id": r.json["events"][0]["seq"], "proposal": "draw", "by": 0,
                              "state": "open", "yes": [0]}
    assert "receipt" in r.json
    vote_id = r.json["vote"]["id"]
    for seat in range(1, players - 1):
        r = answer(g, seat, vote_id, True)
        assert r.status_code == 201 and r.json["vote"]["state"] == "open", r.json
    r = answer(g, players - 1, vote_id, True)
    assert r.status_code == 201, r.json
    assert r.json["vote"]["state"] == "carried"
    s = g.summary()
    assert s["status"] == "finished"
    assert s["result"]["winners"] == list(range(players))
    types = [e["type"] for e in g.get("/events").json["events"]]
    assert types[-3:] == ["voted", "vote-carried", "seed-revealed"]
    # an answer to a vote that has ended
    r = answer(g, 1, vote_id, True)
    assert r.status_code == 409 and r.json["code"] in ("vote-closed", "game-over"), r.json
    report = audit(g.export())
    assert report["valid"], report
    assert report["result"]["winners"] == list(range(players))


@pytest.mark.parametrize("game,players", GAMES)
def test_one_no_ends_a_vote_and_the_game_goes_on(client, game, players):
    g = Game(client, game, players, {"seed": 8})
    vote_id = vote(g, 1, "cancel").json["vote"]["id"]
    r = answer(g, 0, vote_id, False)
    assert r.status_code == 201, r.json
    assert r.json["vote"]["state"] == "failed"
    assert r.json["vote"]["reason"] == "seat 0 said no"
    assert g.summary()["status"] == "active"
    version = g.summary()["version"]
    r = answer(g, 2 if players > 2 else 0, vote_id, True)
    assert r.status_code == 409 and r.json["code"] == "vote-closed", r.json
    assert g.summary()["version"] == version  # nothing written
    seat, move = a_move(g)
    assert g.post(seat, {"move": move}).status_code == 201
    report = audit(g.export())
    assert report["valid"], report


@pytest.mark.parametrize("game,players", GAMES)
def test_the_next_move_ends_a_vote(client, game, players):
    g = Game(client, game, players, {"seed": 9})
    seat, move = a_move(g)
    vote_id = vote(g, (seat + 1) % players, "draw").json["vote"]["id"]
    r = g.post(seat, {"move": move})
    assert r.status_code == 201, r.json
    events = g.get("/events", after=vote_id).json["events"]
    failed = [e for e in events if e["type"] == "vote-failed"]
    assert failed and failed[0]["payload"]["reason"] == "a move was made before every seat answered"
    r = answer(g, seat, vote_id, True)
    assert r.status_code == 409 and r.json["code"] == "vote-closed"
    assert g.summary()["status"] == "active"
    report = audit(g.export())
    assert report["valid"], report


@pytest.mark.parametrize("game,players", GAMES)
def test_a_cancel_carried_aborts_the_game_unrated(client, game, players):
    g = Game(client, game, players, {"seed": 10})
    vote_id = vote(g, 0, "cancel").json["vote"]["id"]
    for seat in range(1, players):
        assert answer(g, seat, vote_id, True).status_code == 201
    s = g.summary()
    assert s["status"] == "aborted" and s["result"]["winners"] == []
    report = audit(g.export())
    assert report["valid"], report


def test_a_pause_carried_stops_the_clocks_until_a_resume_carries(client):
    g = Game(client, "kings-keys", 3, {"seed": 11, "clock": {"move_seconds": 600}})
    assert g.summary()["deadlines"]
    vote_id = vote(g, 0, "pause").json["vote"]["id"]
    assert g.summary()["deadlines"]  # the clocks run while the seats answer
    for seat in (1, 2):
        answer(g, seat, vote_id, True)
    s = g.summary()
    assert s["deadlines"] == [] and s["clock"]["paused"] is True
    r = vote(g, 1, "pause")
    assert r.status_code == 400 and r.json["field"] == "proposal"
    vote_id = vote(g, 2, "resume").json["vote"]["id"]
    for seat in (0, 1):
        answer(g, seat, vote_id, True)
    s = g.summary()
    assert s["deadlines"] and s["clock"]["paused"] is False
    report = audit(g.export())
    assert report["valid"], report


@pytest.mark.parametrize("who,body,status,code,field", [
    ("admin", {"proposal": "draw"}, 403, "not-your-seat", None),
    (None, {"proposal": "draw"}, 401, "unauthenticated", None),
    (0, {"proposal": "surrender"}, 400, "malformed", "proposal"),
    (0, {"proposal": "draw", "why": "tired"}, 400, "malformed", "why"),
    (0, {"proposal": "resume"}, 400, "malformed", "proposal"),
])
def test_a_bad_vote_is_refused_and_writes_nothing(client, who, body, status, code, field):
    g = Game(client, "king-of-danger", 2, {"seed": 12})
    before = g.summary()["version"]
    r = client.post(f"/v1/games/{g.id}/votes", json=body, headers=g.auth(who))
    assert r.status_code == status, r.json
    assert r.content_type == "application/problem+json"
    assert r.json["code"] == code
    if field:
        assert r.json["field"] == field
    assert g.summary()["version"] == before


def test_one_vote_at_a_time_and_answers_are_each_seats_once(client):
    g = Game(client, "king-of-danger", 3, {"seed": 13})
    vote_id = vote(g, 0, "draw").json["vote"]["id"]
    assert vote(g, 1, "cancel").json["code"] == "vote-open"
    r = answer(g, 0, vote_id, True)  # the proposer said yes by proposing
    assert r.status_code == 409 and r.json["code"] == "vote-closed"
    r = answer(g, 1, vote_id + 5, True)
    assert r.status_code == 404 and r.json["code"] == "no-such-vote"
    r = answer(g, 1, vote_id, "maybe")
    assert r.status_code == 400 and r.json["field"] == "yes"
    r = answer(g, "admin", vote_id, True)
    assert r.status_code == 403
    assert g.summary()["version"] == vote_id


def test_a_seat_not_to_act_is_told_of_a_vote_to_answer(client, service, smtp):
    from referee.mail import sending

    emails = ["ann@example.org", "bob@example.org", "cy@example.org"]
    g = Game(client, "kings-keys", [{"name": n, "email": e} for n, e in zip(["Ann", "Bob", "Cy"], emails, strict=True)],
             {"seed": 14})
    sending.deliver_due(service)
    seat = g.summary()["to_act"][0]
    other = (seat + 1) % 3
    vote_id = vote(g, seat, "draw").json["vote"]["id"]
    sending.deliver_due(service)
    told = smtp.inbox.to(emails[other])[-1]
    assert "a vote to answer" in told["Subject"]
    text = told.get_body(("plain",)).get_content()
    assert f"/v1/games/{g.id}/votes/{vote_id}" in text and "proposes a draw" in text
