"""Replacement seats: a new token, new contacts, a seat-replaced event, idempotent."""

from __future__ import annotations

import pytest

from tests.helpers import Game


def _replace(g: Game, seat, body, who="admin", **headers):
    return g.client.post(f"/v1/games/{g.id}/seats/{seat}/replace", json=body,
                         headers={**g.auth(who), **headers})


def test_a_replaced_seat_has_a_new_token_and_name(client):
    g = Game(client, "castle-danger", ["Ann", "Bob"])
    seat = g.summary()["to_act"][0]
    r = _replace(g, seat, {"name": "Cleo", "email": "cleo@example.org"})
    assert r.status_code == 201, r.json
    assert r.json["seat"] == seat and r.json["name"] == "Cleo"
    ev = r.json["events"][0]
    assert ev["type"] == "seat-replaced" and ev["payload"] == {"seat": seat, "name": "Cleo"}
    assert "cleo@example.org" not in g.export()  # contacts never in the log
    assert g.summary()["players"][seat] == "Cleo"
    # the old token is refused at once; the new one plays
    old = g.tokens[seat]
    assert g.get("/view", seat).status_code == 401
    g.tokens[seat] = r.json["token"]
    assert r.json["token"] != old
    assert g.get("/view", seat).json["seat"] == seat
    moves = [m for m in g.legal(seat) if m["type"] != "resign"]
    assert g.post(seat, {"move": moves[0]}).status_code == 201
    # the admin sees the new contacts
    contacts = g.get("/contacts", "admin")
    assert contacts.status_code == 200 and "cleo@example.org" in str(contacts.json), contacts.json
    r = client.post("/v1/audit", data=g.export(), content_type="application/x-ndjson")
    assert r.json["valid"], r.json


def test_the_old_token_is_refused_by_another_process(store_url, tmp_path):
    """Two services on one store (two processes): the one that did not replace the
    seat refuses the old token too (a view reads the record from the store; moves,
    which may check a kept copy, are tested in tests/test_kept_record.py)."""
    from referee.api import create_app
    from referee.store import open_store
    from referee.system import assemble

    a = create_app(assemble(open_store(store_url))).test_client()
    b = create_app(assemble(open_store(store_url))).test_client()
    g = Game(a, "king-of-danger", 2)
    assert b.get(f"/v1/games/{g.id}/view", headers=g.auth(0)).status_code == 200
    r = _replace(g, 0, {"name": "Dee"})
    assert r.status_code == 201
    assert b.get(f"/v1/games/{g.id}/view", headers=g.auth(0)).status_code == 401
    g.tokens[0] = r.json["token"]
    assert b.get(f"/v1/games/{g.id}/view", headers=g.auth(0)).status_code == 200


def test_a_retry_with_the_same_key_replaces_once(client):
    g = Game(client, "castle-danger", 2)
    body = {"name": "Eve", "webhook": "https://example.org/hook"}
    first = _replace(g, 1, body, **{"Idempotency-Key": "k1"})
    assert first.status_code == 201, first.json
    again = _replace(g, 1, body, **{"Idempotency-Key": "k1"})
    assert again.status_code == 201
    assert again.json == first.json  # same token, same event, same webhook secret
    assert sum(e["type"] == "seat-replaced" for e in g.get("/events", "admin").json["events"]) == 1
    g.tokens[1] = first.json["token"]
    assert g.get("/view", 1).status_code == 200
    # the same key for another body is refused and changes nothing
    before = g.export()
    r = _replace(g, 1, {"name": "Fay"}, **{"Idempotency-Key": "k1"})
    assert r.status_code == 422 and g.export() == before
    # a new key replaces again
    r = _replace(g, 1, body, **{"Idempotency-Key": "k2"})
    assert r.status_code == 201 and r.json["token"] != first.json["token"]


@pytest.mark.parametrize("seat,body,who,status,field", [
    (0, {"name": "X"}, 0, 403, None),
    (0, {"name": "X"}, None, 403, None),
    (5, {"name": "X"}, "admin", 400, "seat"),
    (0, {"name": ""}, "admin", 400, "name"),
    (0, {"name": "   "}, "admin", 400, "name"),
    # another seat's name, in any case and with spaces about it: two players would read as one
    (0, {"name": " P1 "}, "admin", 400, "name"),
    (0, {"name": "X", "email": "nope"}, "admin", 400, "email"),
    (0, {"name": "X", "colour": "red"}, "admin", 400, "colour"),
    (0, {}, "admin", 400, None),
])
def test_bad_replacements_change_nothing(client, seat, body, who, status, field):
    g = Game(client, "castle-danger", 2)
    before, summary = g.export(), g.summary()
    r = _replace(g, seat, body, who)
    assert r.status_code == status, r.json
    assert r.content_type == "application/problem+json"
    if field:
        assert r.json["field"] == field
    assert g.export() == before and g.summary() == summary
    assert g.get("/view", 0).status_code == 200


def test_a_finished_game_keeps_its_seats(client):
    g = Game(client, "castle-danger", 2)
    seat = g.summary()["to_act"][0]
    assert g.post(seat, {"move": {"type": "resign"}}).status_code == 201
    assert _replace(g, 0, {"name": "Late"}).status_code == 409


def test_the_audit_refuses_a_forged_replacement(client):
    from tests.helpers import canonical_lines
    from tests.test_audit import reseal

    g = Game(client, "castle-danger", 2)
    assert _replace(g, 1, {"name": "Gus"}).status_code == 201
    lines = canonical_lines(g.export())
    lines[-1]["payload"]["email"] = "gus@example.org"
    report = client.post("/v1/audit", data=reseal(lines), content_type="application/x-ndjson").json
    assert not report["valid"] and report["first_error"]["seq"] == lines[-1]["seq"], report


def test_a_new_player_gets_a_full_move_time(client):
    from freezegun import freeze_time

    with freeze_time("2026-03-01T10:00:00Z") as frozen:
        g = Game(client, "castle-danger", 2, {"clock": {"move_seconds": 3600}})
        seat = g.summary()["to_act"][0]
        frozen.tick(3000)
        assert _replace(g, 1 - seat, {"name": "Idle"}).status_code == 201  # not to act: unchanged
        assert g.summary()["deadline"] == "2026-03-01T11:00:00.000000Z"
        frozen.tick(60)
        assert _replace(g, seat, {"name": "New"}).status_code == 201
        assert g.summary()["deadlines"] == [{"seat": seat, "deadline": "2026-03-01T11:51:00.000000Z", "overdue": False}]
