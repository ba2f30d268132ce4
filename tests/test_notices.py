"""Notices: from the log, through the outbox, out by real SMTP and to a real
webhook receiver; once each, retried with backoff, never holding what the seat
may not see."""

from __future__ import annotations

import functools
import json
import random
import re

import pytest
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from referee.mail import outbox, sending
from tests.helpers import Game
from tests.test_text_for_posts import unsigned

# King of Danger's cards, as its notation writes them
CARD = re.compile(r"\b(?:[WC][1-7]|Z[1-8]|K[DWCZ])\b")


@functools.lru_cache(maxsize=4096)
def _seen(g: Game, seat: int, version: int) -> str:
    view = g.get("/view", seat, at=version).get_data(as_text=True)
    events = g.get("/events", seat, limit=1000).json["events"]
    return view + json.dumps([e for e in events if e["seq"] <= version])


def seen_by(g: Game, seat: int, version: int) -> str:
    """Everything the seat may see at ``version``: its view then and its events."""
    return _seen(g, seat, version)


def test_a_game_by_notice_tells_each_seat_only_its_own(client, service, smtp, hooks):
    players = [{"name": "Ann", "email": "ann@example.org", "webhook": hooks.url},
               {"name": "Bob", "email": "bob@example.org"}]
    g = Game(client, "king-of-danger", players, {"seed": "notices", "target": 5})
    secret = g.created["seats"][0]["webhook_secret"]
    rnd = random.Random(5)
    for _ in range(400):
        sending.deliver_due(service)
        s = g.summary()
        if s["status"] in ("finished", "aborted"):
            break
        seat = s["to_act"][0]
        moves = [m for m in g.legal(seat) if m["type"] != "resign"]
        assert g.post(seat, {"move": rnd.choice(moves)}).status_code == 201
    sending.deliver_due(service)
    assert g.summary()["status"] == "finished"
    mails = smtp.inbox.messages
    assert mails
    ids = [m["Message-ID"] for m in mails]
    assert len(ids) == len(set(ids))  # each notice once
    listed = g.get("/notices", "admin").json["notices"]
    assert all(n["state"] == "sent" for n in listed)
    assert {f"<{n['id']}@league.example>" for n in listed} == set(ids)
    for name, seat in (("ann", 0), ("bob", 1)):
        got = smtp.inbox.to(f"{name}@example.org")
        assert got and "game over" in got[-1]["Subject"]
        for m in got:
            nid = m["Message-ID"].strip("<>").split("@")[0]
            version = int(nid.split(".")[2])
            assert nid.split(".")[1] == str(seat)
            assert m["Reply-To"].startswith(f"referee+{g.id}.{seat}.")
            text = m.get_content()
            allowed = set(CARD.findall(seen_by(g, seat, version)))
            assert set(CARD.findall(unsigned(text))) <= allowed, (text, allowed)
            assert ("Bob" if seat == 0 else "Ann") in text or "game over" in m["Subject"]
    # the webhook: every notice of Ann's, signed, the same ids as her mails
    wh = Webhook(secret)
    assert len(hooks.requests) == len(smtp.inbox.to("ann@example.org"))
    for req in hooks.requests:
        headers = {k.lower(): v for k, v in req["headers"].items()}
        payload = wh.verify(req["body"], headers)
        assert payload["seat"] == 0 and payload["id"] == headers["webhook-id"]
        assert set(CARD.findall(unsigned(payload["message"]))) <= set(CARD.findall(seen_by(g, 0, payload["version"])))
    # each seat's page link (a seat token of its own) reaches that seat alone
    links = {seat: {re.search(r"#token=(\S+)", m.get_content()).group(1) for m in smtp.inbox.to(address)}
             for seat, address in enumerate(["ann@example.org", "bob@example.org"])}
    assert all(len(found) == 1 for found in links.values()) and links[0] != links[1]
    anns, bobs = links[0].pop(), links[1].pop()
    assert not any(bobs in m.get_content() for m in smtp.inbox.to("ann@example.org"))
    assert not any(bobs in req["body"].decode() for req in hooks.requests)  # Ann's webhook
    assert not any(anns in m.get_content() for m in smtp.inbox.to("bob@example.org"))
    # forged: a changed body no longer verifies
    with pytest.raises(WebhookVerificationError):
        bad = hooks.requests[0]
        wh.verify(bad["body"] + b" ", {k.lower(): v for k, v in bad["headers"].items()})


def test_queueing_is_idempotent_and_a_reminder_is_one_call(client, service, smtp):
    g = Game(client, "king-of-danger", [{"name": "Ann", "email": "ann@example.org"}, "Bob"],
             {"seed": "remind"})
    first = outbox.sweep(service, g.id) + outbox.sweep(service, g.id)
    listed = g.get("/notices", "admin").json["notices"]
    seat0 = [n for n in listed if n["seat"] == 0]
    assert len(seat0) == 1  # the creation's sweep queued it; sweeping again adds nothing
    assert seat0[0]["reason"] in ("start", "turn")
    assert not [n for n in listed if n["seat"] == 1]  # Bob has no contact
    assert first == []
    nid = outbox.queue_notice(service, g.id, 0, "reminder", "two hours left")
    assert outbox.queue_notice(service, g.id, 0, "reminder", "two hours left") == nid
    assert sending.deliver_due(service) == 2
    assert sending.deliver_due(service) == 0
    got = smtp.inbox.to("ann@example.org")
    assert [m["Message-ID"] for m in got] == [f"<{n}@league.example>" for n in (seat0[0]["id"], nid)]
    assert "two hours left" in got[1].get_content()
    # seats and spectators may not list notices
    assert g.get("/notices", 0).status_code == 403
    assert g.get("/notices").status_code == 403


def test_a_failing_smtp_server_is_retried_with_backoff_and_never_blocks_moves(client, service, smtp):
    g = Game(client, "king-of-danger", [{"name": "Ann", "email": "ann@example.org"},
                                        {"name": "Bob", "email": "bob@example.org"}], {"seed": "fail"})
    smtp.inbox.failing = True
    seat = g.summary()["to_act"][0]
    assert g.post(seat, {"move": g.legal(seat)[0]}).status_code == 201  # moves go on
    import time

    now = time.time()
    assert sending.deliver_due(service, now) == 0
    listed = g.get("/notices", "admin").json["notices"]
    # each seat's first notice failed (451); its later ones wait behind it, untried,
    # so that each seat gets its notices in the order they were written
    firsts = {n["seat"]: n["id"] for n in reversed(listed)}
    assert listed and all(n["state"] == "pending" for n in listed)
    for n in listed:
        if n["id"] in firsts.values():
            assert n["attempts"] == 1 and "451" in n["error"], n
        else:
            assert n["attempts"] == 0 and f"waits for {firsts[n['seat']]}" in n["error"], n
    assert sending.deliver_due(service, now + 1) == 0  # not yet due again: backoff
    assert all(n["attempts"] <= 1 for n in g.get("/notices", "admin").json["notices"])
    smtp.inbox.failing = False
    assert sending.deliver_due(service, now + outbox.FIRST_RETRY + 1) == len(listed)
    assert len(smtp.inbox.messages) == len(listed)
    for seat, address in enumerate(["ann@example.org", "bob@example.org"]):  # in the order written
        assert [m["Message-ID"] for m in smtp.inbox.to(address)] == \
            [f"<{n['id']}@league.example>" for n in listed if n["seat"] == seat]
    assert sending.deliver_due(service, now + 10_000) == 0
    assert len(smtp.inbox.messages) == len(listed)


def test_a_reply_to_the_notice_moves_without_a_token(client, service, smtp):
    from tests.test_inbound_email import message, post

    g = Game(client, "king-of-danger", [{"name": "Ann", "email": "ann@example.org"},
                                        {"name": "Bob", "email": "bob@example.org"}], {"seed": "reply"})
    sending.deliver_due(service)
    seat = g.summary()["to_act"][0]
    notice = smtp.inbox.to(["ann", "bob"][seat] + "@example.org")[-1]
    address = notice["Reply-To"]
    move = g.legal(seat)[0]
    text = "play " + move["card"] + (" " + move["suit"] if "suit" in move else "")
    body = f"{text}\n\nOn Monday the referee wrote:\n> {notice.get_content().splitlines()[0]}\n"
    r = post(client, message(address, body, msgid="<reply1@example.org>"))
    assert r.status_code == 201, r.json
    assert r.json["events"][0]["payload"]["move"] == move
    # a forged key, or the other seat's address with this seat's key: nothing changes
    version = g.summary()["version"]
    game, other, key = address.split("+")[1].split("@")[0].split(".")
    forged = address.replace(key, "0" * 20)
    r = post(client, message(forged, "resign", msgid="<reply2@example.org>"))
    assert r.status_code == 401
    swapped = address.replace(f".{other}.", f".{1 - int(other)}.")
    r = post(client, message(swapped, "resign", msgid="<reply3@example.org>"))
    assert r.status_code == 401
    assert g.summary()["version"] == version
