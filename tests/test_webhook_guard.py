"""The webhook address guard: the referee calls only globally routable addresses,
checked when a URL is given and again at each delivery; a delivery the guard
refuses is marked failed with its reason, never tried again."""

from __future__ import annotations

import socket

import pytest

from referee.mail import sending
from referee.mail.webhooks import refusal
from tests.helpers import Game
from tests.mailtools import HookReceiver, SmtpServer

REFUSED = [
    "127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "0.0.0.0",
    "100.64.0.1", "100.100.100.200",  # shared address space (carrier-grade NAT)
    "192.0.2.1", "198.18.0.1", "240.0.0.1", "255.255.255.255", "224.0.0.1",
    "::1", "::", "fe80::1", "fc00::1", "fec0::1", "ff02::1", "2001:db8::1", "100::1", "::127.0.0.1",
    "::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:100.64.0.1",  # IPv4-mapped
    "2002:7f00:1::", "2002:a00:1::1", "2002:6440:1::",  # 6to4 around 127.0.0.1, 10.0.0.1, 100.64.0.1
    "2001:0:4136:e378:8000:63bf:3fff:fdd2",  # Teredo
    "2001:0:4136:e378:8000:63bf:80ff:fffe",  # Teredo around 127.0.0.1
    "64:ff9b::7f00:1", "64:ff9b::a00:1", "64:ff9b::6440:1",  # NAT64 for non-global IPv4
    "64:ff9b:1::808:808",  # the local-use NAT64 prefix, whatever it carries
]
ALLOWED = ["8.8.8.8", "93.184.216.34", "2606:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808",
           "2002:808:808::1"]


@pytest.fixture(autouse=True)
def guarded(monkeypatch):
    monkeypatch.delenv("REFEREE_WEBHOOK_ALLOW_PRIVATE", raising=False)


@pytest.mark.parametrize("address", REFUSED)
def test_every_address_not_globally_routable_is_refused(address):
    assert refusal(address), address


@pytest.mark.parametrize("address", ALLOWED)
def test_globally_routable_addresses_are_called(address):
    assert refusal(address) is None


def url(address: str) -> str:
    return f"http://[{address}]:8080/hook" if ":" in address else f"http://{address}:8080/hook"


@pytest.mark.parametrize("address", ["100.64.0.1", "100.100.100.200", "2002:7f00:1::", "::ffff:127.0.0.1",
                                     "64:ff9b::7f00:1", "2001:0:4136:e378:8000:63bf:80ff:fffe"])
def test_a_webhook_there_is_refused_at_creation_and_at_every_change(client, address):
    games = client.get("/v1/games").json["games"]
    for body, field in (({"players": ["Ann", {"name": "Bob", "webhook": url(address)}]}, "players[1].webhook"),
                        ({"players": ["Ann", "Bob"], "spectators": {"webhook": url(address)}}, "spectators.webhook")):
        r = client.post("/v1/games", json={"game": "king-of-danger", **body})
        assert r.status_code == 400 and r.json["field"] == field, r.json
        assert "not globally routable" in r.json["detail"] or "NAT64" in r.json["detail"]
    assert client.get("/v1/games").json["games"] == games  # nothing created
    g = Game(client, "king-of-danger", ["Ann", "Bob"], {"seed": "guard"})
    before = g.get("/contacts", "admin").json
    auth = g.auth("admin")
    r = client.put(f"/v1/games/{g.id}/contacts/1", json={"webhook": url(address)}, headers=auth)
    assert r.status_code == 400 and r.json["field"] == "webhook"
    r = client.put(f"/v1/games/{g.id}/spectators", json={"webhook": url(address)}, headers=auth)
    assert r.status_code == 400 and r.json["field"] == "webhook"
    r = client.post(f"/v1/games/{g.id}/seats/1/replace", json={"name": "Cy", "webhook": url(address)},
                    headers=auth)
    assert r.status_code == 400 and r.json["field"].endswith("webhook")  # (read as a player entry)
    assert g.get("/contacts", "admin").json == before
    assert g.summary()["players"] == ["Ann", "Bob"]


def test_a_name_that_resolves_to_loopback_at_delivery_is_refused_then(client, service, monkeypatch):
    """The webhooks were set while private addresses were allowed (as a name that
    resolved elsewhere then would be); by the delivery they are not: `localhost`,
    a real name resolving to 127.0.0.1 where a real receiver listens, is not
    called. Each notice is marked failed with the reason, shown in the admin's
    list, and never tried again; the seat's e-mail still goes out."""
    hooks, smtp = HookReceiver(), SmtpServer()
    try:
        monkeypatch.setenv("REFEREE_SMTP_URL", smtp.url)
        monkeypatch.setenv("REFEREE_WEBHOOK_ALLOW_PRIVATE", "1")
        there = hooks.url.replace("127.0.0.1", "localhost")
        r = client.post("/v1/games", json={
            "game": "king-of-danger", "options": {"seed": "rebound"}, "spectators": {"webhook": there},
            "players": [{"name": "Ann", "webhook": there, "email": "ann@example.org"}, "Bob"]})
        assert r.status_code == 201, r.json
        g = Game.__new__(Game)
        g.client, g.id, g.admin = client, r.json["id"], r.json["admin_token"]
        g.tokens = [s["token"] for s in r.json["seats"]]
        monkeypatch.delenv("REFEREE_WEBHOOK_ALLOW_PRIVATE")
        sending.deliver_due(service)
        assert hooks.requests == []  # the receiver on loopback heard nothing
        listed = g.get("/notices", "admin").json["notices"]
        hooked = [n for n in listed if n["seat"] in (0, None)]
        assert hooked and all(n["state"] == "failed" and n["attempts"] == 1 and n["next_try"] is None
                              for n in hooked), hooked
        assert all(n["error"].startswith("webhook refused: localhost resolves to ")  # 127.0.0.1 or ::1
                   and n["error"].endswith("not globally routable") for n in hooked), hooked
        assert smtp.inbox.to("ann@example.org")  # the e-mail was not held back
        # never again, however long one waits
        import time

        assert sending.deliver_due(service, now=time.time() + 86400) == 0
        assert hooks.requests == [] and g.get("/notices", "admin").json["notices"] == listed
    finally:
        hooks.stop()
        smtp.stop()


def test_a_delivery_connects_to_the_address_it_checked(client, service, monkeypatch):
    """The name is looked up once per delivery and the connection goes to what
    that look-up gave: a second look-up (whose answer a hostile name server may
    change between the check and the connection) would find no address here. (The
    name server is the one thing the test plays: it answers for `hook.test` once
    per notice due.)"""
    monkeypatch.setenv("REFEREE_WEBHOOK_ALLOW_PRIVATE", "1")  # the receiver is on loopback
    hooks = HookReceiver()
    real = socket.getaddrinfo
    answers = {"left": 0}

    def resolver(host, *args, **kwargs):
        if host != "hook.test":
            return real(host, *args, **kwargs)
        if answers["left"] <= 0:
            raise socket.gaierror(socket.EAI_NONAME, "no such name now")
        answers["left"] -= 1
        return real("127.0.0.1", *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", resolver)
    try:
        there = hooks.url.replace("127.0.0.1", "hook.test")
        g = Game(client, "king-of-danger", [{"name": "Ann", "webhook": there}, "Bob"], {"seed": "pinned"})
        due = [n for n in g.get("/notices", "admin").json["notices"] if n["seat"] == 0]
        answers["left"] = len(due)
        assert sending.deliver_due(service) == len(due) >= 1
        assert len(hooks.requests) == len(due)
        assert hooks.requests[0]["headers"]["Host"] == there.split("/")[2]  # the URL's own host
        assert all(n["state"] == "sent" for n in g.get("/notices", "admin").json["notices"] if n["seat"] == 0)
    finally:
        hooks.stop()


def test_a_url_whose_brackets_hold_no_address_is_400(client):
    r = client.post("/v1/games", json={"game": "king-of-danger",
                                       "players": ["Ann", {"name": "Bob", "webhook": "http://[::1/hook"}]})
    assert r.status_code == 400 and r.json["field"] == "players[1].webhook"
