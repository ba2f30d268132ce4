"""Hidden cards stay hidden on the channels of votes, disputes and rulings: over a
random game of King of Danger, a seat opens a dispute and a vote, another seat
answers, the admin rules, and no answer (nor the view or log after it) shows a
card the asking seat may not know."""

from __future__ import annotations

import random

from tests.helpers import Game, strings
from tests.test_http_play import kod_hidden


def test_no_answer_of_a_vote_a_dispute_or_a_ruling_shows_a_hidden_card(client):
    g = Game(client, "king-of-danger", 3, {"seed": "hidden-disputes"})
    rnd = random.Random(5)
    checked = 0

    def check(game: Game):
        nonlocal checked
        s = game.summary()
        if s["status"] != "active" or rnd.random() > 0.3:
            return
        admin = game.get("/view", "admin").json["view"]
        seat = rnd.randrange(3)
        other = (seat + 1) % 3
        secret, onlooker = kod_hidden(admin, seat), kod_hidden(admin, None)
        r = game.client.post(f"/v1/games/{game.id}/disputes", json={"text": "please look at this", "seq": s["version"]},
                             headers=game.auth(seat))
        assert r.status_code == 201, r.json
        seen = strings(r.json)
        r = game.client.post(f"/v1/games/{game.id}/rulings", json={
            "dispute": r.json["dispute"]["id"], "decision": {"kind": "dismiss"}, "text": "play on"},
            headers=game.auth("admin"))
        assert r.status_code == 201, r.json
        assert not (onlooker & strings(r.json)), onlooker & strings(r.json)
        r = game.client.post(f"/v1/games/{game.id}/votes", json={"proposal": "cancel"}, headers=game.auth(seat))
        assert r.status_code == 201, r.json
        seen |= strings(r.json)
        r = game.client.post(f"/v1/games/{game.id}/votes/{r.json['vote']['id']}", json={"yes": False},
                             headers=game.auth(other))
        assert r.status_code == 201, r.json
        assert not (kod_hidden(admin, other) & strings(r.json))
        seen |= strings(game.get("/view", seat).json)
        assert not (secret & seen), f"seat {seat} sees {secret & seen}"
        checked += 1

    g.play_random(rnd, on_step=check)
    assert checked > 5
