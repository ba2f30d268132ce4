"""The API's own description is true: every refusal a client can cause on an
operation is documented there as problem+json, every component is used, and the
move schemas and their examples are each game's real moves."""

from __future__ import annotations

import json

import jsonschema
import pytest

from referee.autoplay import random_game
from referee.games import engine as engine_by_name
from tests.helpers import Game

GAME_SCHEMA = {"king-of-danger": "KingOfDangerMove", "castle-danger": "CastleDangerMove",
               "king-of-the-castle": "KingOfTheCastleMove", "kings-keys": "KingsKeysMove"}


@pytest.fixture(scope="module")
def spec(tmp_path_factory):
    from referee.api import create_app
    from referee.store.sqlite import SqliteStore
    from referee.system import assemble

    store = SqliteStore(str(tmp_path_factory.mktemp("spec") / "spec.db"))
    return create_app(assemble(store)).test_client().get("/openapi.json").json


def refs(node) -> set[str]:
    found = set()
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "$ref" and isinstance(v, str):
                found.add(v)
            else:
                found |= refs(v)
    elif isinstance(node, list):
        for v in node:
            found |= refs(v)
    return found


def resolved(spec, schema: dict) -> dict:
    """A schema with its component references resolvable by jsonschema."""
    return {**schema, "components": spec["components"]}


def test_every_component_is_used(spec):
    used = refs(spec["paths"])
    # follow references inside components until nothing new turns up
    while True:
        more = set()
        for ref in used:
            _, _, kind, name = ref.split("/")
            more |= refs(spec["components"][kind][name])
        if more <= used:
            break
        used |= more
    for kind in ("schemas", "responses"):
        for name in spec["components"].get(kind, {}):
            assert f"#/components/{kind}/{name}" in used, f"{kind}/{name} is never used"


def test_every_refusal_is_problem_json_with_an_open_schema(spec):
    problem = spec["components"]["schemas"]["Problem"]
    assert problem.get("additionalProperties", True) is not False
    for name, response in spec["components"]["responses"].items():
        assert list(response["content"]) == ["application/problem+json"], name
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            if method == "parameters":
                continue
            for status, response in op["responses"].items():
                if status.startswith(("4", "5")):
                    assert response.get("$ref", "").startswith("#/components/responses/"), (path, method, status)
    assert {"/healthz", "/metrics", "/openapi.json", "/docs"} <= set(spec["paths"])
    # every operation of the API lists its refusals, 429 among them (every one is
    # rate-limited, if only by the failed-token limit per address)
    for path, ops in spec["paths"].items():
        if path.startswith("/v1/"):
            for method, op in ops.items():
                if method != "parameters":
                    assert "429" in op["responses"], (path, method)
                    assert any(s.startswith("4") and s != "429" for s in op["responses"]), (path, method)


def documented(spec, method: str, path: str) -> set[int]:
    return {int(s) for s in spec["paths"][path][method]["responses"]}


def test_the_refusals_a_client_can_cause_are_documented(client, spec):
    """Provoke each refusal for real, then look it up in the document."""
    g = Game(client, "king-of-danger", 2, {"seed": "spec"})
    seat = g.summary()["to_act"][0]
    base = "/v1/games/{game_id}"
    seen: dict[tuple[str, str], set[int]] = {}

    def hit(method, path, status, r):
        assert r.status_code == status, (method, path, r.status_code, r.get_data()[:200])
        assert r.mimetype == "application/problem+json"
        problem_schema.validate(r.json)  # the document says true of every field it names
        seen.setdefault((method, path), set()).add(status)

    bad = {"Authorization": "Bearer nope"}
    problem_schema = jsonschema.Draft4Validator(resolved(spec, spec["components"]["schemas"]["Problem"]))
    hit("post", "/v1/games", 400, client.post("/v1/games", json={"game": "chess", "players": ["a"]}))
    hit("post", "/v1/games", 415, client.post("/v1/games", data="x", content_type="text/plain"))
    hit("post", "/v1/games", 413, client.post("/v1/games", data=b"[" + b" " * (2 << 20) + b"]",
                                                content_type="application/json"))
    hit("get", base, 404, client.get("/v1/games/nope"))
    hit("get", base + "/view", 400, g.get("/view", at=0))
    hit("get", base + "/view", 401, client.get(f"/v1/games/{g.id}/view", headers=bad))
    hit("get", base + "/view", 404, client.get("/v1/games/nope/view"))
    hit("get", base + "/legal", 401, g.get("/legal"))
    hit("get", base + "/legal", 403, g.get("/legal", "admin"))
    hit("get", base + "/legal", 404, client.get("/v1/games/nope/legal"))
    hit("post", base + "/moves", 400, g.post(seat, {"text": "fly"}))
    hit("post", base + "/moves", 401, g.post(None, {"text": "W1"}))
    hit("post", base + "/moves", 403, g.post(1 - seat, {"text": "W1"}))
    hit("post", base + "/moves", 404, client.post("/v1/games/nope/moves", json={"text": "W1"}))
    hit("post", base + "/moves", 409, g.post(seat, {"text": "W1", "expected_version": 1}))
    hit("post", base + "/moves", 415, client.post(f"/v1/games/{g.id}/moves", data="x", content_type="text/plain"))
    hit("post", base + "/moves", 422, g.post(seat, {"move": {"type": "play", "card": "KD"}}) if
        {"type": "play", "card": "KD"} not in g.legal(seat) else g.post(seat, {"move": {"type": "play", "card": "W1"}}))
    hit("get", base + "/events", 400, g.get("/events", after=-1))
    hit("get", base + "/events", 401, client.get(f"/v1/games/{g.id}/events", headers=bad))
    hit("get", base + "/export", 403, g.get("/export", 0))
    hit("get", base + "/export", 401, client.get(f"/v1/games/{g.id}/export", headers=bad))
    hit("post", base + "/abort", 403, client.post(f"/v1/games/{g.id}/abort", json={}, headers=g.auth(0)))
    hit("post", base + "/abort", 400, client.post(f"/v1/games/{g.id}/abort", json={"reason": 5}, headers=g.auth("admin")))
    hit("post", "/v1/audit", 415, client.post("/v1/audit", data="x", content_type="application/json"))
    hit("get", "/v1/games", 400, client.get("/v1/games", query_string={"limit": 0}))
    hit("get", "/v1/games", 400, client.get("/v1/games", query_string={"status": "sleeping"}))
    hit("get", base, 404, client.get("/v1/games/nope"))
    hit("get", base + "/events", 404, client.get("/v1/games/nope/events"))
    hit("get", base + "/export", 404, client.get("/v1/games/nope/export", headers=g.auth("admin")))
    hit("post", base + "/abort", 401, client.post(f"/v1/games/{g.id}/abort", json={}, headers=bad))
    hit("post", base + "/abort", 404, client.post("/v1/games/nope/abort", json={}, headers=g.auth("admin")))
    hit("post", base + "/abort", 415, client.post(f"/v1/games/{g.id}/abort", data="x", content_type="text/plain",
                                                  headers=g.auth("admin")))
    hit("post", "/v1/audit", 413, client.post("/v1/audit", data=b"\n" * (16 * 2**20 + 1),
                                                content_type="application/jsonl"))
    hit("post", "/v1/inbound/email", 415, client.post("/v1/inbound/email", data="x", content_type="application/json"))
    hit("post", "/v1/inbound/email", 400, client.post("/v1/inbound/email", data=b"Subject: no game\r\n\r\nhello",
                                                        content_type="message/rfc822"))
    # open games (docs/players.md): join, fill and cancel
    ann = client.post("/v1/players", json={"name": "Ann"}).json
    bob = client.post("/v1/players", json={"name": "Bob"}).json
    opened = client.post("/v1/games", json={"game": "king-of-danger",
                                            "players": [{"player": ann["id"]}, {"open": True}]}).json
    og, ann_auth = opened["id"], {"Authorization": f"Bearer {ann['token']}"}
    bob_auth, og_admin = {"Authorization": f"Bearer {bob['token']}"}, {"Authorization": f"Bearer {opened['admin_token']}"}
    hit("post", base + "/join", 401, client.post(f"/v1/games/{og}/join", json={}))
    hit("post", base + "/join", 400, client.post(f"/v1/games/{og}/join", json={"seat": 9}, headers=bob_auth))
    hit("post", base + "/join", 404, client.post("/v1/games/nope/join", json={}, headers=bob_auth))
    hit("post", base + "/join", 409, client.post(f"/v1/games/{og}/join", json={}, headers=ann_auth))
    hit("post", base + "/join", 415, client.post(f"/v1/games/{og}/join", data="x", content_type="text/plain",
                                                 headers=bob_auth))
    fill = base + "/seats/{seat}/fill"
    hit("post", fill, 403, client.post(f"/v1/games/{og}/seats/1/fill", json={"bot": "basic"}, headers=ann_auth))
    hit("post", fill, 400, client.post(f"/v1/games/{og}/seats/1/fill", json={"bot": "x"}, headers=og_admin))
    hit("post", fill, 409, client.post(f"/v1/games/{og}/seats/0/fill", json={"bot": "basic"}, headers=og_admin))
    hit("post", fill, 404, client.post("/v1/games/nope/seats/0/fill", json={"bot": "basic"}, headers=og_admin))
    hit("post", base + "/cancel", 403, client.post(f"/v1/games/{og}/cancel", headers=ann_auth))
    hit("post", base + "/cancel", 404, client.post("/v1/games/nope/cancel", headers=og_admin))
    assert client.post(f"/v1/games/{og}/cancel", headers=og_admin).status_code == 200
    hit("post", base + "/cancel", 409, client.post(f"/v1/games/{og}/cancel", headers=og_admin))
    # the end: an aborted game refuses moves and a second abort alike
    assert client.post(f"/v1/games/{g.id}/abort", json={}, headers=g.auth("admin")).status_code == 201
    hit("post", base + "/abort", 409, client.post(f"/v1/games/{g.id}/abort", json={}, headers=g.auth("admin")))
    hit("post", base + "/moves", 409, g.post(seat, {"text": "W1"}))
    for (method, path), statuses in seen.items():
        assert statuses <= documented(spec, method, path), (method, path, statuses - documented(spec, method, path))


@pytest.mark.parametrize("game", sorted(GAME_SCHEMA))
def test_move_examples_are_real_moves(spec, game):
    schema = resolved(spec, spec["components"]["schemas"][GAME_SCHEMA[game]])
    engine = engine_by_name(game)
    for shape in spec["components"]["schemas"][GAME_SCHEMA[game]]["oneOf"]:
        example = shape["example"]
        jsonschema.validate(example, schema)
        assert engine.normalize(dict(example)) == example if example["type"] != "resign" else True
        assert engine.parse(engine.format(example)) == [example]


# game -> (players, options of each game tried in turn): Castle Danger's Hidden
# Danger has smuggle and reveal, its standard game the take-back.
EXAMPLE_GAMES = {"king-of-danger": (3, [{}]),
                 "castle-danger": (2, [{"variant": "hidden-danger", "turn_limit": 10}, {"turn_limit": 10}]),
                 "king-of-the-castle": (3, [{"squires": "choose"}]), "kings-keys": (4, [{"wild_cards": True}])}


def with_offer_pending(table) -> list:
    """The table, and where the seat to act may offer a draw (Castle Danger), the
    table as it would be with the offer made: random games never offer (they play
    as bots do), so the answers are legal only there."""
    out = [table]
    for seat in table.to_act():
        if {"type": "offer-draw"} in table.engine.legal(table.state, seat):
            out.append(table.propose(seat, [{"type": "offer-draw"}])[1])
    return out


@pytest.mark.parametrize("game", sorted(GAME_SCHEMA))
def test_every_move_example_is_accepted_by_the_referee_somewhere(spec, game):
    """Each example of the document is a move the referee takes: random games are
    played until every example has been legal at some position, where the referee
    is then asked to decide it and writes its events."""
    players, configs = EXAMPLE_GAMES[game]
    wanted = {json.dumps(shape["example"], sort_keys=True): shape["example"]
              for shape in spec["components"]["schemas"][GAME_SCHEMA[game]]["oneOf"]}
    accepted = set()

    def on_step(table, _log):
        for t in with_offer_pending(table):
            for seat in t.to_act():
                for move in t.engine.legal(t.state, seat):
                    key = json.dumps(move, sort_keys=True)
                    if key in wanted and key not in accepted:
                        events, _ = t.propose(seat, [wanted[key]])
                        assert events and events[0].actor == seat
                        accepted.add(key)

    for k in range(12):  # examples are picked to turn up early; after a rules change, pick another
        if len(accepted) == len(wanted):
            break
        random_game(game, players, configs[k % len(configs)], seed=f"examples-{game}-{k}", on_step=on_step)
    assert set(wanted) == accepted, f"never accepted: {set(wanted) - accepted}"


CONFIGS = [("king-of-danger", 3, {}), ("castle-danger", 2, {"variant": "hidden-danger", "turn_limit": 8}),
           ("king-of-the-castle", 3, {"squires": "choose"}), ("kings-keys", 4, {"wild_cards": True})]


@pytest.mark.parametrize(("game", "players", "options"), CONFIGS, ids=[c[0] for c in CONFIGS])
def test_every_legal_move_fits_the_games_move_schema(spec, game, players, options):
    validators = [jsonschema.Draft4Validator(resolved(spec, spec["components"]["schemas"][name]))
                  for name in (GAME_SCHEMA[game], "Move")]
    checked, per_type = set(), {}

    def on_step(table, _log):
        for t in with_offer_pending(table):
            for seat in t.to_act():
                for move in t.engine.legal(t.state, seat):
                    key = json.dumps(move, sort_keys=True)
                    if key in checked or per_type.get(move["type"], 0) >= 200:
                        continue  # a sample of each type is enough (King of the Castle lists 2,600 choices)
                    checked.add(key)
                    per_type[move["type"]] = per_type.get(move["type"], 0) + 1
                    for validator in validators:
                        validator.validate(move)

    random_game(game, players, options, seed=f"schema-{game}", on_step=on_step)
    assert checked
