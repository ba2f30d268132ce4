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
from tests.leaguetools import new_league

GAMES = ["castle-danger", "king-of-danger", "king-of-the-castle", "kings-keys"]
MOVES_OP = ("/v1/games/{game_id}/moves", "post")


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
                if (path, status) == ("/healthz", "503"):
                    continue  # no refusal: what a load balancer reads, JSON {status} like the 200
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
                    if op["operationId"] != "getKeys":  # a listing that takes nothing: nothing to refuse
                        assert any(s.startswith("4") and s != "429" for s in op["responses"]), (path, method)


def operations(spec):
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            if method != "parameters":
                yield path, method, op


def test_every_operation_is_named_and_says_who_may_call_it(spec):
    """Generators name their functions after operationId; security is per operation:
    none (public), a token, or a token or none (`{}` among the options)."""
    ids = [op.get("operationId") for _, _, op in operations(spec)]
    assert None not in ids and len(set(ids)) == len(ids), ids
    for path, method, op in operations(spec):
        assert op["security"] in ([], [{"bearer": []}], [{}, {"bearer": []}]), (path, method)
    assert spec["servers"] and "bearer" in spec["components"]["securitySchemes"]


# operationId -> a request body that is well-formed (JSON unless bytes)
BODIES = {"createGame": {"game": "king-of-danger", "players": ["a", "b"]}, "submitMoves": {"text": "W1"},
          "abortGame": {}, "setClock": {"paused": True}, "replaceSeat": {"name": "Cy"},
          "changeContact": {"email": None}, "changeSpectators": {"webhook": None},
          "receiveEmail": b"Subject: no game\r\n\r\nhello", "fillSeat": {"bot": "random"},
          "joinGame": {}, "joinLeague": {},
          "createLeague": {"name": "L", "game": "king-of-danger", "format": "round-robin", "players": []},
          "changeOrganiser": {"email": None}, "changeMe": {"email": None},
          "openVote": {"proposal": "draw"}, "answerVote": {"yes": True}, "openDispute": {"text": "why?"},
          "rule": {"dispute": 2, "decision": {"kind": "dismiss"}, "text": "so"}}


def test_the_security_of_each_operation_is_as_answered(client, spec):
    """Called without a token, an operation that needs one is refused (401 or 403),
    one that takes a token or none answers (on a game over, where the export is
    everyone's), and a public one is never refused for want of a token."""
    running = Game(client, "king-of-danger", 2, {"seed": "security"})
    over = Game(client, "king-of-danger", 2, {"seed": "security"})
    over.post(0, {"move": {"type": "resign"}})
    audit_body = over.export().encode()
    for path, method, op in operations(spec):
        if not path.startswith("/v1/"):
            continue
        needs = {"[]": "none", "[{'bearer': []}]": "token", "[{}, {'bearer': []}]": "either"}[str(op["security"])]
        game = over if needs == "either" else running
        url = path.replace("{game_id}", game.id).replace("{seat}", "0").replace("{seq}", "1").replace("{vote}", "2")
        body = audit_body if op["operationId"] == "auditLog" else BODIES.get(op["operationId"])
        kw = ({"data": body, "content_type": "application/octet-stream"} if isinstance(body, bytes)
              else {"json": body} if body is not None else {})
        r = client.open(url, method=method.upper(), **kw)
        if needs == "token":
            assert r.status_code in (401, 403), (op["operationId"], r.status_code)
        elif needs == "either":
            assert r.status_code in (200, 201), (op["operationId"], r.status_code, r.get_data()[:200])
        else:
            assert r.status_code not in (401, 403), (op["operationId"], r.status_code)


def auth_of(player: dict) -> dict:
    return {"Authorization": f"Bearer {player['token']}"}


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
    hit("post", "/v1/audit", 400, client.post("/v1/audit", data=b'{"receipt": {"game": "x"}}\n',
                                                content_type="application/jsonl"))
    receipt = base + "/receipts/{seq}"
    hit("get", receipt, 400, client.get(f"/v1/games/{g.id}/receipts/0"))
    hit("get", receipt, 401, client.get(f"/v1/games/{g.id}/receipts/1", headers=bad))
    hit("get", receipt, 404, client.get("/v1/games/nope/receipts/1"))
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
    ann_auth, bob_auth = {"Authorization": f"Bearer {ann['token']}"}, {"Authorization": f"Bearer {bob['token']}"}
    opened = client.post("/v1/games", json={"game": "king-of-danger",
                                            "players": [{"player": ann["id"]}, {"open": True}]}, headers=ann_auth).json
    og, og_admin = opened["id"], {"Authorization": f"Bearer {opened['admin_token']}"}
    hit("post", "/v1/games", 403, client.post("/v1/games", json={"game": "king-of-danger", "players": [
        {"player": bob["id"]}, {"open": True}]}, headers=ann_auth))  # a player is seated only by their own act
    hit("post", "/v1/games", 401, client.post("/v1/games", json={"game": "king-of-danger", "players": ["a", "b"]},
                                              headers={"Authorization": "Basic eDp5"}))
    hit("post", base + "/decline", 401, client.post(f"/v1/games/{og}/decline"))
    hit("post", base + "/decline", 403, client.post(f"/v1/games/{og}/decline", headers=bob_auth))
    hit("post", base + "/decline", 404, client.post("/v1/games/nope/decline", headers=bob_auth))
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
    hit("post", base + "/decline", 409, client.post(f"/v1/games/{og}/decline", headers=bob_auth))
    # the end: an aborted game refuses moves and a second abort alike
    assert client.post(f"/v1/games/{g.id}/abort", json={}, headers=g.auth("admin")).status_code == 201
    hit("post", base + "/abort", 409, client.post(f"/v1/games/{g.id}/abort", json={}, headers=g.auth("admin")))
    hit("post", base + "/moves", 409, g.post(seat, {"text": "W1"}))
    lg, wd = "/v1/leagues/{league_id}", "/v1/leagues/{league_id}/players/{player_id}/withdraw"
    org = client.post("/v1/players", json={"name": "Org"}).json
    hit("post", "/v1/leagues", 401, client.post("/v1/leagues", json={"name": "L", "game": "chess",
                                                                     "format": "swiss", "players": []}))
    hit("post", "/v1/leagues", 400, client.post("/v1/leagues", json={"name": "L", "game": "chess",
                                                                     "format": "swiss", "players": []},
                                                headers={"Authorization": f"Bearer {org['token']}"}))
    hit("post", "/v1/leagues", 415, client.post("/v1/leagues", data="x", content_type="text/plain"))
    hit("get", "/v1/leagues", 400, client.get("/v1/leagues", query_string={"limit": 0}))
    hit("get", lg, 404, client.get("/v1/leagues/nope"))
    hit("get", lg + "/export", 404, client.get("/v1/leagues/nope/export"))
    hit("post", wd, 404, client.post("/v1/leagues/nope/players/x/withdraw", headers=bad))
    made = [client.post("/v1/players", json={"name": n}).json for n in ("Ann", "Bob")]
    pids = [p["id"] for p in made]
    league = new_league(client, made, game="king-of-danger", options={})
    hit("post", wd, 401, client.post(f"/v1/leagues/{league['id']}/players/{pids[0]}/withdraw"))
    hit("post", wd, 403, client.post(f"/v1/leagues/{league['id']}/players/{pids[0]}/withdraw", headers=bad))
    admin = {"Authorization": f"Bearer {league['admin_token']}"}
    running = client.get(f"/v1/leagues/{league['id']}").json["rounds"][0]["games"][0]["game"]
    hit("get", base + "/export", 409, client.get(f"/v1/games/{running}/export", headers=admin))  # of players
    hit("post", wd, 404, client.post(f"/v1/leagues/{league['id']}/players/nobody/withdraw", headers=admin))
    assert client.post(f"/v1/leagues/{league['id']}/players/{pids[0]}/withdraw", headers=admin).status_code == 200
    hit("post", wd, 409, client.post(f"/v1/leagues/{league['id']}/players/{pids[0]}/withdraw", headers=admin))
    st, jn, dc = "/v1/leagues/{league_id}/start", "/v1/leagues/{league_id}/join", "/v1/leagues/{league_id}/decline"
    hit("post", st, 409, client.post(f"/v1/leagues/{league['id']}/start", headers=admin))  # started already
    hit("post", st, 403, client.post(f"/v1/leagues/{league['id']}/start", headers=bad))
    hit("post", st, 401, client.post(f"/v1/leagues/{league['id']}/start"))
    hit("post", jn, 409, client.post(f"/v1/leagues/{league['id']}/join", json={}, headers=auth_of(made[0])))
    hit("post", jn, 400, client.post(f"/v1/leagues/{league['id']}/join", json={"seat": 0}, headers=auth_of(made[0])))
    hit("post", jn, 404, client.post("/v1/leagues/nope/join", json={}, headers=auth_of(made[0])))
    hit("post", dc, 409, client.post(f"/v1/leagues/{league['id']}/decline", headers=auth_of(made[0])))
    hit("post", dc, 401, client.post(f"/v1/leagues/{league['id']}/decline"))
    cd = client.post("/v1/players", json={"name": "Castle"}).json
    bots = [client.post("/v1/players", json={"name": f"Bot{i}", "bot": "random"}).json["id"] for i in range(2)]
    waiting = client.post("/v1/leagues", json={"name": "W", "game": "castle-danger", "format": "round-robin",
                                               "players": bots}, headers=auth_of(cd)).json
    hit("post", dc, 403, client.post(f"/v1/leagues/{waiting['id']}/decline", headers=auth_of(made[0])))
    hit("post", jn, 403, client.post(f"/v1/leagues/{waiting['id']}/join", json={}, headers=auth_of(made[0])))
    hit("post", st, 400, client.post(f"/v1/leagues/{waiting['id']}/start", headers=auth_of(cd)))  # turn_limit
    for (method, path), statuses in seen.items():
        assert statuses <= documented(spec, method, path), (method, path, statuses - documented(spec, method, path))


def move_examples(spec, game: str) -> list[dict]:
    """The move request's examples for ``game`` (one per move type of the game)."""
    path, method = MOVES_OP
    examples = spec["paths"][path][method]["requestBody"]["content"]["application/json"]["examples"]
    return [e["value"]["move"] for key, e in examples.items() if key.startswith(game + ".")]


def type_schemas(spec) -> dict[str, dict]:
    """Each move type's schema, by type (the members of ``Move``)."""
    out = {}
    for member in spec["components"]["schemas"]["Move"]["oneOf"]:
        schema = spec["components"]["schemas"][member["$ref"].rsplit("/", 1)[1]]
        (type_,) = schema["properties"]["type"]["enum"]
        out[type_] = schema
    return out


def test_moves_are_told_apart_by_their_type(spec):
    """One schema per move type, each refusing every other type (its `type` enum has
    one value), and a discriminator naming each: a generated client parses a move as
    the schema of its own type, whichever game it is of."""
    move = spec["components"]["schemas"]["Move"]
    by_type = type_schemas(spec)
    assert len(by_type) == len(move["oneOf"])
    assert move["discriminator"]["propertyName"] == "type"
    assert move["discriminator"]["mapping"] == {t: m["$ref"] for t, m in zip(by_type, move["oneOf"], strict=True)}
    for schema in by_type.values():
        assert schema["additionalProperties"] is False and "type" in schema["required"]


@pytest.mark.parametrize("game", GAMES)
def test_move_examples_are_real_moves(spec, game):
    """Every move type of the game has an example in the move request, and each is
    the game's canonical move, in and out of its notation."""
    move_schema = jsonschema.Draft4Validator(resolved(spec, spec["components"]["schemas"]["Move"]))
    engine = engine_by_name(game)
    examples = move_examples(spec, game)
    by_type = type_schemas(spec)
    assert sorted(e["type"] for e in examples) == sorted(t for t, s in by_type.items() if game in s["x-games"])
    for example in examples:
        move_schema.validate(example)
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


@pytest.mark.parametrize("game", GAMES)
def test_every_move_example_is_accepted_by_the_referee_somewhere(spec, game):
    """Each example of the document is a move the referee takes: random games are
    played until every example has been legal at some position, where the referee
    is then asked to decide it and writes its events."""
    players, configs = EXAMPLE_GAMES[game]
    wanted = {json.dumps(example, sort_keys=True): example for example in move_examples(spec, game)}
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
    """Every legal move is exactly one of Move's members (oneOf), that of its type,
    which names the game among its own."""
    validator = jsonschema.Draft4Validator(resolved(spec, spec["components"]["schemas"]["Move"]))
    by_type = type_schemas(spec)
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
                    validator.validate(move)
                    assert game in by_type[move["type"]]["x-games"], move

    random_game(game, players, options, seed=f"schema-{game}", on_step=on_step)
    assert checked
