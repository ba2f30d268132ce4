"""An open game's invitations, mailed through a real SMTP server on both stores: one
message per address and window (the confirmation's claim), nothing the inviter typed
in it, one a day from one inviter to a confirmed player's address, a failing server's
message sent once later, and the invitee's way from the message to a started game."""

from __future__ import annotations

import time

from referee.players import confirmation
from referee.players import invitation_mail as invitations
from referee.players.store import players_of
from tests.playertools import auth, new_game, register
from tests.test_players_api import code_in

GAME = "king-of-danger"


def arrived(inbox, address: str, count: int) -> list:
    end = time.monotonic() + 10
    while time.monotonic() < end and len(inbox.to(address)) < count:
        time.sleep(0.05)
    time.sleep(0.2)  # and no more comes after it
    got = inbox.to(address)
    assert len(got) == count, [m["Subject"] for m in got]
    return got


def nothing_due(service) -> bool:
    return [e for e in players_of(service).due_mail(time.time() + 10**7)
            if e["player"].startswith("invite.")] == []


def test_an_invitation_arrives_once_with_nothing_the_inviter_typed(client, service, mail):
    ann = register(client, name="Ann")
    game = new_game(client, [{"player": ann["id"]}, {"invite": "zoe@players.example"},
                              {"invite": "ZOE@players.example"},
                              {"name": "Buy pills at spam.example", "bot": "basic"}],
                     spectators={"webhook": "https://spam.example/hook"})
    gid = game["id"]
    (msg,) = arrived(mail, "zoe@players.example", 1)  # two seats, one address: one message
    body = msg.get_content()
    assert "King of Danger" in msg["Subject"] and "King of Danger" in body
    assert "Ann invites you" in body and "a basic bot" in body and "spam" not in (body + str(msg)).lower()
    assert "POST /v1/players" not in body  # the link registers the invitee: no API to learn first
    assert f"https://referee.example/games/{gid}/invitation?seat=1&code=" in body
    page = client.get(f"/games/{gid}")  # the game's page: the open game's seats, no address
    assert page.status_code == 200 and 'class="seat-actions"' in page.get_data(as_text=True)
    assert "zoe@" not in page.get_data(as_text=True).lower()
    assert msg["Auto-Submitted"] == "auto-generated"
    invitations.deliver_due(service, now=time.time() + 10**6)  # a later round: nothing twice
    arrived(mail, "zoe@players.example", 1)
    assert nothing_due(service) and len(mail.messages) == 1  # and nobody else is mailed


def test_no_link_without_a_public_url(client, mail, monkeypatch):
    monkeypatch.delenv("REFEREE_PUBLIC_URL")
    gid = new_game(client, [{"invite": "yan@players.example"}, {"open": True}])["id"]
    (msg,) = arrived(mail, "yan@players.example", 1)
    assert "http" not in msg.get_content() and f"/v1/games/{gid}/join" in msg.get_content()
    # how long a code waits, in words: "at most once in 1 day", no "24 hour(s)"
    assert "at most once in 1 day:" in " ".join(msg.get_content().split()) and "hour" not in msg.get_content()


def test_an_unconfirmed_address_gets_one_message_per_window(client, service, mail):
    first = new_game(client, [{"invite": "xia@players.example"}, {"open": True}])["id"]
    arrived(mail, "xia@players.example", 1)
    second = new_game(client, [{"invite": "Xia@players.example"}, {"open": True}])["id"]
    # and the confirmation a registration would send falls in the same window
    xia = register(client, name="Xia", email="xia@players.example")
    assert xia["email_confirmed"] is False
    assert client.get("/v1/players/me", headers=auth(xia["token"])).json["contacts"][
        "confirmation_mailed"] is False
    invitations.deliver_due(service)
    arrived(mail, "xia@players.example", 1)
    assert len(mail.to("Xia@players.example")) == 0 and nothing_due(service)
    assert first != second


def test_a_confirmed_players_address_gets_one_invitation_a_day_from_one_inviter(client, service, mail):
    wu = register(client, name="Wu", email="wu@players.example")
    (conf,) = arrived(mail, "wu@players.example", 1)
    r = client.post(f"/v1/players/{wu['id']}/confirm", json={"code": code_in(conf)})
    assert r.status_code == 200, r.json
    games = [new_game(client, [{"invite": "WU@players.example"}, {"open": True}])["id"] for _ in range(2)]
    ann = register(client, name="Ann")  # another inviter: a message of its own
    games.append(new_game(client, [{"player": ann["id"]}, {"invite": "wu@players.example"}])["id"])
    got = arrived(mail, "players.example", 3)[1:]
    assert sorted(m["Message-ID"].split(".")[1] for m in got) == sorted([games[0], games[2]])
    invited = client.get("/v1/players/me", headers=auth(wu["token"])).json["invitations"]
    assert [i["id"] for i in invited] == games  # every one stands, mailed or not


def test_a_failing_server_delivers_the_invitation_once_later(client, service, mail):
    mail.failing = True
    gid = new_game(client, [{"invite": "vic@players.example"}, {"open": True}])["id"]
    players = players_of(service)
    end = time.monotonic() + 10
    while time.monotonic() < end and not any(e["attempts"] for e in players.due_mail(time.time() + 10**7)):
        time.sleep(0.05)  # the creation's own try has failed and is queued with backoff
    (entry,) = players.due_mail(time.time() + 10**7)
    assert entry["player"] == f"invite.{gid}.0" and entry["attempts"] == 1
    assert invitations.deliver_due(service) == 0  # not due yet: backing off
    mail.failing = False
    later = time.time() + 3600
    assert confirmation.deliver_due(service, now=later) == 0  # the confirmations' sender leaves it
    assert invitations.deliver_due(service, now=later) == 1
    assert invitations.deliver_due(service, now=later + 3600) == 0
    arrived(mail, "vic@players.example", 1)
    assert nothing_due(service)


def test_the_invitee_registers_confirms_joins_and_the_game_starts(client, service, mail, monkeypatch):
    monkeypatch.setenv("REFEREE_CONFIRM_WINDOW", "1")
    ann = register(client, name="Ann")
    gid = new_game(client, [{"player": ann["id"]}, {"invite": "uma@players.example"}])["id"]
    arrived(mail, "uma@players.example", 1)
    uma = register(client, name="Uma", email="uma@players.example")  # within the window: no code
    arrived(mail, "uma@players.example", 1)
    time.sleep(1.1)  # the window has passed: setting the address again mails the code
    r = client.patch("/v1/players/me", json={"email": "uma@players.example"}, headers=auth(uma["token"]))
    assert r.status_code == 200 and r.json["contacts"]["confirmation_mailed"] is True
    code = code_in(arrived(mail, "uma@players.example", 2)[1])
    assert client.post(f"/v1/players/{uma['id']}/confirm", json={"code": code}).status_code == 200
    r = client.post(f"/v1/games/{gid}/join", json={}, headers=auth(uma["token"]))
    assert r.status_code == 201 and r.json["seat"] == 1 and r.json["status"] == "active", r.json
    assert client.get(f"/v1/games/{gid}").json["status"] == "active"


def test_mail_down_does_not_fail_the_creation(client, service, monkeypatch):
    monkeypatch.setenv("REFEREE_SMTP_URL", "smtp://127.0.0.1:1")
    monkeypatch.setenv("REFEREE_MAIL_FROM", "referee@castle.example")
    start = time.monotonic()
    gid = new_game(client, [{"invite": "tom@players.example"}, {"open": True}])["id"]
    assert time.monotonic() - start < 2
    assert client.get(f"/v1/games/{gid}").status_code == 200


def link_in(msg) -> str:
    (url,) = [w for w in msg.get_content().split() if "/invitation?" in w]
    return url.replace("https://referee.example", "")


def test_the_link_registers_the_invitee_and_seats_them(client, service, mail):
    ann = register(client, name="Ann")
    gid = new_game(client, [{"player": ann["id"]}, {"invite": "uma@players.example"}])["id"]
    (msg,) = arrived(mail, "uma@players.example", 1)
    url = link_in(msg)
    page = client.get(url)  # opening the link (a mail scanner would) answers nothing
    text = page.get_data(as_text=True)
    assert page.status_code == 200 and "Register and accept" in text and "Decline" in text and "Ann" in text
    assert page.headers["Cache-Control"] == "no-store" and "uma@" not in text
    assert client.get(f"/v1/games/{gid}").json["status"] == "open"
    code = url.partition("code=")[2]
    r = client.post(f"/games/{gid}/invitation", data={"seat": "1", "code": code, "answer": "accept", "name": " "})
    assert r.status_code == 400 and "Register and accept" in r.get_data(as_text=True)  # a name is needed
    r = client.post(f"/games/{gid}/invitation", data={"seat": "1", "code": code, "answer": "accept", "name": "Uma"})
    text = r.get_data(as_text=True)
    assert r.status_code == 201 and "Your player token" in text and "the game has started" in text, text
    token = text.split('<code id="token">')[1].split("</code>")[0]
    me = client.get("/v1/players/me", headers=auth(token)).json
    assert me["name"] == "Uma" and me["contacts"]["email"] == "uma@players.example"
    assert me["contacts"]["email_confirmed"] is True  # the code came to that address: it is confirmed
    assert [g["id"] for g in me["current_games"]] == [gid]
    assert client.get(f"/v1/games/{gid}/view", headers=auth(token)).json["seat"] == 1
    assert client.get(f"/v1/games/{gid}").json["players"] == ["Ann", "Uma"]
    again = client.post(f"/games/{gid}/invitation", data={"seat": "1", "code": code, "answer": "accept",
                                                          "name": "Uma"})
    assert again.status_code == 409 and "Your player token" not in again.get_data(as_text=True)
    assert arrived(mail, "uma@players.example", 1)  # and no confirmation code was mailed: none is needed


def test_the_link_of_a_players_invitation_declines(client, service, mail):
    vic = register(client, name="Vic")
    players_of(service).update(vic["id"], {"email": "vic@players.example", "email_confirmed": True}, None)
    ann = register(client, name="Ann")
    gid = new_game(client, [{"player": ann["id"]}, {"invite_player": vic["id"]}])["id"]
    (msg,) = arrived(mail, "vic@players.example", 1)
    assert "Ann invites you" in msg.get_content() and "The seats: Ann, you." in msg.get_content()
    url = link_in(msg)
    text = client.get(url).get_data(as_text=True)
    assert "(as Vic)" in text and ">Accept<" in text and "name=\"name\"" not in text
    code = url.partition("code=")[2]
    for seat, forged in (("1", code[:-1] + ("A" if code[-1] != "A" else "B")), ("0", code)):
        r = client.post(f"/games/{gid}/invitation", data={"seat": seat, "code": forged, "answer": "decline"})
        assert r.status_code == 403 and client.get(f"/v1/games/{gid}").json["status"] == "open"
    r = client.post(f"/games/{gid}/invitation", data={"seat": "1", "code": code, "answer": "decline"})
    assert r.status_code == 200 and "the game is cancelled" in r.get_data(as_text=True)
    assert client.get(f"/v1/games/{gid}").json["status"] == "cancelled"
    assert client.get("/v1/players/me", headers=auth(vic["token"])).json["invitations"] == []
