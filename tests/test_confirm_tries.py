"""Confirmation codes tried: counted per client address, atomically, and rate-limited
per client address, so a stranger's guesses never lock the owner of the code out.

Over real HTTP (werkzeug's threaded server) on both stores, with a real SMTP
server for the code; the owner's client comes from another loopback address
(127.0.0.2), as a second machine would."""

from __future__ import annotations

import http.client
import json
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from referee.players import confirmation
from tests.playertools import auth, register


@pytest.fixture
def server(service, monkeypatch):
    """The API on a free port of 127.0.0.1; yields its port."""
    from werkzeug.serving import make_server

    from referee.api import create_app

    http_server = make_server("127.0.0.1", 0, create_app(service), threaded=True)
    thread = threading.Thread(target=http_server.serve_forever, daemon=True)
    thread.start()
    try:
        yield http_server.server_port
    finally:
        http_server.shutdown()
        thread.join(10)


def post(port: int, path: str, body: dict, client: str = "127.0.0.1") -> tuple[int, dict, dict]:
    """POST ``body`` from the address ``client``: (status, answer, headers)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(client, 0))
    try:
        conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
        r = conn.getresponse()
        return r.status, json.loads(r.read() or b"{}"), dict(r.getheaders())
    finally:
        conn.close()


def code_mailed(client, inbox, address: str) -> str:
    confirmation.deliver_due(client.application.extensions["referee"])
    end = time.monotonic() + 10
    while time.monotonic() < end and not inbox.to(address):
        time.sleep(0.05)
    return re.search(r"code ([A-Z2-7]{8})", inbox.to(address)[0].get_content()).group(1)


def wrong(k: int) -> str:
    """A wrong code of the right shape (digits 0 and 1 are no base32 letters)."""
    return f"{k:08d}"


def test_parallel_wrong_codes_are_compared_at_most_the_cap_and_the_owner_still_confirms(
        client, mail, server, monkeypatch):
    monkeypatch.setenv("REFEREE_CONFIRM_RATE", "10000/hour")  # the cap alone, not the rate, is tested
    ann = register(client, name="Ann", email="ann@players.example")
    code = code_mailed(client, mail, "ann@players.example")
    path = f"/v1/players/{ann['id']}/confirm"
    with ThreadPoolExecutor(max_workers=40) as pool:
        answers = list(pool.map(lambda k: post(server, path, {"code": wrong(k)}), range(300)))
    codes = [a[1].get("code") for a in answers]
    assert {a[0] for a in answers} == {403} and set(codes) == {"wrong-code", "code-expired"}, set(codes)
    # each code compared was counted first: never more than the cap, however many at once
    assert codes.count("wrong-code") == confirmation.MAX_TRIES
    # the right code from this address is refused now: its tries are used up
    status, problem, _ = post(server, path, {"code": code})
    assert status == 403 and problem["code"] == "code-expired" and problem["field"] == "code"
    # and from another address it works: nobody else's guesses stop it
    status, answer, _ = post(server, path, {"code": code}, client="127.0.0.2")
    assert status == 200 and answer == {"id": ann["id"], "email_confirmed": True}
    assert client.get("/v1/players/me", headers=auth(ann["token"])).json["contacts"]["email_confirmed"]


def test_a_strangers_guesses_from_one_address_leave_the_owners_code_working(client, mail):
    bob = register(client, name="Bob", email="bob@players.example")
    code = code_mailed(client, mail, "bob@players.example")
    path = f"/v1/players/{bob['id']}/confirm"
    stranger = {"REMOTE_ADDR": "198.51.100.9"}
    answers = [client.post(path, json={"code": wrong(k)}, environ_base=stranger) for k in range(40)]
    assert {r.json["code"] for r in answers} == {"wrong-code", "code-expired"}
    assert [r.json["code"] for r in answers].count("wrong-code") == confirmation.MAX_TRIES
    r = client.post(path, json={"code": code}, environ_base={"REMOTE_ADDR": "203.0.113.4"})
    assert r.status_code == 200 and r.json["email_confirmed"] is True


def test_codes_tried_are_rate_limited_per_client_address(client, mail, monkeypatch):
    monkeypatch.setenv("REFEREE_CONFIRM_RATE", "5/hour")
    cy = register(client, name="Cy", email="cy@players.example")
    dee = register(client, name="Dee", email="dee@players.example")
    code = code_mailed(client, mail, "dee@players.example")
    stranger = {"REMOTE_ADDR": "198.51.100.9"}
    # the limit counts the address's tries at every player, and the confirmation page's too
    for k in range(3):
        r = client.post(f"/v1/players/{cy['id']}/confirm", json={"code": wrong(k)}, environ_base=stranger)
        assert r.status_code == 403
    r = client.post(f"/players/{dee['id']}/confirm", data={"code": wrong(3)}, environ_base=stranger)
    assert r.status_code == 403
    r = client.post(f"/v1/players/{dee['id']}/confirm", json={"code": wrong(4)}, environ_base=stranger)
    assert r.status_code == 403 and r.json["code"] == "wrong-code"
    r = client.post(f"/v1/players/{dee['id']}/confirm", json={"code": code}, environ_base=stranger)
    assert r.status_code == 429 and r.json["code"] == "too-many-requests" and r.mimetype == "application/problem+json"
    assert 0 < int(r.headers["Retry-After"]) <= 3600
    r = client.post(f"/players/{dee['id']}/confirm", data={"code": code}, environ_base=stranger)
    assert r.status_code == 429
    me = client.get("/v1/players/me", headers=auth(dee["token"])).json
    assert me["contacts"]["email_confirmed"] is False  # refused: nothing confirmed
    # another address is not held up
    r = client.post(f"/v1/players/{dee['id']}/confirm", json={"code": code},
                    environ_base={"REMOTE_ADDR": "203.0.113.4"})
    assert r.status_code == 200


def test_a_new_confirmation_starts_every_addresss_tries_afresh(client, mail, monkeypatch):
    monkeypatch.setenv("REFEREE_CONFIRM_WINDOW", "1.5")
    eve = register(client, name="Eve", email="eve@players.example")
    code_mailed(client, mail, "eve@players.example")
    path = f"/v1/players/{eve['id']}/confirm"
    for k in range(confirmation.MAX_TRIES):
        assert client.post(path, json={"code": wrong(k)}).json["code"] == "wrong-code"
    assert client.post(path, json={"code": wrong(99)}).json["code"] == "code-expired"
    time.sleep(1.6)  # the address's window passes: setting it again mails a new code
    r = client.patch("/v1/players/me", json={"email": "eve@players.example"}, headers=auth(eve["token"]))
    assert r.json["contacts"]["confirmation_mailed"] is True
    confirmation.deliver_due(client.application.extensions["referee"])
    end = time.monotonic() + 10
    while time.monotonic() < end and len(mail.to("eve@players.example")) < 2:
        time.sleep(0.05)
    new = re.search(r"code ([A-Z2-7]{8})", mail.to("eve@players.example")[1].get_content()).group(1)
    assert client.post(path, json={"code": new}).status_code == 200  # from the address that used its tries up
