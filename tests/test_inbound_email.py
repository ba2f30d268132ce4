"""Moves by e-mail through POST /v1/inbound/email."""

from __future__ import annotations

from email.message import EmailMessage

import pytest

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


QUOTE_HEADERS = [
    "On Mon, 23 Nov 2026 at 10:00, Referee <referee@league.example> wrote:",
    "On Mon, Nov 23, 2026 at 10:00 AM Referee League <\nreferee+abc@league.example> wrote:",
    "Am 23.11.2026 um 10:00 schrieb Referee <referee@league.example>:",
    "Le lun. 23 nov. 2026 à 10:00, Referee <referee@league.example> a écrit :",
    "El lun, 23 nov 2026 a las 10:00, Referee (<referee@league.example>) escribió:",
    "Op ma 23 nov. 2026 om 10:00 schreef Referee <referee@league.example>:",
    "Il giorno lun 23 nov 2026 alle ore 10:00 Referee <referee@league.example> ha scritto:",
    "Em seg., 23 de nov. de 2026 às 10:00, Referee <referee@league.example> escreveu:",
    "-----Original Message-----\nFrom: Referee",
    "________________________________\nFrom: Referee <referee@league.example>\nSent: Monday, 23 November 2026 10:00",
    "From: Referee <referee@league.example>\nSent: Monday, 23 November 2026 10:00\nTo: Ann",
    "Von: Referee <referee@league.example>\nGesendet: Montag, 23. November 2026 10:00",
    "-- \nAnn Smith\nLeague secretary",
    "Sent from my iPhone",
]


@pytest.mark.parametrize("header", QUOTE_HEADERS, ids=range(len(QUOTE_HEADERS)))
def test_the_moves_are_the_lines_above_the_quoted_notice_in_any_common_form(header):
    from referee.mail.reading import own_lines

    body = f"play W3\n#7\n\n{header}\n\nplay W4\n> play W5\n> resign\n"
    assert [line for line in own_lines(body) if line.strip()] == ["play W3", "#7"]


def test_a_move_line_that_merely_starts_like_a_header_is_kept():
    from referee.mail.reading import own_lines

    assert own_lines("play W3\nplay W4") == ["play W3", "play W4"]
    assert own_lines("On second thought:\nplay W4") == ["On second thought:", "play W4"]


def test_show_help_and_robots_over_http(client):
    g = Game(client, "king-of-danger", [{"name": "Ann", "email": "ann@example.org"}, "Bob"], {"seed": "mail-http"})
    r = post(client, message(f"referee+{g.id}@example.org", f"token: {g.tokens[0]}\nshow"))
    assert r.status_code == 202 and r.json["answered"] == "show"
    r = post(client, message(f"referee+{g.id}@example.org", f"token: {g.tokens[0]}\nhelp", msgid="<m2@x>"))
    assert r.status_code == 202 and r.json["answered"] == "help"
    auto = message(f"referee+{g.id}@example.org", f"token: {g.tokens[0]}\nplay W1", msgid="<m3@x>")
    auto = auto.replace(b"Subject:", b"Auto-Submitted: auto-replied\nSubject:")
    r = post(client, auto)
    assert r.status_code == 202 and r.json["ignored"].startswith("auto-submitted")
    assert g.summary()["version"] == 2
    listed = g.get("/notices", "admin").json["notices"]
    assert {n["reason"] for n in listed if n["seat"] == 0} >= {"show", "help"}


def test_a_multipart_mail_with_an_attachment_is_read_from_its_plain_text(client):
    g = Game(client, "king-of-danger", 2, {"seed": "mail-multipart"})
    seat = g.summary()["to_act"][0]
    move = g.legal(seat)[0]
    text = "play " + move["card"] + (" " + move["suit"] if "suit" in move else "")
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "ann@example.org", f"referee+{g.id}@example.org", "Re: turn"
    msg["Message-ID"] = "<multi@example.org>"
    msg.set_content(f"token: {g.tokens[seat]}\n{text}\n\nOn Monday Referee wrote:\n> resign\n")
    msg.add_alternative(f"<p>token: {g.tokens[seat]}<br>{text}</p><blockquote>resign</blockquote>", subtype="html")
    msg.add_attachment(b"resign\n", maintype="text", subtype="plain", filename="notes.txt")
    r = post(client, msg.as_bytes())
    assert r.status_code == 201, r.json
    assert r.json["events"][0]["payload"]["move"] == move
    assert g.summary()["status"] == "active"


def test_a_refused_mail_of_several_moves_names_its_line_and_says_none_was_applied(client, smtp):
    """Three moves in one mail, the second refused: the answer, as it arrives, names
    that line and its text, and says the line before it was not applied either
    (the game is where it was). A line that is no move at all is named the same way."""
    import time

    from referee.mail import sending

    g = Game(client, "king-of-danger", [{"name": "Ann", "email": "ann@players.example"},
                                        {"name": "Bob", "email": "bob@players.example"}], {"seed": "lines"})
    service = client.application.extensions["referee"]
    seat = g.summary()["to_act"][0]
    version = g.summary()["version"]
    text = g.get("/legal", who=seat).json["text"]
    first = text[0]
    lines = f"{first}\n{first}\n{first}"  # the second: no longer this seat's turn
    r = post(client, message(f"referee+{g.id}@example.org", f"token: {g.tokens[seat]}\n{lines}\n",
                             msgid="<three@x>"))
    assert r.status_code == 403 and r.json["index"] == 1, r.json
    assert g.summary()["version"] == version
    r = post(client, message(f"referee+{g.id}@example.org", f"token: {g.tokens[seat]}\n{first}\n{first}\nfly away\n",
                             msgid="<fly@x>"))
    assert r.status_code == 400 and g.summary()["version"] == version
    before = len(smtp.inbox.messages)
    sending.deliver_due(service, time.time() + 10**6)
    mine = ("ann" if seat == 0 else "bob") + "@players.example"
    answers = {m["In-Reply-To"]: m.get_content() for m in smtp.inbox.since(before) if mine in str(m["To"])}
    three = answers["<three@x>"]
    assert f'Line 2 of 3, "{first}", was refused; the line before it was not applied either' in three
    assert "Refused (" in three
    fly = answers["<fly@x>"]
    assert 'Line 3 of 3, "fly away", was refused; the 2 lines before it were not applied either' in fly
    # one move: its refusal alone, as before
    r = post(client, message(f"referee+{g.id}@example.org", f"token: {g.tokens[seat]}\nfly away\n", msgid="<one@x>"))
    assert r.status_code == 400
    before = len(smtp.inbox.messages)
    sending.deliver_due(service, time.time() + 10**6)
    one = next(m.get_content() for m in smtp.inbox.since(before) if m["In-Reply-To"] == "<one@x>")
    assert "Line " not in one and "Refused (" in one
