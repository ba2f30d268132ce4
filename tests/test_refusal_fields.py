"""Every refusal names its field one way, as a path in the request's body
(``options.target``, ``players[1].name``, ``moves[1].card``), and a refusal of an
unknown key lists the keys there are, all of them."""

from __future__ import annotations

import pytest

from tests.helpers import Game

KOD = "king-of-danger"


@pytest.mark.parametrize(("body", "field", "said"), [
    ({"game": KOD, "players": ["Ann", 7]}, "players[1]", None),
    ({"game": KOD, "players": ["Ann", {"name": "Bob", "email": "nope"}]}, "players[1].email", None),
    ({"game": KOD, "players": ["Ann", "Bob"], "options": {"target": 0}}, "options.target", None),
    ({"game": KOD, "players": ["Ann", "Bob"], "options": {"first_dealer": 2}}, "options.first_dealer", None),
    ({"game": "castle-danger", "players": ["Ann", "Bob"], "options": {"edition": "2nd"}}, "options.edition", None),
    ({"game": KOD, "players": ["Ann", "Bob"], "options": {"clock": {"move_seconds": 1}}},
     "options.clock.move_seconds", None),
    # an unknown option: every option the game takes, its own and every game's
    ({"game": KOD, "players": ["Ann", "Bob"], "options": {"targte": 5}}, "options.targte",
     "its options: clock, deck, first_dealer, follow_suit, on_resign, seed, target, trackers"),
    ({"game": "kings-keys", "players": ["Ann", "Bob", "Cy"], "options": {"wild": True}}, "options.wild",
     "its options: clock, deck, first_dealer, match, on_resign, seed, wild_cards, wild_stands_for"),
    # an unknown key of the body: every key the body may have
    ({"game": KOD, "players": ["Ann", "Bob"], "organizer": {}}, "organizer",
     "the fields are game, options, organiser, players, rated, spectators"),
    ({"game": KOD, "players": ["Ann", "Bob"], "organiser": {"mail": "x"}}, "organiser.mail",
     "a contact has email and webhook"),
])
def test_creation_refusals_name_the_field_as_a_path(client, body, field, said):
    r = client.post("/v1/games", json=body)
    assert r.status_code == 400 and r.json["code"] == "malformed", r.json
    assert r.json["field"] == field, r.json
    if said:
        assert said in r.json["detail"], r.json


def test_move_refusals_name_the_field_inside_the_move(client):
    g = Game(client, KOD, ["Ann", "Bob"], {"seed": "fields"})
    seat = g.summary()["to_act"][0]
    good = g.legal(seat)[0]
    r = g.post(seat, {"move": {"type": "play", "card": "X9"}})
    assert r.status_code == 400 and r.json["field"] == "move.card", r.json
    r = g.post(seat, {"moves": [good, {"type": "play", "card": "X9"}]})
    assert r.status_code == 400 and r.json["field"] == "moves[1].card" and r.json["index"] == 1, r.json
    r = g.post(seat, {"moves": [good, "play"]})
    assert r.status_code == 400 and r.json["field"] == "moves[1]", r.json
    r = g.post(seat, {"text": "play X9"})
    assert r.status_code == 400 and r.json["field"] == "text", r.json
    r = g.post(1 - seat, {"move": good})  # a refusal's words name players too
    assert r.status_code == 403 and f"it is {['Ann', 'Bob'][seat]}'s turn" in r.json["detail"], r.json
    r = g.post(seat, {"move": good, "extra": 1})
    assert r.status_code == 400 and r.json["field"] == "extra", r.json
    assert "the fields are expected_version, move, moves, text" in r.json["detail"], r.json
