"""Anything a client can send gets a clear answer, never a 500, and a refusal
changes nothing."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import Game

GAMES = [("king-of-danger", 3), ("castle-danger", 2), ("kings-keys", 3), ("king-of-the-castle", 3)]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**12, 10**12) | st.floats(allow_nan=False)
    | st.text(max_size=12) | st.sampled_from(["play", "move", "Z5", "walls", "c1", "b1", "Y1K", "plague",
                                              "king", "lord", 2, "resign", "end", "add", "B"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["type", "card", "suit", "from", "to", "at", "piece", "take", "castle",
                         "targets", "cards", "x"]) | st.text(max_size=6), inner, max_size=5),
    max_leaves=12)

moves = st.fixed_dictionaries({"type": st.sampled_from(
    ["play", "move", "add", "build", "demolish", "fire", "end", "smuggle", "reveal", "pass",
     "discard", "react", "choose", "standing", "resign", "x"])}, optional={
    "card": json_values, "suit": json_values, "from": json_values, "to": json_values, "at": json_values,
    "piece": json_values, "take": json_values, "castle": json_values, "targets": json_values,
    "cards": json_values})

bodies = st.one_of(
    st.fixed_dictionaries({"move": moves | json_values}),
    st.fixed_dictionaries({"moves": st.lists(moves | json_values, max_size=4)}),
    st.fixed_dictionaries({"text": st.text(max_size=40) | json_values}),
    json_values,
)

ANSWERS = {201, 400, 401, 403, 409, 422}


@pytest.fixture(scope="module")
def sqlite_app(tmp_path_factory):
    from referee.api import create_app
    from referee.queue import InlineQueue
    from referee.store import open_store
    from referee.system import assemble

    path = tmp_path_factory.mktemp("fuzz") / "fuzz.db"
    return create_app(assemble(open_store(f"sqlite:///{path}"), InlineQueue()))


@pytest.mark.parametrize("game,players", GAMES)
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=bodies, seat=st.integers(0, 2))
def test_any_body_gets_a_clear_answer(sqlite_app, game, players, body, seat):
    client = sqlite_app.test_client()
    g = getattr(sqlite_app, f"_fuzz_{game}", None)
    if g is None or g.summary()["status"] != "active":
        g = Game(client, game, players, {"seed": "fuzz"})
        setattr(sqlite_app, f"_fuzz_{game}", g)
    before = g.summary()["version"]
    r = g.post(seat % players, body)
    assert r.status_code in ANSWERS, (r.status_code, r.get_data(as_text=True))
    if r.status_code != 201:
        assert r.mimetype == "application/problem+json" and r.json["code"]
        assert g.summary()["version"] == before


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(options=st.dictionaries(st.sampled_from(
    ["target", "edition", "variant", "turn_limit", "wild_cards", "squires", "personality_order", "deck",
     "first_dealer", "first_player", "seed", "event_deck", "personality_deck", "follow_suit",
     "fire_blocks_building", "own_side_shots", "reactions", "react_to_own_card", "wild_stands_for",
     "trackers", "bonus_ties", "match", "x"]), json_values, max_size=4),
    game=st.sampled_from([g for g, _ in GAMES]), players=st.integers(0, 9))
def test_any_options_get_a_clear_answer(sqlite_app, options, game, players):
    client = sqlite_app.test_client()
    r = client.post("/v1/games", json={"game": game, "players": [f"p{i}" for i in range(players)],
                                       "options": options})
    assert r.status_code in (201, 400), (r.status_code, r.get_data(as_text=True))
    if r.status_code == 400:
        assert r.json["code"] == "malformed" and r.json["field"]


@pytest.mark.parametrize("game,players", GAMES)
@pytest.mark.parametrize("kind", [[], {}, None, 5, True])
def test_a_type_that_is_not_a_string_is_malformed(sqlite_app, game, players, kind):
    g = Game(sqlite_app.test_client(), game, players, {"seed": "type"})
    seat = g.summary()["to_act"][0]
    r = g.post(seat, {"move": {"type": kind}})
    assert r.status_code == 400 and r.json["code"] == "malformed" and r.json["field"] == "move.type"
