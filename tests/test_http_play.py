"""Whole games of every game through the HTTP API, random legal moves only; each
finished game's export then audits valid with its seed verified."""

from __future__ import annotations

import random

import pytest

from referee.narration import named_result
from tests.helpers import Game, strings

CONFIGS = [
    ("king-of-danger", 2, {}), ("king-of-danger", 3, {}), ("king-of-danger", 4, {}),
    ("king-of-danger", 5, {}),
    ("castle-danger", 2, {"edition": "10th", "turn_limit": 25}),
    ("castle-danger", 2, {"edition": "3rd", "turn_limit": 25}),
    ("castle-danger", 2, {"variant": "hidden-danger", "turn_limit": 25}),
    ("castle-danger", 2, {"edition": "3rd", "variant": "hidden-danger", "turn_limit": 25}),
    ("kings-keys", 3, {}), ("kings-keys", 4, {}),
    ("kings-keys", 3, {"wild_cards": True}), ("kings-keys", 4, {"wild_cards": True}),
] + [("king-of-the-castle", n, {"squires": squires}) for n in (2, 4, 6)
      for squires in ("random", "choose", "letters")] + [
    ("king-of-the-castle", 4, {"squires": "random", "personality_order": "alphabetical"}),
    ("king-of-the-castle", 8, {"squires": "choose"}),
]


@pytest.fixture
def sqlite_client(tmp_path):
    from referee.api import create_app
    from referee.queue import InlineQueue
    from referee.store import open_store
    from referee.system import assemble

    app = create_app(assemble(open_store(f"sqlite:///{tmp_path}/play.db"), InlineQueue()))
    return app.test_client()


@pytest.mark.parametrize("game,players,options", CONFIGS,
                         ids=[f"{g}-{n}-{'-'.join(f'{k}={v}' for k, v in o.items()) or 'default'}"
                              for g, n, o in CONFIGS])
def test_random_legal_play_finishes(sqlite_client, game, players, options):
    seed = f"http-{game}-{players}-{sorted(options.items())}"
    g = Game(sqlite_client, game, players, {**options, "seed": seed})
    final = g.play_random(random.Random(seed))
    assert final["status"] == "finished"
    result = final["result"]
    assert result["winners"] and set(result["winners"]) <= set(range(players))
    report = sqlite_client.post("/v1/audit", data=g.get("/export").get_data()).json
    assert report["valid"], report
    # the audit gives the result as the log writes it (seats by number); the summary
    # says its reason with the players' names
    assert report["seed"] == "verified" and named_result(report["result"], final["players"]) == result


def test_random_play_on_redis_too(client, redis_url):
    # `client` is parametrised over both stores; the Redis run is the point here.
    g = Game(client, "king-of-danger", 3, {"seed": "redis-play"})
    assert g.play_random(random.Random(3))["status"] == "finished"


# ---- no seat ever sees another's cards through the API -----------------------------------

def kod_hidden(admin_view: dict, seat) -> set[str]:
    """The cards ``seat`` must not know now: other seats' hands and every face-down card."""
    hidden: set[str] = set()
    for s, hand in enumerate(admin_view.get("hands") or []):
        if s != seat:
            hidden |= set(hand)
    for down in admin_view.get("face_down") or []:
        hidden |= {c for c in down if c}
    return hidden


@pytest.mark.parametrize("players", [2, 4])
def test_king_of_danger_hides_every_hand_through_the_api(sqlite_client, players):
    g = Game(sqlite_client, "king-of-danger", players, {"seed": f"leak-{players}"})
    checked = 0

    def check(game: Game):
        nonlocal checked
        s = game.summary()
        if s["status"] != "active":
            return
        admin = game.get("/view", "admin").json["view"]
        # Cards are shuffled anew each hand: what was played in an earlier hand is
        # rightly in the log, so only this hand's events are searched.
        log = game.get("/events", "admin", limit=1000).json["events"]
        deal = max(e["seq"] for e in log if e["type"] == "hand-dealt")
        for who in list(range(players)) + [None]:
            secret = kod_hidden(admin, who)
            seen = strings(game.get("/view", who).json) | \
                strings(game.get("/events", who, after=deal - 1, limit=1000).json)
            if who is not None:
                seen |= strings(game.legal(who))
            assert not (secret & seen), f"{who} sees {secret & seen}"
            checked += 1

    g.play_random(random.Random(players), on_step=check)
    assert checked > 50
