"""Names hold no control characters (Unicode Cc) and no bidirectional formatting
characters, wherever the referee takes one: 400 naming the field, nothing written.
A name stored before the rule (a line break in an old game's or player's name)
no longer stops anyone's e-mail notice: the subject is written on one line."""

from __future__ import annotations

import secrets
import sys
import unicodedata

import pytest

from referee import entries
from referee.caller import new_token, token_hash
from referee.games.base import ADMIN
from referee.mail import sending
from referee.players.store import players_of
from referee.store import GameRecord
from referee.table import Table
from tests.playertools import auth, register

GAME = "king-of-danger"
BIDI = "\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
# a line break (the header breaker), NUL, escape, DEL, NEL (a C1 control), and direction overrides
BAD = ["Ann\r\nBcc: eve@example.org", "Ann\nB", "Ann\x00", "\x1b[31mAnn", "Ann\x7f", "Ann\x85", "Ann\u202eevil",
       "Ann\u2066x\u2069", "Ann\u200f"]


def test_every_control_and_bidirectional_formatting_character_is_refused_and_others_kept():
    unfit = [chr(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Cc"] + list(BIDI)
    assert len(unfit) == 65 + 11
    for ch in unfit:
        with pytest.raises(entries.MalformedMove) as refused:
            entries.check_name(f"A{ch}B", "players[2].name")
        assert refused.value.extra["field"] == "players[2].name" and f"U+{ord(ch):04X}" in refused.value.detail
        assert entries.printable(f"A{ch}B") == "A B"
    # letters of any script, a right-to-left one included, joiners, marks and emoji are names
    for fine in ("Zoë", "דנה", "عليّ", "Ann-Marie O'Neil", "👩\u200d👩\u200d👧", "Jo\u00a0Jo", "e\u0301"):
        assert entries.check_name(fine, "name") == fine and entries.printable(fine) == fine


def _open_game(client, ann) -> dict:
    r = client.post("/v1/games", json={"game": GAME, "players": [{"player": ann["id"]}, {"open": True}]},
                    headers=auth(ann["token"]))
    assert r.status_code == 201, r.json
    return r.json


def _listing(client) -> list:
    return [g["id"] for g in client.get("/v1/games", query_string={"limit": 1000}).json["games"]]


def test_a_name_is_refused_with_its_field_wherever_it_is_taken(client):
    ann = register(client, name="Ann")
    dee = register(client, name="Dee")
    game = client.post("/v1/games", json={"game": GAME, "players": ["Ann", "Bob"]}).json
    seats_before = client.get(f"/v1/games/{game['id']}").json
    opened = _open_game(client, ann)
    open_before = client.get(f"/v1/games/{opened['id']}").json
    games_before = _listing(client)
    places = [  # (method, path, body for a name, the field named, headers)
        ("/v1/players", lambda n: {"name": n}, "name", {}),
        ("/v1/games", lambda n: {"game": GAME, "players": ["Cy", n]}, "players[1].name", {}),
        ("/v1/games", lambda n: {"game": GAME, "players": [{"name": n, "email": "x@example.org"}, "Cy"]},
         "players[0].name", {}),
        ("/v1/games", lambda n: {"game": GAME, "players": [{"player": ann["id"]}, {"name": n, "bot": "random"},
                                                          {"open": True}]}, "players[1].name", auth(ann["token"])),
        (f"/v1/games/{game['id']}/seats/1/replace", lambda n: {"name": n}, "name", auth(game["admin_token"])),
        (f"/v1/games/{opened['id']}/seats/1/fill", lambda n: {"bot": "random", "name": n}, "name",
         auth(opened["admin_token"])),
        ("/v1/leagues", lambda n: {"name": n, "game": GAME, "options": {"target": 1}, "format": "round-robin",
                                   "players": [ann["id"], dee["id"]]}, "name", auth(ann["token"])),
    ]
    for path, body, field, headers in places:
        for name in BAD:
            r = client.post(path, json=body(name), headers=headers)
            assert r.status_code == 400, (path, name, r.json)
            assert r.mimetype == "application/problem+json" and r.json["field"] == field, (path, name, r.json)
    # nothing was written anywhere
    assert _listing(client) == games_before
    assert client.get(f"/v1/games/{game['id']}").json == seats_before
    assert client.get(f"/v1/games/{opened['id']}").json == open_before
    assert client.get("/v1/leagues").json["leagues"] == []
    # checked as given, before spaces at the ends are trimmed: a line break at an end is refused too
    r = client.post(f"/v1/games/{game['id']}/seats/1/replace", json={"name": "Bea\n"},
                    headers=auth(game["admin_token"]))
    assert r.status_code == 400 and r.json["field"] == "name"
    r = client.post(f"/v1/games/{game['id']}/seats/1/replace", json={"name": " Bea "},
                    headers=auth(game["admin_token"]))
    assert r.status_code == 201 and r.json["name"] == "Bea"


def _mails_to(service, smtp, address: str) -> list:
    sending.deliver_due(service)
    return smtp.inbox.to(address)


def test_an_old_game_whose_name_holds_a_line_break_still_mails_its_notices(client, service, smtp):
    """A game written straight into the store, as an older referee took it: seat 0's
    name holds CR/LF and a header of its own; Bob's notices go out all the same,
    their subject on one line, and nobody is mailed through the name."""
    old_name = "Ann\r\nBcc: eve@example.org"
    gid, seed, salt_key = "oldnames1", secrets.token_hex(32), secrets.token_hex(32)
    created = Table.created_event(GAME, gid, [old_name, "Bob"], {"target": 3}, seed, False, salt_key=salt_key)
    table = Table.from_created(created)
    tokens, admin = [new_token(), new_token()], new_token()
    record = GameRecord(gid, GAME, created.at, [old_name, "Bob"],
                        {token_hash(tokens[0]): 0, token_hash(tokens[1]): 1, token_hash(admin): ADMIN},
                        seed, status=table.status, version=1, salt_key=salt_key,
                        extra={"contacts": {"1": {"email": "bob@example.org"}}})
    service.store.create(record, created, to_act=table.to_act())
    service.queue.enqueue_settle(gid, 1)  # the deal, and its notice
    got = _mails_to(service, smtp, "bob@example.org")
    assert got, client.get(f"/v1/games/{gid}/notices", headers=auth(admin)).json
    for msg in got:
        subject = str(msg["Subject"])
        assert "\r" not in subject and "\n" not in subject and "Ann  Bcc: eve@example.org" in subject
        assert msg["Bcc"] is None
    assert smtp.inbox.to("eve@example.org") == []


def test_an_old_player_whose_name_holds_a_line_break_still_mails_the_opponents(client, service, smtp):
    """A player record written straight into the player store, as an older referee
    took it, seated by its own token beside Bob: Bob's notices go out."""
    token = f"oldplayer1.{secrets.token_urlsafe(24)}"
    players_of(service).create({"id": "oldplayer1", "name": "Old\nTimer", "bot": None,
                                "created": "2025-01-01T00:00:00Z"}, token_hash(token), {}, None)
    r = client.post("/v1/games", json={"game": GAME, "players": [{"player": "oldplayer1"},
                                                                {"name": "Bob", "email": "bob@example.org"}],
                                       "options": {"target": 3}}, headers=auth(token))
    assert r.status_code == 201, r.json
    got = _mails_to(service, smtp, "bob@example.org")
    assert got and all("Old Timer" in str(m["Subject"]) and "\n" not in str(m["Subject"]) for m in got)
