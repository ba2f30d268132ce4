"""Between a game's end and its seed's reveal (a referee job a real RQ worker runs
a moment later), the game is over but keeps its secrets: seats and spectators see
nothing hidden on any channel, and the export is the admin's alone. Once the
worker has revealed the seed, everything is open.

The suite's inline queue reveals at once, so this window is only seen here: the
queue is a real RQ queue on the test Redis, and no worker runs until the test
starts one."""

from __future__ import annotations

import json
import re

import pytest

from referee.games.king_of_danger.cards import DECK
from tests.helpers import Game
from tests.test_text_for_posts import unsigned
from tests.test_workers import run_burst

CARD = re.compile(r"\b(?:[WC][1-7]|Z[1-8]|K[DWCZ])\b")  # King of Danger's cards as written


@pytest.fixture
def rq_client(redis_url):
    from referee.api import create_app
    from referee.queue import RQQueue
    from referee.service import GameService
    from referee.store import open_store

    return create_app(GameService(open_store(redis_url), RQQueue(redis_url))).test_client(), redis_url


def everything_seen(g: Game, who) -> dict[str, str]:
    """What ``who`` (a seat, or None: a spectator) gets on every channel, as text."""
    return {"summary": json.dumps(g.summary()),
            "view": g.get("/view", who).get_data(as_text=True),
            "events": g.get("/events", who, limit=1000).get_data(as_text=True),
            "log": g.get("/log", who, limit=1000).get_data(as_text=True),
            "board.svg": g.get("/board.svg", who).get_data(as_text=True)}


def test_a_finished_game_keeps_its_secrets_until_the_worker_reveals_the_seed(rq_client):
    client, url = rq_client
    # a stacked deck: itself a secret; a resignation below ends each game (on_resign)
    kod = Game(client, "king-of-danger", 3, {"deck": list(DECK), "on_resign": "end"})
    castle = Game(client, "castle-danger", 2, {"variant": "hidden-danger"})
    kotc = Game(client, "king-of-the-castle", 3, {"on_resign": "end"})
    assert kod.summary()["status"] == kotc.summary()["status"] == "settling"  # deals wait for a worker
    run_burst(url, url)
    assert kod.summary()["status"] == kotc.summary()["status"] == "active"
    dealt = json.loads(kod.export().splitlines()[1])["payload"]["hands"]
    assert castle.post(0, {"moves": [{"type": "smuggle", "piece": "C"}, {"type": "end"}]}).status_code == 201
    games = (kod, castle, kotc)
    for g in games:
        assert g.post(1, {"move": {"type": "resign"}}).status_code == 201

    # ---- over, the reveal queued, no worker yet ----
    for g in games:
        s = g.summary()
        assert s["status"] == "settling" and s["result"] is not None
        assert "seed-revealed" not in g.export()  # (the admin's export: whole, unrevealed)
    for who in (1, None):
        kod_seen, castle_seen = everything_seen(kod, who), everything_seen(castle, who)
        hidden = {c for seat, hand in enumerate(dealt) if seat != who for c in hand}  # (the deck too)
        for channel, text in kod_seen.items():
            assert not set(CARD.findall(unsigned(text))) & hidden, (who, channel)
        assert json.loads(kod_seen["summary"])["options"]["deck"] == "hidden until the game ends"
        view = json.loads(castle_seen["view"])
        assert view["view"]["pieces"]["d1"] == {"fired": False, "hidden": True, "kind": "?", "owner": 0}
        assert "?C" not in view["text"] and "?C" not in castle_seen["board.svg"]
        smuggled = next(e for e in json.loads(castle_seen["events"])["events"] if e["type"] == "piece-smuggled")
        assert "piece" not in smuggled["payload"] and smuggled["payload"]["move"] == {"type": "smuggle"}
        hidden_keys = {"hands", "all_squires", "event_deck", "all_set_aside"}
        assert not hidden_keys & set(kotc.get("/view", who).json["view"])  # (the admin's view has them)
        for seen in (kod_seen, castle_seen, everything_seen(kotc, who)):
            assert all(e["salt"] is None for e in json.loads(seen["events"])["events"])
        for g in games:
            r = g.get("/export", who)
            assert r.status_code == 403 and r.json["code"] == "forbidden"
    assert {"hands", "event_deck"} <= set(kotc.get("/view", "admin").json["view"])

    # ---- the worker reveals the seed: everything is open ----
    run_burst(url, url)
    for g in games:
        assert g.summary()["status"] == "finished"
    for who in (1, None):
        kod_seen, castle_seen = everything_seen(kod, who), everything_seen(castle, who)
        events = json.loads(kod_seen["events"])["events"]
        assert [e["payload"]["hands"] for e in events if e["type"] == "hand-dealt"] == [dealt]
        assert json.loads(kod_seen["summary"])["options"]["deck"] == list(DECK)
        view = json.loads(castle_seen["view"])
        assert view["view"]["pieces"]["d1"]["kind"] == "C" and "?C" in view["text"]
        smuggled = next(e for e in json.loads(castle_seen["events"])["events"] if e["type"] == "piece-smuggled")
        assert smuggled["payload"]["piece"] == "C"
        assert {"hands", "event_deck"} <= set(kotc.get("/view", who).json["view"])
        for seen in (kod_seen, castle_seen, everything_seen(kotc, who)):
            assert all(e["salt"] for e in json.loads(seen["events"])["events"])
        for g in games:
            r = g.get("/export", who)
            assert r.status_code == 200 and r.get_data(as_text=True) == g.export()
