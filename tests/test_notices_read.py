"""Notices as a player reads them, through a real SMTP server and a real webhook
receiver: names and not seat numbers, durations and moments in words, one notice
per event in the order they happened, a subject and a From line a person can read,
and the seat's own page link that plays as that seat and as no other."""

from __future__ import annotations

import json
import re
import time

import pytest
from freezegun import freeze_time

from referee import narration, timeouts
from referee.mail import sending
from tests.helpers import Game
from tests.test_timeouts import T0, at

PLAYERS = [{"name": "Ann", "email": "ann@example.org"}, {"name": "Bob", "email": "bob@example.org"},
           {"name": "Cy", "email": "cy@example.org"}]
SEAT_NUMBER = re.compile(r"\bseats? \d", re.IGNORECASE)


def link_token(mail) -> str:
    return re.search(r"#token=([A-Za-z0-9_-]+)", mail.get_content()).group(1)


@pytest.mark.parametrize(("seconds", "words"), [
    (0, "0 seconds"), (1, "1 second"), (59, "59 seconds"), (60, "1 minute"), (61, "1 minute 1 second"),
    (599, "9 minutes 59 seconds"), (3600, "1 hour"), (3661, "1 hour 1 minute"), (7200, "2 hours"),
    (86400, "1 day"), (90000, "1 day 1 hour"), (2 * 86400 + 7200, "2 days 2 hours")])
def test_durations_are_words_with_plurals(seconds, words):
    assert narration.duration(seconds) == words


def test_a_reminder_says_one_second_and_its_deadline_in_words(client, service, smtp):
    with freeze_time(T0):
        g = Game(client, "castle-danger", PLAYERS[:2],
                 {"clock": {"move_seconds": 3600, "remind_seconds": 600, "on_timeout": "remind"}})
        seat = g.summary()["to_act"][0]
    with freeze_time(at(3599)):
        timeouts.tick(service, g.id)
    sending.deliver_due(service, time.time() + 1)
    reminder = [m for m in smtp.inbox.to(PLAYERS[seat]["email"]) if "reminder" in m["Subject"]]
    assert len(reminder) == 1
    text = reminder[0].get_content()
    print(reminder[0])  # the whole mail, as the player gets it (pytest -s shows it)
    assert "1 second left to move." in text and "1 seconds" not in text
    assert "You have until Sunday 1 March 2026, 11:00 UTC (1 second from this notice) to move." in text
    assert "2026-03-01T11:00:00" not in text  # no raw timestamp for a person


def test_results_and_every_notice_say_names_not_seat_numbers(client, service, smtp, hooks):
    players = [PLAYERS[0], {**PLAYERS[1], "webhook": hooks.url}, PLAYERS[2]]
    g = Game(client, "king-of-danger", players, {"seed": "names", "on_resign": "end"},
             spectators={"webhook": hooks.url})
    seat = g.summary()["to_act"][0]
    name = ["Ann", "Bob", "Cy"][seat]
    assert g.post(seat, {"move": {"type": "resign"}}).status_code == 201
    sending.deliver_due(service)
    # the log keeps the seat's number; everything a person reads says the name
    logged = [e for e in g.get("/events", "admin").json["events"] if e["type"] == "resigned"][0]
    assert logged["payload"]["result"]["reason"] == f"seat {seat} resigned"
    assert g.summary()["result"]["reason"] == f"{name} resigned"
    for who in (None, 0, "admin"):
        view = g.get("/view", who).json
        assert view["result"]["reason"] == view["view"]["result"]["reason"] == f"{name} resigned"
        assert "Game over: " in view["text"] and not SEAT_NUMBER.search(view["text"])
    mails = smtp.inbox.messages
    assert len(mails) == 6  # each seat's first notice, then its game-over
    for mail in mails:
        text = mail.get_content()
        assert not SEAT_NUMBER.search(text + mail["Subject"]), text
    over = smtp.inbox.to("ann@example.org")[-1]
    assert f"The game is over: {name} resigned." in over.get_content()
    for req in hooks.requests:  # Bob's and the spectators': every text field in names
        payload = json.loads(req["body"])
        texts = [payload["message"], payload["subject"], payload["text"], *payload["happened"],
                 payload["note"] or "", (payload["result"] or {}).get("reason", "")]
        assert not any(SEAT_NUMBER.search(t) for t in texts), texts
    assert any(json.loads(r["body"])["result"] for r in hooks.requests)


def test_the_first_notice_tells_the_start_in_words(client, service, smtp):
    g = Game(client, "king-of-danger", PLAYERS, {"target": 25})
    sending.deliver_due(service)
    text = smtp.inbox.to("ann@example.org")[0].get_content()
    assert "The game starts: Ann, Bob and Cy at King of Danger (target 25)" in text
    assert "game-created" not in text
    first = g.get("/log").json["lines"][0]["text"]  # the log in words says the same
    assert first == "The game starts: Ann, Bob and Cy at King of Danger (target 25)"


def test_a_forfeit_on_time_is_one_notice_the_game_over_telling_the_timeout(client, service, smtp):
    with freeze_time(T0):
        g = Game(client, "king-of-danger", PLAYERS[:2],
                 {"seed": "forfeit", "clock": {"move_seconds": 3600, "on_timeout": "forfeit"}},
                 organiser={"email": "org@example.org"})
        seat = g.summary()["to_act"][0]
        sending.deliver_due(service)
    before = {p["email"]: len(smtp.inbox.to(p["email"])) for p in PLAYERS[:2]}
    with freeze_time(at(3600)):
        timeouts.tick(service, g.id)
    sending.deliver_due(service, time.time() + 1)
    name = ["Ann", "Bob"][seat]
    for address in (*before, "org@example.org"):
        after = smtp.inbox.to(address)[before.get(address, 0):]
        assert len(after) == 1, [m["Subject"] for m in after]  # one event, one notice
        assert "game over" in after[0]["Subject"]
        text = after[0].get_content()
        assert f"{name} ran out of time (deadline Sunday 1 March 2026, 11:00 UTC): they lose the game" in text
        assert f"The game is over: {name} ran out of time." in text


def test_an_autoplay_timeout_is_one_notice_after_the_move_made_for_the_seat(client, service, smtp):
    with freeze_time(T0):
        g = Game(client, "castle-danger", PLAYERS[:2],
                 {"seed": "autoplay", "clock": {"move_seconds": 3600, "on_timeout": "autoplay"}})
        seat = g.summary()["to_act"][0]
        sending.deliver_due(service)
    address = PLAYERS[seat]["email"]
    before = len(smtp.inbox.to(address))
    with freeze_time(at(3600)):
        timeouts.tick(service, g.id)
    sending.deliver_due(service, time.time() + 1)
    after = smtp.inbox.to(address)[before:]
    # a Castle Danger turn has several moves: the seat is still to act after the
    # referee's one, and hears it once, not as a turn and then a timeout
    assert g.summary()["to_act"] == [seat]
    assert [m["Subject"].split(": ", 1)[1].split(" (#")[0] for m in after] == ["your time ran out"]
    text = after[0].get_content().replace("\r\n", "\n")
    made = g.get("/events", "admin").json["events"][-1]
    assert made["actor"] == seat
    happened = text.split("Since your last notice:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert "ran out of time" in happened[0] and "the referee moves for them" in happened[0]
    assert len(happened) == 2  # the timeout, then the move made for the seat
    assert "Your legal moves:" in text


def test_subject_and_from_read_as_a_person_expects(client, service, smtp, monkeypatch):
    g = Game(client, "king-of-danger", PLAYERS, {"seed": "subject"})
    sending.deliver_due(service)
    mail = smtp.inbox.to("ann@example.org")[0]
    assert mail["From"] == "Castle Referee <referee@league.example>"
    assert mail["Subject"] == f"King of Danger with Ann, Bob and Cy: the game begins (#2) [{g.id}]"
    monkeypatch.setenv("REFEREE_MAIL_FROM", '"League of the North" <referee@north.example>')
    seat = g.summary()["to_act"][0]
    assert g.post(seat, {"move": g.legal(seat)[0]}).status_code == 201
    sending.deliver_due(service)
    last = smtp.inbox.messages[-1]
    assert last["From"].addresses[0].display_name == "League of the North"
    assert last["From"].addresses[0].addr_spec == "referee@north.example"


def test_each_notice_links_its_own_seat_and_no_other(client, service, smtp, hooks, monkeypatch):
    monkeypatch.setenv("REFEREE_PUBLIC_URL", "https://referee.league.example/")
    players = [{**PLAYERS[0], "webhook": hooks.url}, PLAYERS[1], "Cy"]
    g = Game(client, "king-of-danger", players, {"seed": "links"}, spectators={"webhook": hooks.url},
             organiser={"email": "org@example.org", "webhook": hooks.url})
    for _ in range(4):
        seat = g.summary()["to_act"][0]
        assert g.post(seat, {"move": g.legal(seat)[0]}).status_code == 201
    sending.deliver_due(service)
    ann, bob = smtp.inbox.to("ann@example.org"), smtp.inbox.to("bob@example.org")
    page = f"https://referee.league.example/games/{g.id}"
    assert all(f"{page}#token=" in m.get_content() for m in ann + bob)
    tokens = {0: {link_token(m) for m in ann}, 1: {link_token(m) for m in bob}}
    assert all(len(t) == 1 for t in tokens.values()) and tokens[0] != tokens[1]
    ann_link, bob_link = tokens[0].pop(), tokens[1].pop()
    # the link plays as its seat, in the API and so on the page
    view = client.get(f"/v1/games/{g.id}/view", headers={"Authorization": f"Bearer {ann_link}"}).json
    assert view["seat"] == 0 and view["viewer"] == "seat"
    # and never reaches another seat, the spectators or the organiser
    for mail in smtp.inbox.messages:
        text = mail.get_content()
        if "ann@example.org" not in mail["To"]:
            assert ann_link not in text
        if "bob@example.org" not in mail["To"]:
            assert bob_link not in text
    org = smtp.inbox.to("org@example.org")
    assert all(f"{page}\n" in m.get_content() and "#token=" not in m.get_content() for m in org)
    for req in hooks.requests:
        payload = json.loads(req["body"])
        body = req["body"].decode()
        assert bob_link not in body
        if payload["to"] == "seat":
            assert payload["seat"] == 0 and payload["link"] == f"{page}#token={ann_link}"
        else:  # the spectators' and the organiser's: the page as anyone sees it
            assert ann_link not in body and payload["link"] == page
    # the seat handed to someone else: the old link stops working, the new player's works
    r = client.post(f"/v1/games/{g.id}/seats/0/replace", headers=g.auth("admin"),
                    json={"name": "Dan", "email": "dan@example.org"})
    assert r.status_code == 201, r.json
    auth = {"Authorization": f"Bearer {ann_link}"}
    assert client.get(f"/v1/games/{g.id}/view", headers=auth).status_code == 401
    seat = g.summary()["to_act"][0]
    g.tokens[0] = r.json["token"]
    assert g.post(seat, {"move": g.legal(seat)[0]}).status_code == 201
    g.post(g.summary()["to_act"][0], {"move": {"type": "resign"}})
    sending.deliver_due(service)
    dan = smtp.inbox.to("dan@example.org")
    assert dan and ann_link not in dan[-1].get_content()
    dan_link = link_token(dan[-1])
    got = client.get(f"/v1/games/{g.id}/view", headers={"Authorization": f"Bearer {dan_link}"}).json
    assert got["seat"] == 0


def test_a_notice_is_sent_once_on_each_channel_when_the_webhook_fails_first(client, service, smtp, hooks):
    g = Game(client, "king-of-danger", [{"name": "Ann", "email": "ann@example.org", "webhook": hooks.url},
                                        "Bob"], {"seed": "channels"})
    hooks.status = 503  # the webhook's receiver is down; the SMTP server takes the mail
    now = time.time()
    assert sending.deliver_due(service, now) == 0
    assert len(smtp.inbox.messages) == 1 and len(hooks.requests) == 1
    listed = g.get("/notices", "admin").json["notices"]
    assert [(n["state"], n["delivered"]) for n in listed] == [("pending", ["email"])]
    assert "webhook: WebhookAnswered: webhook answered 503" in listed[0]["error"]
    hooks.status = 200
    assert sending.deliver_due(service, now + 31) == 1  # the retry, 30 s later
    assert len(smtp.inbox.messages) == 1  # the mail is not sent again
    assert len(hooks.requests) == 2
    ids = [{k.lower(): v for k, v in r["headers"].items()}["webhook-id"] for r in hooks.requests]
    assert ids[0] == ids[1] == listed[0]["id"]
    listed = g.get("/notices", "admin").json["notices"]
    assert [(n["state"], n["delivered"]) for n in listed] == [("sent", ["email", "webhook"])]


def test_a_notice_behind_one_another_sender_is_sending_waits_a_second(client, service, smtp):
    from referee.mail import outbox

    g = Game(client, "king-of-danger", [PLAYERS[0], "Bob"], {"seed": "in-flight"})
    later = outbox.queue_notice(service, g.id, 0, "reminder", "1 hour left to move.", version=99)
    box = outbox.outbox_of(service)
    now = time.time() + 1
    first = [n for n in box.due(now) if n["id"] != later][0]
    assert box.claim(first, now + sending.lease())  # another sender has it, sending
    assert sending.deliver_due(service, now) == 0
    waiting = [n for n in box.of_game(g.id) if n["id"] == later][0]
    assert waiting["state"] == "pending" and f"waits for {first['id']}" in waiting["error"]
    assert waiting["next_try"] == now + 1  # not when the other sender's claim lapses
    box.mark(first["id"], "sent", 1, now, None, ["email"])  # that sender is done
    assert sending.deliver_due(service, now + 1) == 1
    assert [m["Message-ID"] for m in smtp.inbox.messages] == [f"<{later}@league.example>"]
