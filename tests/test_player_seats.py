"""A seat held by a player (the creator's own, ``{"player": ID}``, or an invited
player's once they join): it takes the player's name and contacts, the player's
token acts for it, the log names the player (so ratings can be recomputed from an
export), and nobody else reads the player's contacts."""

from __future__ import annotations

from referee.audit import audit
from tests.playertools import auth, new_game, register

GAME = "king-of-danger"


def ended_export(client, gid: str, players) -> str:
    """The game's export once a seat has resigned: a game of players' export is
    nobody's while it runs (docs/api.md, "Who sees what"), anyone's after."""
    seat = client.get(f"/v1/games/{gid}").json["to_act"][0]
    r = client.post(f"/v1/games/{gid}/moves", json={"move": {"type": "resign"}},
                    headers=auth(players[seat]["token"]))
    assert r.status_code == 201, r.json
    r = client.get(f"/v1/games/{gid}/export")
    assert r.status_code == 200, r.json
    return r.text


def two_players(client, ann, bob, **more) -> dict:
    """Ann's game (her token, her seat) with a seat kept for Bob, who takes it."""
    r = client.post("/v1/games", json={"game": GAME, "players": [{"player": ann["id"]},
                                                                 {"invite_player": bob["id"]}], **more},
                    headers=auth(ann["token"]))
    assert r.status_code == 201 and r.json["status"] == "open", r.json
    joined = client.post(f"/v1/games/{r.json['id']}/join", json={}, headers=auth(bob["token"]))
    assert joined.status_code == 201 and joined.json["status"] != "open", joined.json
    return r.json


def test_a_players_token_plays_their_seat_and_the_log_names_them(client):
    ann = register(client, name="Ann")
    bob = register(client, name="Bob", webhook="https://hooks.example/bob")
    game = two_players(client, ann, bob, options={"seed": "seats-1"})
    assert [s["name"] for s in game["seats"]] == ["Ann", "Bob"]
    assert [s["player"] for s in game["seats"]] == [ann["id"], bob["id"]]
    assert client.get(f"/v1/games/{game['id']}").json["players"] == ["Ann", "Bob"]
    # the game's creator reads neither contacts nor secrets of the players it seats
    assert all("webhook" not in s and "webhook_secret" not in s and "email" not in s for s in game["seats"])
    contacts = client.get(f"/v1/games/{game['id']}/contacts", headers=auth(game["admin_token"])).json
    assert contacts["contacts"][1]["webhook"] is None and contacts["contacts"][1]["player"] == bob["id"]

    gid = game["id"]
    seat = client.get(f"/v1/games/{gid}").json["to_act"][0]
    token = (ann, bob)[seat]["token"]
    legal = client.get(f"/v1/games/{gid}/legal", headers=auth(token)).json
    assert legal["seat"] == seat
    r = client.post(f"/v1/games/{gid}/moves", json={"move": legal["moves"][0]}, headers=auth(token))
    assert r.status_code == 201, r.json
    # the other player's token is no key to this seat
    other = (ann, bob)[1 - seat]["token"]
    r = client.post(f"/v1/games/{gid}/moves", json={"move": legal["moves"][0]}, headers=auth(other))
    assert r.status_code in (403, 409, 422) and r.json["code"] != "unauthenticated"

    export = ended_export(client, gid, (ann, bob))
    first = export.splitlines()[0]
    assert f'"player":"{ann["id"]}"' in first and f'"player":"{bob["id"]}"' in first
    assert "hooks.example" not in export  # contacts are never in the log
    assert audit(export)["valid"]


def test_rated_false_is_in_the_log_and_audits(client):
    ann, bob = register(client, name="Ann"), register(client, name="Bob")
    game = two_players(client, ann, bob, rated=False)
    export = ended_export(client, game["id"], (ann, bob))
    assert '"rated":false' in export.splitlines()[0]
    assert audit(export)["valid"]


def test_a_forged_player_seat_fails_the_audit(client):
    ann, bob = register(client, name="Ann"), register(client, name="Bob")
    game = two_players(client, ann, bob)
    export = ended_export(client, game["id"], (ann, bob))
    assert audit(export)["valid"]
    forged = export.replace(ann["id"], "someone-else", 1)
    assert not audit(forged)["valid"]


def test_bad_player_seats_are_refused_and_create_nothing(client, service):
    ann = register(client, name="Ann")
    before = len(service.games())
    cases = [
        ([{"invite_player": "nobody-here"}, "Bob"], "players[0].invite_player"),
        ([{"player": ann["id"]}, {"player": ann["id"]}], "players[1].player"),
        ([{"player": ann["id"], "name": "Ann2"}, "Bob"], "players[0].name"),
    ]
    for players, field in cases:
        r = client.post("/v1/games", json={"game": GAME, "players": players}, headers=auth(ann["token"]))
        assert r.status_code == 400, (players, r.json)
        assert r.json["field"] == field, r.json
        assert r.headers["Content-Type"].startswith("application/problem+json")
    r = client.post("/v1/games", json={"game": GAME, "players": ["Ann", "Bob"], "rated": "no"})
    assert r.status_code == 400
    assert len(service.games()) == before


def test_a_players_token_with_no_seat_in_the_game_is_403_not_your_seat_and_nobodys_is_401(client):
    """A valid player token is authenticated even where it holds no seat: 403
    `not-your-seat` on every endpoint that takes a seat's token, never the 401 of a
    token nobody holds (which counts towards the address's failed token checks)."""
    ann, bob, cy = (register(client, name=n) for n in ("Ann", "Bob", "Cy"))
    game = new_game(client, [{"player": ann["id"]}, {"player": bob["id"]}], options={"seed": "no-seat"})
    gid = game["id"]
    at = f"/v1/games/{gid}"
    move = {"move": client.get(f"{at}/legal", headers=auth(ann["token"])).json["moves"][0]}
    endpoints = [  # (method, path, body): every one that takes a seat's token
        ("GET", f"{at}/view", None), ("GET", f"{at}/legal", None), ("POST", f"{at}/moves", move),
        ("GET", f"{at}/events", None), ("GET", f"{at}/export", None),
        ("POST", f"{at}/abort", {"reason": "x"}), ("POST", f"{at}/clock", {"paused": True}),
        ("POST", f"{at}/seats/0/replace", {"name": "Di"}), ("GET", f"{at}/contacts", None),
        ("PUT", f"{at}/contacts/0", {"email": "a@example.org"}),
        ("PUT", f"{at}/spectators", {"webhook": None}), ("PUT", f"{at}/organiser", {"email": None}),
        ("GET", f"{at}/notices", None), ("GET", f"{at}/board.svg", None), ("GET", f"{at}/log", None),
    ]
    before = client.get(f"{at}/events").json
    wrong_secret = cy["token"].partition(".")[0] + ".not-its-secret"
    for method, path, body in endpoints:
        r = client.open(path, method=method, json=body, headers=auth(cy["token"]))
        assert (r.status_code, r.json["code"]) == (403, "not-your-seat"), (path, r.json)
        assert r.mimetype == "application/problem+json"
        for nobodys in ("a-token-nobody-holds", wrong_secret):
            r = client.open(path, method=method, json=body, headers=auth(nobodys))
            assert (r.status_code, r.json["code"]) == (401, "unauthenticated"), (path, nobodys, r.json)
    assert client.get(f"{at}/events").json == before
    assert client.get(f"{at}/contacts", headers=auth(game["admin_token"])).json["contacts"][0]["email"] is None
