"""House rules across the service: chosen at creation, refused by name when bad,
shown in the summary and every export, used by the audit's replay, and played by
random games and bots under every reading."""

from __future__ import annotations

import json

import pytest

from referee import bots
from referee.audit import audit
from referee.autoplay import new_table, play, random_game
from referee.games import engine
from referee.rng import Rng
from schemas import HOUSE_RULES
from tests.helpers import Game
from tests.test_audit import reseal

PLAYERS = {"king-of-danger": 2, "castle-danger": 2, "king-of-the-castle": 3, "kings-keys": 3}
# Options a game needs beside the house rule for its readings to matter (wild
# cards) or for bots alone to finish (a turn limit).
BESIDE = {"castle-danger": {"turn_limit": 15}, "kings-keys": {"wild_cards": True}}
CHOICES = [(game, name, value) for game, rules in HOUSE_RULES.items()
           for name, values in rules.items() for value in values[1:]]


def names(n: int) -> list[str]:
    return [f"p{i}" for i in range(n)]


@pytest.mark.parametrize("game", list(HOUSE_RULES))
def test_the_api_lists_exactly_the_house_rules_each_engine_has(game, client):
    eng = engine(game)
    # every house rule came after a game's first engine version (later_options)
    assert set(eng.later_options) == set(HOUSE_RULES[game])
    defaults = eng.setup({}, PLAYERS[game])
    for name, readings in HOUSE_RULES[game].items():
        assert defaults[name] == readings[0]
        for value in readings:
            assert eng.setup({name: value}, PLAYERS[game])[name] == value
    schemas = client.get("/openapi.json").json["components"]["schemas"]
    assert schemas["NewGameOptions"]["x-house-rules"] == HOUSE_RULES
    for options in (schemas["NewGameOptions"], schemas["GameOptions"]):  # generated clients keep them
        for name, readings in HOUSE_RULES[game].items():
            assert options["properties"][name]["enum"] == readings


@pytest.mark.parametrize("game,name,value", CHOICES)
def test_a_house_rule_is_kept_in_the_summary_and_the_export(client, game, name, value):
    g = Game(client, game, PLAYERS[game], {name: value})
    assert g.created["options"][name] == value
    assert g.summary()["options"][name] == value
    first = json.loads(g.export().splitlines()[0])
    assert first["type"] == "game-created" and first["payload"]["options"][name] == value
    # and the default is written out when the option is not given
    other = Game(client, game, PLAYERS[game])
    assert other.summary()["options"][name] == HOUSE_RULES[game][name][0]


@pytest.mark.parametrize("game,name", [(g, n) for g, rules in HOUSE_RULES.items() for n in rules])
@pytest.mark.parametrize("bad", ["maybe", 1, None, ["hand"]])
def test_a_bad_house_rule_is_refused_by_name_and_creates_nothing(client, game, name, bad):
    before = client.get("/v1/games").json
    r = client.post("/v1/games", json={"game": game, "players": names(PLAYERS[game]),
                                       "options": {name: bad}})
    assert r.status_code == 400 and r.mimetype == "application/problem+json", r.json
    assert r.json["code"] == "malformed" and r.json["field"] == f"options.{name}"
    assert f"options.{name}" in r.json["detail"]
    assert client.get("/v1/games").json == before


@pytest.mark.parametrize("game,name,value", CHOICES)
def test_the_first_line_in_words_names_a_house_rule_off_its_default(game, name, value):
    from referee.narration import created

    seats = [{"seat": s, "name": n} for s, n in enumerate(names(PLAYERS[game]))]
    eng = engine(game)
    said = created({"game": game, "seats": seats, "options": eng.setup({name: value}, PLAYERS[game])})
    assert "house rule: " + name.replace("_", " ") in said
    assert "house rule" not in created({"game": game, "seats": seats, "options": eng.setup({}, PLAYERS[game])})


# ---- the audit replays a game under its own house rules --------------------------------

def test_an_export_under_a_house_rule_audits_valid_and_its_moves_need_the_rule(client):
    # Castle Danger, walls built on fire: seat 1's shot leaves fire on d3, next to
    # seat 0's Builder, and seat 0 builds there (docs/games/castle-danger.md, R5).
    g = Game(client, "castle-danger", ["ann", "bob"], {"fire_blocks_building": False})
    for seat, text in [(0, "add B; d1-d2; d2-d3; d3-c3; end"), (1, "add C; d9-d8; d8-d7; fire d7 d3"),
                       (0, "build d3; resign")]:
        r = g.post(seat, {"text": text})
        assert r.status_code == 201, r.json
    text = g.export()
    r = client.post("/v1/audit", data=text, content_type="application/jsonl")
    assert r.status_code == 200 and r.json["valid"] and r.json["seed"] == "verified", r.json
    # The same moves under the default reading: the build is refused by the replay.
    lines = [json.loads(x) for x in text.splitlines()]
    lines[0]["payload"]["options"]["fire_blocks_building"] = True
    report = audit(reseal(lines))
    built = next(d["seq"] for d in lines if d["type"] == "wall-built" and d["payload"]["at"] == "d3")
    assert not report["valid"] and report["first_error"]["seq"] == built
    assert report["first_error"]["code"] == "illegal-move" and "(rule fire)" in report["first_error"]["detail"]


def test_a_second_reaction_under_one_per_card_audits_and_is_refused_under_the_default():
    # King of the Castle: seat 1 answers a Plague with two Lucky Escapes.
    from tests.games.king_of_the_castle_helpers import deck_from

    top = ["lucky-escape", "plague", "lucky-escape", "keep", "village", "keep", "keep"]
    options = {"personality_order": "alphabetical", "event_deck": deck_from(top),
               "reactions": "one-per-card"}
    table, log = new_table("king-of-the-castle", 2, options, seed="house")
    for seat, text in [(0, "play plague 1 lord master"), (1, "react lucky-escape B"),
                       (1, "react lucky-escape D"), (1, "resign")]:
        play(table, seat, table.engine.parse(text), "house", log)
    text = "".join(e.to_json() + "\n" for e in log)
    assert audit(text)["valid"]
    lines = [json.loads(x) for x in text.splitlines()]
    lines[0]["payload"]["options"]["reactions"] = "one-per-seat"
    report = audit(reseal(lines))
    second = [d["seq"] for d in lines if d["type"] == "reacted"][1]
    assert not report["valid"] and report["first_error"]["seq"] == second


# ---- random games and bots under every reading ------------------------------------------

@pytest.mark.parametrize("game,name,value", CHOICES)
def test_random_games_under_each_house_rule_check_and_replay(game, name, value):
    options = {**BESIDE.get(game, {}), name: value}
    table, log = random_game(game, PLAYERS[game], options, seed=f"rule-{name}", check=True)
    assert table.state.options[name] == value and table.over
    report = audit("".join(e.to_json() + "\n" for e in log))
    assert report["valid"] and report["seed"] == "verified", report


@pytest.mark.parametrize("game,name,value", CHOICES)
def test_bots_play_legal_moves_under_each_house_rule(game, name, value):
    options = {**BESIDE.get(game, {}), name: value}
    n = PLAYERS[game]
    kinds = (["basic", "random"] * n)[:n]
    table, log = new_table(game, n, options, seed="bots")
    for _ in range(400):
        if table.over:
            break
        seat = table.to_act()[0]
        move = bots.choose(kinds[seat], table, seat, Rng("bots", len(log) + 1))
        assert move in table.engine.legal(table.state, seat) and move["type"] != "resign"
        play(table, seat, move, "bots", log)
    assert len(log) > 20
