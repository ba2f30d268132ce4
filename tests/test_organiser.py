"""The organiser's contact: given at creation or by the admin later, private like a
seat's, told through the same outbox (a real SMTP server, a real webhook receiver)
of each seat's timeout, the game's end and a notice that cannot be delivered."""

from __future__ import annotations

import json
import time

import pytest
from freezegun import freeze_time
from standardwebhooks.webhooks import Webhook

from referee import timeouts
from referee.mail import inbound, sending
from tests.helpers import Game
from tests.test_timeouts import T0, at

CLOCK = {"move_seconds": 3600, "remind_seconds": 0}
ORGANISER = "org@league.example"


def ticked(service, g: Game, seconds: float) -> None:
    with freeze_time(at(seconds)):
        timeouts.tick(service, g.id)


def test_a_remind_timeout_tells_the_organiser_by_mail_and_webhook(client, service, smtp, hooks):
    with freeze_time(T0):
        g = Game(client, "castle-danger", [{"name": "Ann", "email": "ann@example.org"}, "Bob"],
                 {"clock": {**CLOCK, "on_timeout": "remind"}},
                 organiser={"email": ORGANISER, "webhook": hooks.url})
        seat = g.summary()["to_act"][0]
    secret = g.created["organiser"]["webhook_secret"]
    assert g.created["organiser"]["email"] == ORGANISER and secret.startswith("whsec_")
    sending.deliver_due(service)
    assert smtp.inbox.to(ORGANISER) == [] and hooks.requests == []  # nothing to act on yet
    ticked(service, g, 3600)
    sending.deliver_due(service, time.time() + 1)
    told = smtp.inbox.to(ORGANISER)
    assert len(told) == 1, [m["Subject"] for m in told]
    text = told[0].get_content()
    name = ["Ann", "Bob"][seat]
    assert f"{name} ran out of time (deadline Sunday 1 March 2026, 11:00 UTC)" in text
    assert f"/v1/games/{g.id}/seats/{seat}/replace" in text and f"/v1/games/{g.id}/abort" in text
    assert "ran out of time" in told[0]["Subject"] and told[0]["Reply-To"] is None  # no seat's reply address
    # the same notice by webhook, signed with the organiser's own secret
    assert len(hooks.requests) == 1
    req = hooks.requests[0]
    payload = Webhook(secret).verify(req["body"], {k.lower(): v for k, v in req["headers"].items()})
    assert payload["type"] == "notice.timeout" and payload["to"] == "organiser" and payload["seat"] is None
    assert payload["message"] == text.replace("\r\n", "\n")
    listed = g.get("/notices", "admin").json["notices"]
    assert [(n["to"], n["reason"], n["state"]) for n in listed if n["to"] == "organiser"] == \
        [("organiser", "timeout", "sent")]


def test_the_organiser_hears_of_the_end_and_its_contact_is_private(client, service, smtp):
    g = Game(client, "king-of-danger", ["Ann", "Bob"], {"seed": "org-end"})
    put = lambda who, body: client.put(f"/v1/games/{g.id}/organiser", json=body,  # noqa: E731
                                       headers=g.auth(who))
    # only the admin sets it, checked as a seat's contact is; a refusal changes nothing
    assert put(0, {"email": ORGANISER}).status_code == 403
    assert put(None, {"email": ORGANISER}).status_code == 403
    r = put("admin", {"email": "not an address"})
    assert r.status_code == 400 and r.json["field"] == "email", r.json
    r = put("admin", {"phone": "123"})
    assert r.status_code == 400 and r.json["field"] == "phone", r.json
    assert g.get("/contacts", "admin").json["organiser"] == {"email": None, "webhook": None}
    r = put("admin", {"email": ORGANISER})
    assert r.status_code == 200 and r.json == {"email": ORGANISER, "webhook": None}
    assert g.get("/contacts", "admin").json["organiser"] == {"email": ORGANISER, "webhook": None}
    assert "organiser" not in g.get("/contacts", 0).json
    assert g.post(0, {"move": {"type": "resign"}}).status_code == 201
    sending.deliver_due(service)
    told = smtp.inbox.to(ORGANISER)
    assert len(told) == 1 and "game over: Bob wins" in told[0]["Subject"]
    assert "The game is over: Ann resigned. Bob wins." in told[0].get_content()
    for who in (None, 0, 1, "admin"):  # never in the log, a view or the listing
        assert ORGANISER not in g.get("/events", who, limit=1000).get_data(as_text=True)
        assert ORGANISER not in g.get("/view", who).get_data(as_text=True)
    assert ORGANISER not in g.export() + json.dumps(client.get("/v1/games").json)
    # null clears it: nobody to tell any more
    assert put("admin", {"email": None}).json == {"email": None, "webhook": None}


@pytest.mark.parametrize("organiser, field", [
    ({"email": "nope"}, "organiser.email"),
    ({"webhook": "ftp://example.org/x"}, "organiser.webhook"),
    ({"phone": "123"}, "organiser.phone"),
    ("org@example.org", "organiser"),
])
def test_a_bad_organiser_is_refused_naming_the_field(client, monkeypatch, organiser, field):
    monkeypatch.delenv("REFEREE_WEBHOOK_ALLOW_PRIVATE", raising=False)
    before = client.get("/v1/games").json["games"]
    r = client.post("/v1/games", json={"game": "king-of-danger", "players": ["Ann", "Bob"],
                                       "organiser": organiser})
    assert r.status_code == 400 and r.json["field"] == field, r.json
    assert client.get("/v1/games").json["games"] == before


def test_a_notice_refused_for_good_is_reported_to_the_organiser_once(client, service, smtp, monkeypatch):
    g = Game(client, "king-of-danger", [{"name": "Ann", "email": "ann@example.org"},
                                        {"name": "Bob", "email": "bob@example.org"}],
             {"seed": "org-refused"}, organiser={"email": ORGANISER})
    real = smtp.inbox.handle_DATA

    async def refuse_bob(server, session, envelope):  # Bob's mailbox does not exist
        if "bob@example.org" in envelope.rcpt_tos:
            return "550 5.1.1 no such user"
        return await real(server, session, envelope)

    monkeypatch.setattr(smtp.inbox, "handle_DATA", refuse_bob)
    now = time.time()
    for step in range(3):  # three rounds of failures: the organiser is told once
        sending.deliver_due(service, now + step * 10_000)
        seat = g.summary()["to_act"][0]
        assert g.post(seat, {"move": g.legal(seat)[0]}).status_code == 201
    sending.deliver_due(service, now + 40_000)
    told = smtp.inbox.to(ORGANISER)
    assert len(told) == 1, [m["Subject"] for m in told]
    text = told[0].get_content()
    assert "A notice to Bob's email (bob@example.org) could not be delivered" in text and "550" in text
    assert f"PUT /v1/games/{g.id}/contacts/1" in text
    assert smtp.inbox.to("ann@example.org")  # Ann's notices went on meanwhile


def test_a_bounce_of_a_notice_is_reported_to_the_organiser(client, service, smtp):
    Game(client, "king-of-danger", [{"name": "Ann", "email": "ann@example.org"}, "Bob"],
         {"seed": "org-bounce"}, organiser={"email": ORGANISER})
    sending.deliver_due(service)
    notice = smtp.inbox.to("ann@example.org")[0]
    bounce = (f"From: MAILER-DAEMON@mx.example.org\r\nTo: referee@league.example\r\n"
              f"Subject: Undelivered Mail Returned to Sender\r\nMessage-ID: <b1@mx.example.org>\r\n\r\n"
              f"The mail could not be delivered.\r\n\r\nMessage-ID: {notice['Message-ID']}\r\n").encode()
    assert "ignored" in inbound.receive(service, bounce, ["referee@league.example"], "")  # never answered
    assert "ignored" in inbound.receive(service, bounce, ["referee@league.example"], "")
    sending.deliver_due(service)
    told = smtp.inbox.to(ORGANISER)
    assert len(told) == 1 and "could not be delivered" in told[0]["Subject"]
    assert "ann@example.org" in told[0].get_content() and "bounce" in told[0].get_content()
    assert len(smtp.inbox.to("ann@example.org")) == 1  # the bounce itself gets no answer
