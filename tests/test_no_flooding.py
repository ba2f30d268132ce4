"""No flooding, on both stores and through a real SMTP server: bursts of game
creations and of invitations meet 429 (with Retry-After) before they meet anyone's
mailbox; a player gets one invitation e-mail a day from one inviter, and at most a
set number of invitations pending (beyond it, 429 naming the seat, nothing kept)."""

from __future__ import annotations

import time

from referee.players.confirmation import address_key
from referee.players.store import players_of
from tests.playertools import auth, register

GAME = "king-of-danger"


def confirmed(service, client, name: str, address: str) -> dict:
    player = register(client, name=name)
    players_of(service).update(player["id"], {"email": address, "email_confirmed": True}, None)
    players_of(service).own_address(address_key(address), player["id"])  # as confirming it writes
    return player


def settled(inbox, seconds: float = 0.5) -> list:
    """The messages once the senders' threads have had their go."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        time.sleep(0.05)
    return list(inbox.messages)


def create(client, players, token=None, address="127.0.0.1"):
    return client.post("/v1/games", json={"game": GAME, "players": players},
                       headers=auth(token) if token else {}, environ_base={"REMOTE_ADDR": address})


def test_a_burst_of_invitations_meets_429_before_the_victims_mailbox(client, service, mail, monkeypatch):
    monkeypatch.setenv("REFEREE_INVITE_RATE", "6/hour")
    victim = confirmed(service, client, "Vic", "vic@players.example")
    mallory, sock = register(client, name="Mallory"), register(client, name="Sock")
    answers = [create(client, [{"player": mallory["id"]}, {"invite_player": victim["id"]}], mallory["token"])
               for _ in range(10)]
    codes = [r.status_code for r in answers]
    assert codes == [201] * 6 + [429] * 4, codes
    refused = answers[-1]
    assert refused.json["code"] == "too-many-requests" and int(refused.headers["Retry-After"]) >= 1
    assert refused.headers["Content-Type"].startswith("application/problem+json")
    # another account from the same address meets the same address's limit
    r = create(client, [{"player": sock["id"]}, {"invite": "vic@players.example"}], sock["token"])
    assert r.status_code == 429
    got = settled(mail)
    assert [m["To"] for m in got] == ["vic@players.example"], [m["Subject"] for m in got]  # one, not six
    # the six stand, mailed or not: the victim sees them and may decline each
    me = client.get("/v1/players/me", headers=auth(victim["token"])).json
    assert len(me["invitations"]) == 6 and {i["inviter"] for i in me["invitations"]} == {"Mallory"}


def test_a_burst_of_creations_meets_429_per_address_and_per_token(client, monkeypatch):
    monkeypatch.setenv("REFEREE_CREATE_RATE", "5/minute")
    ann = register(client, name="Ann")
    codes = [create(client, ["a", "b"]).status_code for _ in range(7)]
    assert codes == [201] * 5 + [429] * 2
    r = create(client, ["a", "b"], address="10.0.0.2")  # another address has its own count
    assert r.status_code == 201
    # a token counts wherever it comes from: five from five addresses, then 429
    codes = [create(client, [{"player": ann["id"]}, "b"], ann["token"], address=f"10.1.0.{k}").status_code
             for k in range(7)]
    assert codes == [201] * 5 + [429] * 2
    r = create(client, ["a", "b"], ann["token"], address="10.1.0.9")
    assert r.status_code == 429 and int(r.headers["Retry-After"]) <= 60


def test_pending_invitations_are_bounded_and_one_mail_a_day_per_inviter(client, service, mail, monkeypatch):
    monkeypatch.setenv("REFEREE_PENDING_INVITATIONS", "3")
    victim = confirmed(service, client, "Vic", "vic@players.example")
    inviters = [register(client, name=f"Inviter {k}") for k in range(5)]
    made = []
    for k, who in enumerate(inviters[:3]):  # three inviters, three addresses: three invitations, three mails
        r = create(client, [{"player": who["id"]}, {"invite_player": victim["id"]}], who["token"],
                   address=f"10.2.0.{k}")
        assert r.status_code == 201, r.json
        made.append(r.json)
    lobby = client.get("/v1/games?status=open").json["games"]
    r = create(client, [{"player": inviters[3]["id"]}, {"invite_player": victim["id"]}], inviters[3]["token"],
               address="10.2.0.3")
    assert r.status_code == 429 and r.json["code"] == "too-many-requests", r.json
    assert r.json["field"] == "players[1].invite_player" and int(r.headers["Retry-After"]) > 86400
    # an address seat kept for the same player counts the same
    r = create(client, [{"player": inviters[3]["id"]}, {"invite": "VIC@players.example"}], inviters[3]["token"],
               address="10.2.0.3")
    assert r.status_code == 429 and r.json["field"] == "players[1].invite"
    assert client.get("/v1/games?status=open").json["games"] == lobby  # nothing kept
    assert len(settled(mail)) == 3
    # an answer frees a place: declined, the fourth inviter's invitation fits (and is mailed)
    assert client.post(f"/v1/games/{made[0]['id']}/decline", headers=auth(victim["token"])).status_code == 200
    r = create(client, [{"player": inviters[3]["id"]}, {"invite_player": victim["id"]}], inviters[3]["token"],
               address="10.2.0.3")
    assert r.status_code == 201, r.json
    # so does a game its admin cancels; a second invitation from one inviter within a day is not mailed
    assert client.post(f"/v1/games/{made[1]['id']}/cancel", headers=auth(made[1]["admin_token"])).status_code == 200
    r = create(client, [{"player": inviters[3]["id"]}, {"invite_player": victim["id"]}, {"open": True}],
               inviters[3]["token"], address="10.2.0.3")
    assert r.status_code == 201, r.json
    assert len(settled(mail)) == 4
    assert len(client.get("/v1/players/me", headers=auth(victim["token"])).json["invitations"]) == 3


def test_an_invitation_pending_too_long_no_longer_counts(client, service, monkeypatch):
    """An unanswered invitation expires from the player's count (and list): the store
    keeps nothing for ever of a player nobody answers."""
    monkeypatch.setenv("REFEREE_PENDING_INVITATIONS", "1")
    victim, ann, bob = (register(client, name=n) for n in ("Vic", "Ann", "Bob"))
    players = players_of(service)
    assert players.invitation_add(victim["id"], "game:old", time.time() - 20 * 86400,
                                  time.time() - 6 * 86400, 1) is None  # pending 14 days, six days ago
    r = create(client, [{"player": ann["id"]}, {"invite_player": victim["id"]}], ann["token"])
    assert r.status_code == 201, r.json
    assert players.invitations_of(victim["id"], time.time()) == [f"game:{r.json['id']}"]
    r = create(client, [{"player": bob["id"]}, {"invite_player": victim["id"]}], bob["token"])
    assert r.status_code == 429
