"""The player endpoints over HTTP, with a real SMTP server: registration, the one
confirmation message per address and window, codes forged, expired and guessed,
contacts changed, hidden information, ratings and their picture and page."""

from __future__ import annotations

import json
import re
import time

import pytest

from referee.players import confirmation, results
from referee.players.store import players_of
from tests.helpers import strings
from tests.playertools import auth, finished_game, register

GAME = "king-of-danger"


def service_of(client):
    return client.application.extensions["referee"]


def flush(client) -> None:
    """Whatever the thread of a registration has not sent yet, sent now (claims keep it once)."""
    confirmation.deliver_due(service_of(client))


def messages_to(inbox, address: str, count: int) -> list:
    end = time.monotonic() + 10
    while time.monotonic() < end and len(inbox.to(address)) < count:
        time.sleep(0.05)
    got = inbox.to(address)
    assert len(got) == count, [m["Subject"] for m in got]
    return got


def code_in(msg) -> str:
    return re.search(r"code ([A-Z2-7]{8})", msg.get_content()).group(1)


def test_register_confirm_and_the_one_message(client, mail):
    spam = "Cheap pills at http://spam.example"
    ann = register(client, name=spam, email="ann@players.example")
    assert ann["email_confirmed"] is False and ann["token"].startswith(ann["id"] + ".")
    flush(client)
    (msg,) = messages_to(mail, "ann@players.example", 1)
    code = code_in(msg)
    body = msg.get_content()
    # nothing the registrant chose reaches the stranger's inbox: only the code and the link
    assert "spam.example" not in body and "pills" not in str(msg["Subject"]) and "pills" not in body
    assert f"https://referee.example/players/{ann['id']}/confirm?code={code}" in body
    assert msg["Auto-Submitted"] == "auto-generated"
    assert "the code stops working after 1 day." in " ".join(body.split()) and "(s)" not in body
    # another registration, and a change of address, to the pending address: no more mail
    bob = register(client, name="Bob", email="ann@players.example")
    cy = register(client, name="Cy")
    r = client.patch("/v1/players/me", json={"email": "ANN@players.example"}, headers=auth(cy["token"]))
    assert r.status_code == 200 and r.json["contacts"]["confirmation_mailed"] is False
    assert client.get("/v1/players/me", headers=auth(bob["token"])).json["contacts"]["confirmation_mailed"] is False
    flush(client)
    time.sleep(0.3)
    assert len(mail.to("ann@players.example")) + len(mail.to("ANN@players.example")) == 1
    assert players_of(service_of(client)).due_mail(time.time() + 10**6) == []
    # Ann's code confirms Ann, and no one else
    r = client.post(f"/v1/players/{bob['id']}/confirm", json={"code": code})
    assert r.status_code == 403 and r.json["field"] == "code"
    r = client.post(f"/v1/players/{ann['id']}/confirm", json={"code": code.lower()})
    assert r.status_code == 200 and r.json == {"id": ann["id"], "email_confirmed": True}
    me = client.get("/v1/players/me", headers=auth(ann["token"])).json
    assert me["contacts"]["email_confirmed"] is True
    # followed twice (the link clicked again): the same answer, nothing mailed
    assert client.post(f"/v1/players/{ann['id']}/confirm", json={"code": code}).status_code == 200
    flush(client)
    assert len(mail.to("ann@players.example")) == 1


def test_forged_and_expired_codes_confirm_nothing(client, mail, monkeypatch):
    monkeypatch.setenv("REFEREE_CONFIRM_WINDOW", "1.5")
    dee = register(client, name="Dee", email="dee@players.example")
    flush(client)
    code = code_in(messages_to(mail, "dee@players.example", 1)[0])
    before = client.get("/v1/players/me", headers=auth(dee["token"])).json
    for forged, status, problem in [("AAAAAAAA", 403, "wrong-code"), ("", 400, "malformed"),
                                    ("x" * 65, 400, "malformed")]:
        r = client.post(f"/v1/players/{dee['id']}/confirm", json={"code": forged})
        assert r.status_code == status and r.json["code"] == problem and r.json["field"] == "code", r.json
        assert r.mimetype == "application/problem+json"
    assert client.post(f"/v1/players/{dee['id']}/confirm", json={}).json["field"] == "code"
    assert client.post("/v1/players/nobody/confirm", json={"code": code}).status_code == 404
    time.sleep(1.6)  # the code's window ends
    r = client.post(f"/v1/players/{dee['id']}/confirm", json={"code": code})
    assert r.status_code == 403 and r.json["code"] == "code-expired" and r.json["field"] == "code"
    assert client.get("/v1/players/me", headers=auth(dee["token"])).json == before
    # the address's window has passed too: setting it again mails a new code, once
    r = client.patch("/v1/players/me", json={"email": "dee@players.example"}, headers=auth(dee["token"]))
    assert r.json["contacts"]["confirmation_mailed"] is True
    flush(client)
    new = code_in(messages_to(mail, "dee@players.example", 2)[1])
    assert new != code
    assert client.post(f"/v1/players/{dee['id']}/confirm", json={"code": new}).status_code == 200


def test_guessing_voids_the_code(client, mail):
    eve = register(client, name="Eve", email="eve@players.example")
    flush(client)
    code = code_in(messages_to(mail, "eve@players.example", 1)[0])
    for k in range(confirmation.MAX_TRIES):
        guess = f"{k:08d}".replace("0", "A").replace("1", "B")
        assert client.post(f"/v1/players/{eve['id']}/confirm", json={"code": guess}).status_code == 403
    r = client.post(f"/v1/players/{eve['id']}/confirm", json={"code": code})
    assert r.status_code == 403 and r.json["code"] == "code-expired"
    assert client.get("/v1/players/me", headers=auth(eve["token"])).json["contacts"]["email_confirmed"] is False


def test_registration_is_rate_limited_per_client(client, mail, monkeypatch):
    monkeypatch.setenv("REFEREE_REGISTER_RATE", "2/minute")
    for k in range(2):
        register(client, name=f"F{k}", email=f"f{k}@players.example")
    r = client.post("/v1/players", json={"name": "F2", "email": "f2@players.example"})
    assert r.status_code == 429 and r.json["code"] == "too-many-requests" and int(r.headers["Retry-After"]) > 0
    other = client.post("/v1/players", json={"name": "G"}, environ_base={"REMOTE_ADDR": "192.0.2.7"})
    assert other.status_code == 201  # another client is not held up
    flush(client)
    time.sleep(0.3)
    assert mail.to("f2@players.example") == []


@pytest.mark.parametrize(("body", "field"), [
    ({"name": ""}, "name"), ({"name": "A", "email": "not an address"}, "email"),
    ({"name": "A", "webhook": "http://127.0.0.1:9/x"}, "webhook"), ({"name": "A", "bot": "clever"}, "bot"),
    ({"name": "A", "bot": "basic", "email": "a@players.example"}, "email"), ({"name": "A", "colour": 1}, "colour"),
])
def test_bad_registrations_are_refused_by_field(client, mail, body, field):
    r = client.post("/v1/players", json=body)
    assert r.status_code == 400 and r.json["field"] == field, r.json
    flush(client)
    assert mail.to("a@players.example") == []


def test_contacts_change_and_a_changed_address_starts_unconfirmed(client, mail):
    gil = register(client, name="Gil", email="gil@players.example", webhook="https://hooks.example.org/gil")
    assert gil["webhook_secret"].startswith("whsec_")
    flush(client)
    assert client.post(f"/v1/players/{gil['id']}/confirm",
                       json={"code": code_in(messages_to(mail, "gil@players.example", 1)[0])}).status_code == 200
    patch = lambda body, token=gil["token"]: client.patch("/v1/players/me", json=body, headers=auth(token))  # noqa: E731
    before = client.get("/v1/players/me", headers=auth(gil["token"])).json
    for body, field in [({"email": "nope"}, "email"), ({"webhook": "ftp://x.example"}, "webhook"),
                        ({"phone": "1"}, "phone")]:
        r = patch(body)
        assert r.status_code == 400 and r.json["field"] == field
    assert client.get("/v1/players/me", headers=auth(gil["token"])).json == before
    assert patch({"email": "x@players.example"}, token="nope.nope").status_code == 401
    r = patch({"email": "gil2@players.example"})
    assert r.json["contacts"] == {"email": "gil2@players.example", "email_confirmed": False,
                                  "confirmation_mailed": True, "webhook": "https://hooks.example.org/gil"}
    assert "webhook_secret" not in r.json
    flush(client)
    messages_to(mail, "gil2@players.example", 1)
    r = patch({"webhook": "https://hooks.example.org/gil2", "email": None})
    assert r.json["webhook_secret"].startswith("whsec_") and r.json["contacts"]["email"] is None
    assert "webhook_secret" not in client.get("/v1/players/me", headers=auth(gil["token"])).json
    assert patch({"webhook": None}).json["contacts"]["webhook"] is None


def test_a_bot_player_and_refusals(client, mail):
    bot = register(client, name="Robo", bot="basic")
    assert bot["bot"] == "basic" and "webhook_secret" not in bot
    r = client.patch("/v1/players/me", json={"email": "r@players.example"}, headers=auth(bot["token"]))
    assert r.status_code == 400 and r.json["field"] == "email"
    assert client.get(f"/v1/players/{bot['id']}").json["bot"] == "basic"
    assert client.get("/v1/players/nobody").status_code == 404
    assert client.get("/v1/players/me").status_code == 401
    assert client.get("/v1/players/me", headers=auth(bot["token"] + "x")).status_code == 401
    assert client.get("/v1/players/me", headers=auth("no-dot")).status_code == 401
    assert client.get(f"/v1/players/{bot['id']}/ratings").json["field"] == "game"


def test_a_profile_shows_nothing_private(client, mail):
    """Another caller, or nobody, sees no token, token hash, contact or secret of a
    player, in the profile, its ratings, its picture or its page."""
    hid = register(client, name="Hid", email="hid@players.example", webhook="https://hooks.example.org/hid")
    other = register(client, name="Other")
    service = service_of(client)
    stored = players_of(service).get(hid["id"])
    flush(client)
    code = code_in(messages_to(mail, "hid@players.example", 1)[0])
    secrets = [hid["token"], hid["token"].split(".", 1)[1], stored["token_hash"], "hid@players.example",
               "https://hooks.example.org/hid", hid["webhook_secret"], code]
    results.rate_game(service.store, players_of(service), finished_game(service.store, [hid["id"], other["id"]]))
    texts = []
    for headers in ({}, auth(other["token"])):
        for path in (f"/v1/players/{hid['id']}", f"/v1/players/{hid['id']}/ratings?game={GAME}",
                     f"/v1/players/{hid['id']}/ratings.svg?game={GAME}", f"/players/{hid['id']}",
                     f"/players/{hid['id']}/confirm"):
            r = client.get(path, headers=headers)
            assert r.status_code == 200, path
            texts.append(r.get_data(as_text=True))
    texts.append(json.dumps(client.get("/v1/players/me", headers=auth(other["token"])).json))
    for text in texts:
        assert not [s for s in secrets if s in text]
    assert not {"email", "webhook", "token", "contacts"} & strings(client.get(f"/v1/players/{hid['id']}").json)


def test_ratings_history_picture_and_page(client):
    a, b = register(client, name="Ann <b>"), register(client, name="Bob")
    service = service_of(client)
    games = [finished_game(service.store, [a["id"], b["id"]], resigns=k % 2) for k in range(5)]
    for gid in games:
        results.rate_game(service.store, players_of(service), gid)
    profile = client.get(f"/v1/players/{a['id']}").json
    assert profile["games"] == {GAME: {"played": 5, "won": 2}} and (profile["played"], profile["won"]) == (5, 2)
    assert profile["ratings"][GAME] == players_of(service).ratings(a["id"])[GAME]
    page = client.get(f"/v1/players/{a['id']}/ratings", query_string={"game": GAME, "limit": 2}).json
    assert [e["game_id"] for e in page["history"]] == games[:2] and page["next"] == 2
    rest = client.get(f"/v1/players/{a['id']}/ratings", query_string={"game": GAME, "after": 4}).json
    assert [e["game_id"] for e in rest["history"]] == games[4:] and rest["next"] is None
    assert rest["history"][0]["after"] == rest["rating"] == profile["ratings"][GAME]
    svg = client.get(f"/v1/players/{a['id']}/ratings.svg", query_string={"game": GAME})
    text = svg.get_data(as_text=True)
    assert svg.mimetype == "image/svg+xml" and text.count("<polyline") == 2
    assert "Ann &lt;b&gt;" in text and "<b>" not in text  # the name escaped
    assert len(re.search(r'class="mu" points="([^"]+)"', text).group(1).split()) == 6  # before, then 5 games
    html = client.get(f"/players/{a['id']}").get_data(as_text=True)
    assert "ratings.svg?game=king-of-danger" in html and "<script" not in html
    # the game by its name where a person reads it, its id only in the picture's address
    assert "<td>King of Danger</td>" in html and "<h2>King of Danger</h2>" in html
    assert "king-of-danger" not in re.sub(r'src="[^"]*"', "", html)
    assert "King of Danger rating" in text and "king-of-danger" not in text
    assert client.get("/players/nobody").status_code == 404


def test_the_confirmation_page_confirms_only_by_its_button(client, mail):
    ivy = register(client, name="Ivy", email="ivy@players.example")
    flush(client)
    code = code_in(messages_to(mail, "ivy@players.example", 1)[0])
    page = client.get(f"/players/{ivy['id']}/confirm", query_string={"code": code})
    assert page.status_code == 200 and f'value="{code}"' in page.get_data(as_text=True)
    assert "<script" not in page.get_data(as_text=True)
    me = lambda: client.get("/v1/players/me", headers=auth(ivy["token"])).json["contacts"]  # noqa: E731
    assert me()["email_confirmed"] is False  # opening the link confirms nothing
    assert client.post(f"/players/{ivy['id']}/confirm", data={"code": "WRONGONE"}).status_code == 403
    assert me()["email_confirmed"] is False
    done = client.post(f"/players/{ivy['id']}/confirm", data={"code": code})
    assert done.status_code == 200 and "confirmed" in done.get_data(as_text=True)
    assert me()["email_confirmed"] is True


def test_the_refusals_of_the_player_endpoints_are_documented(client, mail):
    import jsonschema

    spec = client.get("/openapi.json").json
    problem = jsonschema.Draft4Validator({**spec["components"]["schemas"]["Problem"],
                                          "components": spec["components"]})
    p = register(client, name="Doc", email="doc@players.example")
    bad = {"Authorization": "Bearer nope.nope"}
    cases = [
        ("post", "/v1/players", 400, client.post("/v1/players", json={"name": 5})),
        ("post", "/v1/players", 415, client.post("/v1/players", data="x", content_type="text/plain")),
        ("post", "/v1/players", 413, client.post("/v1/players", data=b"[" + b" " * (2 << 20) + b"]",
                                                  content_type="application/json")),
        ("get", "/v1/players/me", 401, client.get("/v1/players/me", headers=bad)),
        ("patch", "/v1/players/me", 400, client.patch("/v1/players/me", json={"email": 5}, headers=auth(p["token"]))),
        ("patch", "/v1/players/me", 401, client.patch("/v1/players/me", json={}, headers=bad)),
        ("patch", "/v1/players/me", 415, client.patch("/v1/players/me", data="x", content_type="text/plain",
                                                      headers=auth(p["token"]))),
        ("get", "/v1/players/{player_id}", 404, client.get("/v1/players/nobody")),
        ("post", "/v1/players/{player_id}/confirm", 400, client.post(f"/v1/players/{p['id']}/confirm", json={})),
        ("post", "/v1/players/{player_id}/confirm", 403,
         client.post(f"/v1/players/{p['id']}/confirm", json={"code": "AAAAAAAA"})),
        ("post", "/v1/players/{player_id}/confirm", 404, client.post("/v1/players/x/confirm", json={"code": "A"})),
        ("post", "/v1/players/{player_id}/confirm", 415,
         client.post(f"/v1/players/{p['id']}/confirm", data="x", content_type="text/plain")),
        ("get", "/v1/players/{player_id}/ratings", 400, client.get(f"/v1/players/{p['id']}/ratings")),
        ("get", "/v1/players/{player_id}/ratings", 404, client.get("/v1/players/x/ratings?game=g")),
        ("get", "/v1/players/{player_id}/ratings.svg", 400, client.get(f"/v1/players/{p['id']}/ratings.svg")),
        ("get", "/v1/players/{player_id}/ratings.svg", 404, client.get("/v1/players/x/ratings.svg?game=g")),
    ]
    for method, path, status, r in cases:
        assert r.status_code == status, (method, path, r.status_code, r.get_data()[:200])
        assert r.mimetype == "application/problem+json"
        problem.validate(r.json)
        assert str(status) in spec["paths"][path][method]["responses"], (method, path, status)


def test_a_message_the_smtp_server_refused_is_sent_later_once(client, player_smtp, mail):
    player_smtp.inbox.failing = True
    jo = register(client, name="Jo", email="jo@players.example")
    flush(client)
    service = service_of(client)
    end = time.monotonic() + 10
    while time.monotonic() < end:  # the registration's own try, on its thread, is refused too
        waiting = players_of(service).due_mail(time.time() + 10**6)
        if waiting and waiting[0]["attempts"] >= 1:
            break
        time.sleep(0.05)
    assert [w["player"] for w in waiting] == [jo["id"]] and waiting[0]["attempts"] >= 1
    player_smtp.inbox.failing = False
    assert confirmation.deliver_due(service, now=time.time() + 3600) == 1  # its backoff has passed
    assert confirmation.deliver_due(service, now=time.time() + 7200) == 0
    (msg,) = messages_to(mail, "jo@players.example", 1)
    assert client.post(f"/v1/players/{jo['id']}/confirm", json={"code": code_in(msg)}).status_code == 200


def test_a_seat_takes_a_confirmed_address_only(client, mail):
    """What the game layer takes from a player for a seat ``{"player": ID}``."""
    from referee.games.base import MalformedMove
    from referee.players import accounts
    from referee.service import token_hash

    kim = register(client, name="Kim", email="kim@players.example", webhook="https://hooks.example.org/kim")
    service = service_of(client)
    seat = accounts.seat_of(service, kim["id"])
    assert seat == {"name": "Kim", "player": kim["id"], "token_hash": token_hash(kim["token"]),
                    "webhook": "https://hooks.example.org/kim", "webhook_secret": kim["webhook_secret"]}
    flush(client)
    code = code_in(messages_to(mail, "kim@players.example", 1)[0])
    client.post(f"/v1/players/{kim['id']}/confirm", json={"code": code})
    assert accounts.seat_of(service, kim["id"])["email"] == "kim@players.example"
    with pytest.raises(MalformedMove) as refused:
        accounts.seat_of(service, "nobody", field="players[1].player")
    assert refused.value.extra["field"] == "players[1].player"
