"""Moves by e-mail through POST /v1/inbound/email."""

from __future__ import annotations

from email.message import EmailMessage

from tests.helpers import Game


def message(to: str, body: str, subject: str = "my move", msgid: str = "<m1@example.org>") -> bytes:
    msg = EmailMessage()
    msg["From"] = "ann@example.org"
    msg["To"] = to
    msg["Subject"] = subject
    msg["Message-ID"] = msgid
    msg.set_content(body)
    return msg.as_bytes()


def post(client, raw: bytes):
    return client.post("/v1/inbound/email", data=raw, content_type="message/rfc822")


def test_a_move_by_mail_is_applied_once(client):
    g = Game(client, "king-of-danger", 3, {"seed": "mail"})
    seat = g.summary()["to_act"][0]
    move = g.legal(seat)[0]
    text = "play " + move["card"] + (" " + move["suit"] if "suit" in move else "")
    body = f"token: {g.tokens[seat]}\n{text}\n\n-- \nAnn\n"
    raw = message(f"referee+{g.id}@example.org", body)
    r = post(client, raw)
    assert r.status_code == 201, r.json
    assert r.json["events"][0]["payload"]["move"] == move
    assert post(client, raw).json == r.json  # delivered twice, applied once
    assert g.summary()["version"] == r.json["version"]


def test_the_game_may_be_named_in_the_subject_and_quotes_are_ignored(client):
    g = Game(client, "king-of-danger", 2, {"seed": "mail2"})
    seat = g.summary()["to_act"][0]
    move = g.legal(seat)[0]
    text = "play " + move["card"] + (" " + move["suit"] if "suit" in move else "")
    body = f"{text}\nTOKEN: {g.tokens[seat]}\n\nOn Monday Bob wrote:\n> resign\n"
    r = post(client, message("referee@example.org", body, subject=f"Re: [{g.id}] your turn"))
    assert r.status_code == 201, r.json
    assert g.summary()["status"] == "active"


def test_mail_refusals(client):
    g = Game(client, "king-of-danger", 2, {"seed": "mail3"})
    r = post(client, message("referee@example.org", "resign"))
    assert r.status_code == 400 and r.json["field"] == "To"
    r = post(client, message(f"referee+{g.id}@example.org", "resign"))
    assert r.status_code == 401 and r.json["code"] == "unauthenticated"
    r = post(client, message(f"referee+{g.id}@example.org", "token: nope\nresign"))
    assert r.status_code == 401
    r = post(client, message("referee+nosuchgame1@example.org", "token: x\nresign"))
    assert r.status_code == 404 and r.json["code"] == "no-such-game"
    r = post(client, message(f"referee+{g.id}@example.org", f"token: {g.tokens[0]}\n"))
    assert r.status_code == 400
    r = post(client, message(f"referee+{g.id}@example.org", f"token: {g.tokens[0]}\nfly away"))
    assert r.status_code == 400 and r.json["code"] == "malformed"
    assert g.summary()["version"] == 2
