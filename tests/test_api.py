"""The public contract over HTTP, against both stores: every endpoint, every
error code, and that a refusal changes nothing."""

from __future__ import annotations

import pytest

from tests.helpers import Game

KOD = "king-of-danger"
ALL_CARDS = [f"W{i}" for i in range(1, 8)] + [f"C{i}" for i in range(1, 8)] + \
    [f"Z{i}" for i in range(1, 9)] + ["KD", "KW", "KC", "KZ"]


def problem(r, status: int, code: str) -> dict:
    assert r.status_code == status, r.get_data(as_text=True)
    assert r.mimetype == "application/problem+json"
    body = r.json
    assert body["code"] == code and body["status"] == status
    assert body["title"] and body["detail"] and body["type"]
    return body


@pytest.fixture
def kod(client):
    # a resignation ends it, as these tests use one to end a game (docs/api.md, "Leaving")
    return Game(client, KOD, 3, {"seed": "api-tests", "on_resign": "end"})


def unchanged(game: Game):
    """Asserts, after the block, that the log is byte for byte what it was."""
    class Check:
        def __enter__(self):
            self.before = game.export()
            return self

        def __exit__(self, *exc):
            if exc[0] is None:
                assert game.export() == self.before, "a refused request changed the log"
    return Check()


# ---- creating and reading ---------------------------------------------------------

def test_create_answers_as_the_contract_says(client):
    r = client.post("/v1/games", json={"game": KOD, "players": ["Ann", "Bob"], "options": {}})
    assert r.status_code == 201
    body = r.json
    assert set(body) == {"id", "game", "options", "version", "status", "seats", "admin_token", "seed_commitment",
                         "receipt"}
    assert body["receipt"]["game"] == body["id"] and body["receipt"]["seq"] == 1  # the game's first event
    assert [(s["seat"], s["name"]) for s in body["seats"]] == [(0, "Ann"), (1, "Bob")]
    tokens = [s["token"] for s in body["seats"]] + [body["admin_token"]]
    assert len(set(tokens)) == 3 and all(len(t) >= 24 for t in tokens)
    assert body["options"] == {"target": 31, "first_dealer": 0, "follow_suit": "hand", "trackers": "carry",
                               "on_resign": "play-on"}
    assert len(body["seed_commitment"]) == 64


def test_tokens_are_stored_only_as_hashes(client, service):
    g = Game(client, KOD, 2)
    record = service.store.record(g.id)
    for token in g.tokens + [g.admin]:
        assert token not in str(record.to_dict())


def test_summary_after_the_deal(kod):
    s = kod.summary()
    assert set(s) == {"id", "game", "options", "status", "version", "to_act", "players", "scores",
                      "result", "stacked", "deadline", "deadlines", "clock", "seed_commitment", "banks"}
    assert s["banks"] == []  # under a bank clock only (docs/clock.md)
    assert s["status"] == "active" and s["version"] == 2 and s["to_act"] == [1]
    assert s["players"] == ["p0", "p1", "p2"] and s["scores"] == [0, 0, 0]
    assert s["stacked"] is True and s["result"] is None


def test_an_unstacked_game_says_so(client):
    assert Game(client, KOD, 2).summary()["stacked"] is False


def test_explicit_deck_is_hidden_from_everyone_but_admin_until_the_end(client):
    deck = list(ALL_CARDS)
    g = Game(client, KOD, 2, {"deck": deck})
    assert g.summary()["options"]["deck"] != deck
    first = g.get("/events", 0).json["events"][0]
    assert first["payload"]["options"]["deck"] != deck
    assert g.get("/events", "admin").json["events"][0]["payload"]["options"]["deck"] == deck


def test_view_per_caller_and_time_travel(kod):
    seat = kod.summary()["to_act"][0]
    move = kod.legal(seat)[0]
    assert kod.post(seat, {"move": move}).status_code == 201
    now = kod.get("/view", seat).json
    assert now["version"] == 3 and now["seat"] == seat and now["viewer"] == "seat"
    assert kod.get("/view", "admin").json["viewer"] == "admin"
    assert kod.get("/view").json["viewer"] == "spectator"
    before = kod.get("/view", seat, at=2).json
    assert before["version"] == 2 and before["view"]["played"] == [] and now["view"]["played"] != []
    problem(kod.get("/view", seat, at=99), 400, "malformed")
    problem(kod.get("/view", seat, at="x"), 400, "malformed")


def test_events_after_and_limit(kod):
    evs = kod.get("/events", "admin", after=0, limit=1).json["events"]
    assert [e["seq"] for e in evs] == [1]
    evs = kod.get("/events", "admin", after=1).json["events"]
    assert [e["seq"] for e in evs] == [2]
    assert set(evs[0]) == {"seq", "type", "actor", "at", "payload", "prev", "salt", "hash"}
    assert len(evs[0]["salt"]) == 64
    assert all(e["salt"] is None for e in kod.get("/events", 0).json["events"])
    assert evs[0]["actor"] == "referee" and evs[0]["at"].endswith("Z")
    problem(kod.get("/events", "admin", limit=0), 400, "malformed")
    problem(kod.get("/events", "admin", after=-1), 400, "malformed")


def test_legal_lists_exactly_what_moves_accepts(kod):
    seat = kod.summary()["to_act"][0]
    legal = kod.legal(seat)
    assert {"type": "resign"} in legal
    for move in legal:
        if move["type"] == "resign":
            continue
        with unchanged(kod):
            pass
    other = (seat + 1) % 3
    assert kod.legal(other) == [{"type": "resign"}]


# ---- moves ------------------------------------------------------------------------

def test_move_single_batch_and_text(kod):
    seat = kod.summary()["to_act"][0]
    move = kod.legal(seat)[0]
    r = kod.post(seat, {"move": move})
    assert r.status_code == 201 and r.json["version"] == 3
    assert r.json["events"][0]["payload"]["move"] == move
    nxt = kod.summary()["to_act"][0]
    m2 = kod.legal(nxt)[0]
    text = m2["card"] + (" " + m2["suit"] if "suit" in m2 else "")
    r = kod.post(nxt, {"text": "play " + text})
    assert r.status_code == 201 and r.json["events"][0]["payload"]["move"] == m2


def test_batch_is_all_or_nothing(kod):
    seat = kod.summary()["to_act"][0]
    good = kod.legal(seat)[0]
    with unchanged(kod):
        body = problem(kod.post(seat, {"moves": [good, good]}), 403, "not-your-turn")
    assert kod.summary()["version"] == 2
    assert body.get("index") == 1


# ---- every error code of the contract ----------------------------------------------

@pytest.mark.parametrize("body,field", [
    ({}, None),
    ({"game": KOD}, "players"),
    ({"game": "chess", "players": ["a", "b"]}, "game"),
    ({"game": KOD, "players": "ab"}, "players"),
    ({"game": KOD, "players": ["a", "b"], "extra": 1}, "extra"),
    ({"game": KOD, "players": ["a", "b"], "options": {"target": "high"}}, None),
    ({"game": KOD, "players": ["a"]}, "players"),
    ({"game": KOD, "players": ["a", "b"], "options": {"seed": True}}, "options.seed"),
    ({"game": KOD, "players": ["a", "b"], "options": {"seed": ""}}, "options.seed"),
])
def test_create_refusals_are_malformed(client, body, field):
    body = problem(client.post("/v1/games", json=body), 400, "malformed")
    if field:
        assert body["field"] == field


def test_malformed_json_and_wrong_types(kod):
    seat = kod.summary()["to_act"][0]
    with unchanged(kod):
        r = kod.client.post(f"/v1/games/{kod.id}/moves", data="{not json",
                            headers={**kod.auth(seat), "Content-Type": "application/json"})
        problem(r, 400, "malformed")
        problem(kod.post(seat, {"move": "W1"}), 400, "malformed")
        problem(kod.post(seat, {"moves": []}), 400, "malformed")
        problem(kod.post(seat, {"move": {"type": "play"}}), 400, "malformed")
        problem(kod.post(seat, {"move": {"type": "fly"}}), 400, "malformed")
        problem(kod.post(seat, {"move": {"type": "play", "card": "X9"}}), 400, "malformed")
        problem(kod.post(seat, {"text": "dance wildly"}), 400, "malformed")
        problem(kod.post(seat, {"move": {"type": "resign"}, "text": "resign"}), 400, "malformed")
        problem(kod.post(seat, {"move": {"type": "resign"}, "expected_version": "2"}), 400, "malformed")
        problem(kod.post(seat, {"move": {"type": "resign"}}, **{"Idempotency-Key": "x" * 201}), 400, "malformed")


def test_unauthenticated(kod):
    with unchanged(kod):
        problem(kod.client.post(f"/v1/games/{kod.id}/moves", json={"move": {"type": "resign"}}),
                401, "unauthenticated")
        problem(kod.client.post(f"/v1/games/{kod.id}/moves", json={"move": {"type": "resign"}},
                                headers={"Authorization": "Bearer not-a-token"}), 401, "unauthenticated")
        problem(kod.client.get(f"/v1/games/{kod.id}/view", headers={"Authorization": "Basic abc"}),
                401, "unauthenticated")


def test_a_token_of_another_game_is_refused(client, kod):
    other = Game(client, KOD, 2)
    with unchanged(kod):
        r = kod.client.post(f"/v1/games/{kod.id}/moves", json={"move": {"type": "resign"}},
                            headers=other.auth(0))
        problem(r, 401, "unauthenticated")


def test_not_your_seat(kod):
    with unchanged(kod):
        problem(kod.post("admin", {"move": {"type": "resign"}}), 403, "not-your-seat")
        problem(kod.get("/legal", "admin"), 403, "not-your-seat")
        problem(kod.get("/legal"), 401, "unauthenticated")


def test_not_your_turn(kod):
    seat = kod.summary()["to_act"][0]
    other = (seat + 1) % 3
    card = next(m for m in kod.get("/view", other).json["view"]["hand"])
    with unchanged(kod):
        problem(kod.post(other, {"move": {"type": "play", "card": card}}), 403, "not-your-turn")


def test_no_such_game(client):
    for path in ("", "/view", "/legal", "/events", "/export"):
        problem(client.get(f"/v1/games/nope{path}"), 404, "no-such-game")
    problem(client.post("/v1/games/nope/moves", json={"move": {"type": "resign"}}), 404, "no-such-game")


def test_version_conflict_names_the_current_version(kod):
    seat = kod.summary()["to_act"][0]
    move = kod.legal(seat)[0]
    with unchanged(kod):
        body = problem(kod.post(seat, {"move": move, "expected_version": 1}), 409, "version-conflict")
    assert body["current_version"] == 2
    assert kod.post(seat, {"move": move, "expected_version": 2}).status_code == 201


def test_illegal_move_names_the_rule(kod):
    seat = kod.summary()["to_act"][0]
    hand = kod.get("/view", seat).json["view"]["hand"]
    absent = next(c for c in ALL_CARDS if c not in hand)
    with unchanged(kod):
        body = problem(kod.post(seat, {"move": {"type": "play", "card": absent}}), 422, "illegal-move")
    assert body["rule"]


def test_game_over(kod):
    assert kod.post(0, {"move": {"type": "resign"}}).status_code == 201
    s = kod.summary()
    assert s["status"] == "finished" and 0 not in s["result"]["winners"]
    with unchanged(kod):
        problem(kod.post(1, {"move": {"type": "resign"}}), 409, "game-over")


def test_unknown_route_and_method(client):
    problem(client.get("/v2/anything"), 404, "not-found")
    problem(client.delete("/v1/games"), 405, "method-not-allowed")


# ---- idempotency -----------------------------------------------------------------

def test_idempotent_retry_gets_the_first_answer_and_appends_nothing(kod):
    seat = kod.summary()["to_act"][0]
    move = kod.legal(seat)[0]
    first = kod.post(seat, {"move": move}, **{"Idempotency-Key": "k1"})
    assert first.status_code == 201
    log = kod.export()
    again = kod.post(seat, {"move": move}, **{"Idempotency-Key": "k1"})
    assert again.status_code == 201 and again.json == first.json
    assert kod.export() == log


def test_idempotency_key_reused_for_another_request(kod):
    seat = kod.summary()["to_act"][0]
    legal = kod.legal(seat)
    assert kod.post(seat, {"move": legal[0]}, **{"Idempotency-Key": "k2"}).status_code == 201
    with unchanged(kod):
        problem(kod.post(seat, {"move": legal[1]}, **{"Idempotency-Key": "k2"}), 422,
                "idempotency-key-reused")


def test_an_idempotency_key_is_scoped_to_the_caller(kod):
    """Two seats of one game sending the same key with different moves each get
    their own answer, and each its own again when it retries."""
    sent = []
    for _ in range(2):
        seat = kod.summary()["to_act"][0]
        move = kod.legal(seat)[0]
        r = kod.post(seat, {"move": move}, **{"Idempotency-Key": "same-key"})
        assert r.status_code == 201, r.json
        assert {e["actor"] for e in r.json["events"]} == {seat}
        sent.append((seat, move, r.json))
    (first, _, a), (second, _, b) = sent
    assert first != second and b["version"] > a["version"]
    with unchanged(kod):
        for seat, move, answer in sent:
            again = kod.post(seat, {"move": move}, **{"Idempotency-Key": "same-key"})
            assert again.status_code == 201 and again.json == answer


def test_a_refused_request_records_no_idempotent_answer(kod):
    seat = kod.summary()["to_act"][0]
    other = (seat + 1) % 3
    problem(kod.post(other, {"move": kod.legal(seat)[0]}, **{"Idempotency-Key": "k3"}), 403, "not-your-turn")
    r = kod.post(seat, {"move": kod.legal(seat)[0]}, **{"Idempotency-Key": "k3"})
    # the key belongs to the caller's token: another seat's key space is its own
    assert r.status_code == 201


# ---- export, audit, abort ----------------------------------------------------------

def test_export_is_admin_only_until_the_end(kod):
    problem(kod.get("/export"), 403, "forbidden")
    problem(kod.get("/export", 0), 403, "forbidden")
    text = kod.export()
    assert text.count("\n") == 2
    kod.post(0, {"move": {"type": "resign"}})
    assert kod.get("/export").status_code == 200


def test_audit_of_an_export(kod, client):
    kod.post(0, {"move": {"type": "resign"}})
    r = client.post("/v1/audit", data=kod.export(), content_type="application/jsonl")
    assert r.status_code == 200
    assert r.json["valid"] is True and r.json["seed"] == "verified" and r.json["chain"] == "ok"
    assert r.json["result"]["winners"] and r.json["first_error"] is None


def test_audit_of_garbage_is_an_answer_not_an_error(client):
    r = client.post("/v1/audit", data=b"\xff\xfe not even utf-8")
    assert r.status_code == 200 and r.json["valid"] is False
    r = client.post("/v1/audit", data="")
    assert r.status_code == 200 and r.json["valid"] is False and r.json["first_error"]["seq"] == 1


def test_abort_by_the_admin_only(kod, client):
    problem(kod.client.post(f"/v1/games/{kod.id}/abort", json={}, headers=kod.auth(0)), 403, "forbidden")
    r = kod.client.post(f"/v1/games/{kod.id}/abort", json={"reason": "league folded"}, headers=kod.auth("admin"))
    assert r.status_code == 201
    s = kod.summary()
    assert s["status"] == "aborted" and s["result"]["winners"] == [] and s["result"]["reason"] == "league folded"
    audit = client.post("/v1/audit", data=kod.export()).json
    assert audit["valid"] and audit["seed"] == "verified"
    problem(kod.client.post(f"/v1/games/{kod.id}/abort", json={}, headers=kod.auth("admin")), 409, "game-over")


# ---- operations ------------------------------------------------------------------

def test_openapi_docs_health_metrics(client, kod):
    spec = client.get("/openapi.json").json
    for path in ("/v1/games", "/v1/games/{game_id}", "/v1/games/{game_id}/view", "/v1/games/{game_id}/legal",
                 "/v1/games/{game_id}/moves", "/v1/games/{game_id}/events", "/v1/games/{game_id}/export",
                 "/v1/audit"):
        assert path in spec["paths"], path
    page = client.get("/docs")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "/docs-assets/swagger-ui-bundle.js" in html and "//cdn" not in html and "https://" not in html.split("<body")[0]
    assert client.get("/docs-assets/swagger-ui-bundle.js").status_code == 200
    assert client.get("/healthz").json == {"status": "ok"}
    metrics = client.get("/metrics").get_data(as_text=True)
    assert "referee_moves_accepted_total" in metrics and "referee_refusals_total" in metrics


def test_an_integer_seed_deals_as_its_decimal_text(client):
    by_int = Game(client, KOD, 3, {"seed": 11})
    by_text = Game(client, KOD, 3, {"seed": "11"})
    assert by_int.summary()["stacked"] is True
    assert by_int.get("/view", 0).json["view"] == by_text.get("/view", 0).json["view"]
    assert by_int.created["seed_commitment"] == by_text.created["seed_commitment"]


@pytest.mark.parametrize("content_type", [None, "text/plain", "application/x-www-form-urlencoded",
                                          "multipart/form-data; boundary=x"])
def test_a_move_that_is_not_json_is_415_and_changes_nothing(kod, content_type):
    before = kod.export()
    seat = kod.summary()["to_act"][0]
    headers = kod.auth(seat) | ({"Content-Type": content_type} if content_type else {})
    r = kod.client.post(f"/v1/games/{kod.id}/moves", data='{"text": "W1"}', headers=headers)
    assert r.status_code == 415 and r.mimetype == "application/problem+json"
    assert r.json["code"] == "unsupported-media-type" and r.json["accepted"] == ["application/json"]
    assert kod.export() == before
    r = kod.client.post("/v1/games", data='{"game": "kings-keys", "players": ["a", "b", "c"]}',
                        headers={"Content-Type": content_type} if content_type else {})
    assert r.status_code == 415


def test_json_with_a_charset_or_a_plus_json_type_is_json(client):
    for ct in ("application/json; charset=utf-8", "application/vnd.referee+json"):
        r = client.post("/v1/games", data='{"game": "kings-keys", "players": ["a", "b", "c"]}',
                        headers={"Content-Type": ct})
        assert r.status_code == 201, r.json


def test_audit_bodies_are_capped_at_16_mib_and_other_bodies_at_1(client, kod):
    r = client.post("/v1/audit", data=b"x" * (16 * 1024 * 1024 + 1), content_type="application/jsonl")
    assert r.status_code == 413 and r.json["code"] == "too-large"
    r = client.post("/v1/audit", data=b"x" * (15 * 1024 * 1024), content_type="application/jsonl")
    assert r.status_code == 200 and r.json["valid"] is False  # read, and judged
    r = client.post("/v1/games", data=b'{"game": "' + b"k" * (1024 * 1024) + b'"}', content_type="application/json")
    assert r.status_code == 413 and r.json["code"] == "too-large"
    r = client.post("/v1/audit", data=kod.export(), content_type="application/json")
    assert r.status_code == 415 and "application/jsonl" in r.json["accepted"]


@pytest.mark.parametrize(("game", "players"), [("king-of-danger", 3), ("castle-danger", 2),
                                               ("king-of-the-castle", 3), ("kings-keys", 3)])
def test_legal_gives_each_move_as_text_too(client, game, players):
    from referee.games import engine as engine_by_name

    g = Game(client, game, players, {"seed": "legal-text"})
    seat = g.summary()["to_act"][0]
    answer = g.get("/legal", seat).json
    assert len(answer["text"]) == len(answer["moves"]) > 1
    eng = engine_by_name(game)
    for move, text in zip(answer["moves"], answer["text"], strict=True):
        assert eng.parse(text) == [move]


@pytest.mark.parametrize("content_type", ["application/jsonl", "application/x-ndjson", "application/json-lines",
                                          "text/plain; charset=utf-8", "application/octet-stream",
                                          "application/x-www-form-urlencoded", None])
def test_an_export_audits_under_every_type_it_is_sent_as(client, kod, content_type):
    """curl --data-binary sends the form type, a file upload octet-stream, an editor
    text/plain: the export is read as it is under each, never parsed as a form."""
    text = kod.export()
    r = client.post("/v1/audit", data=text.encode(), headers={"Content-Type": content_type} if content_type else {})
    assert r.status_code == 200, r.json
    assert r.json["valid"] is True and r.json["events"] == len(text.splitlines())


@pytest.mark.parametrize("content_type", ["application/json", "multipart/form-data; boundary=x", "image/png"])
def test_an_export_sent_as_another_type_is_415(client, kod, content_type):
    r = client.post("/v1/audit", data=kod.export().encode(), headers={"Content-Type": content_type})
    assert r.status_code == 415 and r.mimetype == "application/problem+json"
    assert r.json["code"] == "unsupported-media-type" and "application/jsonl" in r.json["accepted"]


@pytest.mark.parametrize("game, players", [("king-of-danger", 3), ("castle-danger", 2),
                                           ("king-of-the-castle", 3), ("kings-keys", 3)])
def test_a_move_answer_is_exactly_what_its_schema_gives(client, game, players):
    # The moves endpoint answers without walking its answer through MoveResult
    # (referee/api/routes.py): that is right only while the schema would change
    # nothing, field for field, for every answer of every game and every seat.
    import random

    import schemas

    g, rnd, seen = Game(client, game, players), random.Random(game), []
    for _ in range(60):
        s = g.summary()
        if s["status"] != "active":
            break
        seat = rnd.choice(s["to_act"])
        r = g.post(seat, {"move": rnd.choice([m for m in g.legal(seat) if m["type"] != "resign"])})
        assert r.status_code == 201, r.json
        seen.append(r.json)
    assert len(seen) >= 10
    fields = set(schemas.EventOut().fields)
    for answer in seen:
        assert schemas.MoveResult().dump(answer) == answer
        assert set(answer) == {"version", "status", "events", "receipt"}
        assert answer["receipt"]["seq"] == answer["events"][-1]["seq"]  # the request's own last event
        assert all(set(ev) == fields for ev in answer["events"]), answer
