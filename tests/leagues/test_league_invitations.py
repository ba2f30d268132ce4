"""A league's invitations by mail, through a real SMTP server on both stores: one
message to an invited player with a confirmed address, at most one a day from the
same organiser, holding the league's registered names and how to answer; an
unconfirmed address gets none (the player's /me lists the invitation all the same).
The message holds nothing the organiser typed: not even the league's name."""

from __future__ import annotations

from tests.playertools import auth, register
from tests.test_invitations import arrived
from tests.test_players_api import code_in


def league(client, by: dict, ids: list[str], name: str) -> str:
    r = client.post("/v1/leagues", json={"name": name, "game": "king-of-danger", "options": {"target": 1},
                                         "format": "round-robin", "players": ids}, headers=auth(by["token"]))
    assert r.status_code == 201, r.json
    return r.json["id"]


def test_an_invited_player_is_mailed_once_a_day_per_organiser(client, service, mail):
    wu = register(client, name="Wu", email="wu@players.example")
    (conf,) = arrived(mail, "wu@players.example", 1)
    assert client.post(f"/v1/players/{wu['id']}/confirm", json={"code": code_in(conf)}).status_code == 200
    quiet = register(client, name="Quiet", email="quiet@players.example")  # never confirmed
    arrived(mail, "quiet@players.example", 1)  # its confirmation only
    org, ann = register(client, name="Org"), register(client, name="Ann")
    first = league(client, org, [wu["id"], quiet["id"]], "Autumn")
    second = league(client, org, [wu["id"]], "Winter")  # the same organiser: not mailed again today
    third = league(client, ann, [wu["id"]], "Spring")  # another organiser: mailed
    got = arrived(mail, "wu@players.example", 3)[1:]
    assert sorted(m["Message-ID"].split(".")[1] for m in got) == sorted([first, third])
    msg = next(m for m in got if first in m["Message-ID"])
    body = msg.get_content()
    assert "Org invites you" in body and "King of Danger" in msg["Subject"]
    assert "Autumn" not in body + str(msg)  # nothing the organiser typed
    assert f"POST /v1/leagues/{first}/join" in body and f"https://referee.example/leagues/{first}" in body
    assert msg["Auto-Submitted"] == "auto-generated"
    arrived(mail, "quiet@players.example", 1)  # nothing for an address nobody confirmed
    listed = client.get("/v1/players/me", headers=auth(wu["token"])).json["league_invitations"]
    assert [i["id"] for i in listed] == [first, second, third]  # every one stands, mailed or not
    assert listed[0]["organiser"] == "Org" and listed[0]["title"] == "King of Danger"  # the name, not the id
    assert client.post(f"/v1/leagues/{second}/decline", headers=auth(wu["token"])).status_code == 200
    listed = client.get("/v1/players/me", headers=auth(wu["token"])).json["league_invitations"]
    assert [i["id"] for i in listed] == [first, third]
