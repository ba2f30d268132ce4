"""A lost token recovered by e-mail (``POST /v1/players/recover``) on both stores, with
a real SMTP server: the same answer for every address, the new token only in the
mail, the old one working until the new one is first used and nowhere after (the
player's running game too), one message an hour an address, the newest token only,
a day's life, rate-limited per client, bad input refused by name."""

from __future__ import annotations

import re
import time

from referee.players import confirmation, recovery
from referee.players.redis import M
from referee.players.store import players_of
from tests.playertools import auth, new_game, register
from tests.test_players_api import messages_to

ANN = "ann@recover.example"


def confirmed(client, mail, name: str, address: str) -> dict:
    """A player whose address is confirmed with the code its message brought."""
    player = register(client, name=name, email=address)
    confirmation.deliver_due(client.application.extensions["referee"])
    (msg,) = messages_to(mail, address, 1)
    code = re.search(r"code ([A-Z2-7]{8})", msg.get_content()).group(1)
    assert client.post(f"/v1/players/{player['id']}/confirm", json={"code": code}).status_code == 200
    return player


def ask(client, address, **environ) -> None:
    r = client.post("/v1/players/recover", json={"email": address}, **environ)
    assert r.status_code == 202, r.json
    assert r.json == recovery.ASKED  # the same words, whoever's the address


def token_in(msg) -> str:
    return re.search(r"The new token: (\S+)", msg.get_content()).group(1)


def sent(client) -> None:
    recovery.deliver_due(client.application.extensions["referee"])


def test_a_new_token_by_mail_takes_over_when_first_used_and_the_old_one_stops_working(client, service, mail):
    ann, bob = confirmed(client, mail, "Ann", ANN), register(client, name="Bob")
    cat = register(client, name="Cat", email="cat@recover.example")  # an address never confirmed
    game = new_game(client, [{"player": ann["id"]}, {"player": bob["id"]}])
    gid = game["id"]
    seat = client.get(f"/v1/games/{gid}/view", headers=auth(ann["token"])).json["seat"]
    for address in (ANN, "nobody@recover.example", "cat@recover.example"):
        ask(client, address)
    sent(client)
    (msg,) = messages_to(mail, ANN, 2)[1:]  # the confirmation, then the new token
    new = token_in(msg)
    assert new.startswith(ann["id"] + ".") and new != ann["token"]
    assert f"https://referee.example/me#token={new}" in msg.get_content()
    assert msg["Auto-Submitted"] == "auto-generated"
    time.sleep(0.3)
    assert mail.to("nobody@recover.example") == [] and len(mail.to("cat@recover.example")) == 1  # its code only
    # a stranger's asking locks nobody out: the old token works until the new one is used
    assert client.get("/v1/players/me", headers=auth(ann["token"])).status_code == 200
    assert client.get(f"/v1/games/{gid}/view", headers=auth(ann["token"])).json["seat"] == seat
    assert players_of(service).get(ann["id"])["token_hash"] != recovery.token_hash(new)
    # its first use (here in the game itself) makes it the player's token; the old one
    # then works nowhere
    view = client.get(f"/v1/games/{gid}/view", headers=auth(new))
    assert view.status_code == 200 and view.json["seat"] == seat
    assert client.get(f"/v1/games/{gid}/view", headers=auth(ann["token"])).status_code == 401
    assert client.get("/v1/players/me", headers=auth(ann["token"])).status_code == 401
    me = client.get("/v1/players/me", headers=auth(new))
    assert me.status_code == 200 and me.json["id"] == ann["id"]
    assert client.get("/v1/players/me", headers=auth(new)).status_code == 200  # used again: still it
    assert cat["id"] not in str(players_of(service).due_mail(time.time() + 10**6))


def hour_over(service, address: str) -> None:
    """The address's hour since its last recovery message over (as the store keeps it)."""
    key = recovery._address_claim(address)
    store = service.store
    if hasattr(store, "path"):
        with store.immediate() as conn:
            conn.execute("DELETE FROM mail_addresses WHERE address = ?", (key,))
    else:
        store.r.delete(M + "addr:" + key)


def test_one_message_an_hour_an_address_and_only_the_newest_token_works(client, service, mail):
    ann = confirmed(client, mail, "Ann", ANN)
    ask(client, ANN)
    sent(client)
    first = token_in(messages_to(mail, ANN, 2)[1])
    ask(client, ANN)  # within the hour: the same answer, no message
    sent(client)
    time.sleep(0.3)
    assert len(mail.to(ANN)) == 2
    hour_over(service, ANN)
    ask(client, ANN)
    sent(client)
    second = token_in(messages_to(mail, ANN, 3)[2])
    assert client.get("/v1/players/me", headers=auth(first)).status_code == 401  # replaced by the newer
    assert client.get("/v1/players/me", headers=auth(second)).status_code == 200
    assert client.get("/v1/players/me", headers=auth(ann["token"])).status_code == 401


def test_a_mailed_token_works_for_its_life_only(client, service, mail, monkeypatch):
    ann = confirmed(client, mail, "Ann", ANN)
    monkeypatch.setattr(recovery, "LIFE", -1.0)  # it has expired by the time it is used
    ask(client, ANN)
    sent(client)
    late = token_in(messages_to(mail, ANN, 2)[1])
    assert client.get("/v1/players/me", headers=auth(late)).status_code == 401
    assert client.get("/v1/players/me", headers=auth(ann["token"])).status_code == 200


def test_bad_requests_are_refused_by_name_and_asking_is_rate_limited_per_client(client, service, mail, monkeypatch):
    for body, field in (({}, "email"), ({"email": "not an address"}, "email"), ({"email": 7}, "email"),
                        ({"email": ANN, "name": "Ann"}, "name")):
        r = client.post("/v1/players/recover", json=body)
        assert r.status_code == 400 and r.json["field"] == field, (body, r.json)
        assert r.headers["Content-Type"].startswith("application/problem+json")
    monkeypatch.setenv("REFEREE_RECOVER_RATE", "2/minute")
    for _ in range(2):
        ask(client, "nobody@recover.example")
    r = client.post("/v1/players/recover", json={"email": "nobody@recover.example"})
    assert r.status_code == 429 and r.json["code"] == "too-many-requests" and int(r.headers["Retry-After"]) > 0
    ask(client, "nobody@recover.example", environ_base={"REMOTE_ADDR": "192.0.2.8"})  # another client
    assert players_of(service).due_mail(time.time() + 10**6) == []
