"""Fair deals, on both stores: the referee commits to its secret part first, every seat
may add entropy (unseen until the first event records it), the seed is the derivation
docs/log-format.md states (recomputed here from that text, not by calling the
referee's function), and the audit checks the reveal, the derivation and every deal,
naming the event where any fails. Older logs audit as before."""

from __future__ import annotations

import hashlib
import json
import re
import struct
from pathlib import Path

import pytest

from referee.audit import audit
from referee.events import Event
from referee.players.store import players_of
from tests.helpers import canonical_lines, strings
from tests.playertools import auth, register
from tests.test_audit import reseal

ROOT = Path(__file__).resolve().parent.parent
GAME = "king-of-danger"


def documented_seed(secret: str, contributions: list) -> str:
    """The seed as docs/log-format.md ("The seed", "The derivation") words it: SHA-256
    over the tag and its line feed, the secret part length-prefixed, the count, then
    per contribution 0x00 for null or 0x01 and the contribution length-prefixed;
    lengths as 4 bytes big-endian, text as UTF-8."""
    def prefixed(text: str) -> bytes:
        data = text.encode("utf-8")
        return struct.pack(">I", len(data)) + data

    data = b"castle-referee/seed/v1" + b"\n" + prefixed(secret) + struct.pack(">I", len(contributions))
    for c in contributions:
        data += b"\x00" if c is None else b"\x01" + prefixed(c)
    return hashlib.sha256(data).hexdigest()


def events_of(text: str) -> list[dict]:
    return canonical_lines(text)


def ended(client, players, **more) -> tuple[dict, str]:
    """A two-seat game created through the API and ended at once by seat 1's
    resignation (after the first deal): the creation's answer and the export."""
    r = client.post("/v1/games", json={"game": GAME, "players": players, **more})
    assert r.status_code == 201, r.json
    token = r.json["seats"][1]["token"]
    moved = client.post(f"/v1/games/{r.json['id']}/moves", json={"move": {"type": "resign"}}, headers=auth(token))
    assert moved.status_code == 201, moved.json
    export = client.get(f"/v1/games/{r.json['id']}/export")
    assert export.status_code == 200, export.json
    return r.json, export.get_data(as_text=True)


def test_the_documented_worked_example_is_the_documented_derivation():
    """The example docs/log-format.md gives implementers is what its own words derive
    (so the words and the example cannot drift apart), and the encoding tells apart
    lists a naive join would confuse."""
    doc = (ROOT / "docs" / "log-format.md").read_text()
    example = re.search(r"secret part +(\w+)\ncommitment +(\w+)\ncontributions +(.+)\nseed +(\w+)\n", doc)
    secret, commitment, contributions, seed = example.groups()
    assert hashlib.sha256(secret.encode()).hexdigest() == commitment
    assert documented_seed(secret, json.loads(contributions)) == seed
    nulls = re.search(r"with `\[null, null, null\]` gives\s+`(\w+)`", doc).group(1)
    assert documented_seed(secret, [None, None, None]) == nulls
    lists = [["ab", None], ["a", "b"], ["ab"], [None, "ab"], ["a b"], ["ab", "\u00e9"], ["ab", "e\u0301"]]
    assert len({documented_seed(secret, c) for c in lists}) == len(lists)


def test_a_game_is_dealt_from_the_documented_derivation_of_its_committed_secret_and_contributions(client):
    """Seat 0 gives entropy (letters, symbols, the space), seat 1 none: the first event
    records both (null for none) beside the commitment the creation answered; the
    reveal's secret part matches it, the seed is the documented derivation, and the
    audit re-deals from it."""
    mine = "Ann's 🎲 roll, ÇÎD 42 ½"
    created, text = ended(client, [{"name": "Ann", "entropy": mine}, "Bob"])
    lines = events_of(text)
    first, reveal = lines[0]["payload"], lines[-1]["payload"]
    assert first["contributions"] == [mine, None]
    assert first["seed_commitment"] == created["seed_commitment"]
    assert lines[-1]["type"] == "seed-revealed" and set(reveal) == {"seed", "secret", "salt_key"}
    assert hashlib.sha256(reveal["secret"].encode()).hexdigest() == first["seed_commitment"]
    assert re.fullmatch(r"[0-9a-f]{64}", reveal["secret"])
    assert reveal["seed"] == documented_seed(reveal["secret"], [mine, None])
    assert client.get(f"/v1/games/{created['id']}").json["seed_commitment"] == created["seed_commitment"]
    report = audit(text)
    assert report["valid"] and report["seed"] == "verified", report


def test_a_changed_contribution_fails_the_audit_at_event_1_or_at_the_first_deal(client):
    created, text = ended(client, [{"name": "Ann", "entropy": "ann"}, {"name": "Bob", "entropy": "bob"}])
    lines = events_of(text)
    assert lines[1]["type"] == "hand-dealt"  # the first deal is event 2
    assert audit(text)["valid"]

    def changed(contributions, seed=None) -> list[dict]:
        out = [dict(d) for d in lines]
        out[0] = {**out[0], "payload": {**out[0]["payload"], "contributions": contributions}}
        if seed is not None:
            out[-1] = {**out[-1], "payload": {**out[-1]["payload"], "seed": seed}}
        return out

    secret = lines[-1]["payload"]["secret"]
    edited = "".join(json.dumps(d, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n"
                     for d in changed(["ann", "bob!"]))
    assert audit(edited)["first_error"]["seq"] == 1  # its hash no longer holds
    for contributions in (["ann", "bob!"], ["ann", None], [None, "bob"], ["bob", "ann"]):
        # a forger who computes every hash again: the revealed seed is not the one they give
        forged = audit(reseal(changed(contributions)))
        assert not forged["valid"] and forged["first_error"]["seq"] == 1, forged
        assert forged["first_error"]["code"] == "contributions-mismatch"
        # ... and one who changes the revealed seed to match: the first deal is not that seed's
        forged = audit(reseal(changed(contributions, documented_seed(secret, contributions))))
        assert forged["first_error"]["seq"] == 2 and forged["first_error"]["code"] == "diverges", forged
    # the HTTP audit names the same event
    r = client.post("/v1/audit", data=reseal(changed(["ann", "bob!"])))
    assert r.status_code == 200 and r.json["first_error"]["seq"] == 1, r.json
    # a reveal whose secret part is not the committed one fails where it is revealed
    wrong = [dict(d) for d in lines]
    wrong[-1] = {**wrong[-1], "payload": {**wrong[-1]["payload"], "secret": "0" * 64}}
    forged = audit(reseal(wrong))
    assert forged["first_error"] == {"seq": len(lines), "code": "seed-mismatch", "detail": forged["first_error"]["detail"]}
    # a forger who removes the contributions (an older game's form, its reveal the seed
    # alone): the commitment then asks for the secret part as the seed, which does not deal so
    older = [dict(d) for d in lines]
    older[0] = {**older[0], "payload": {k: v for k, v in older[0]["payload"].items() if k != "contributions"}}
    older[-1] = {**older[-1], "payload": {"seed": secret, "salt_key": lines[-1]["payload"]["salt_key"]}}
    forged = audit(reseal(older))
    assert forged["first_error"]["seq"] == 2, forged


def deals(service, secret: str, contributions: list) -> list:
    """The hands a game created with this secret part and these contributions deals."""
    players = [{"name": f"p{i}", **({"entropy": c} if c is not None else {})} for i, c in enumerate(contributions)]
    gid = service.create(GAME, players, {}, secret=secret)["id"]
    (dealt,) = [ev for ev in service.store.events(gid) if ev.type == "hand-dealt"]
    return dealt.payload


def test_the_same_contributions_and_secret_part_deal_the_same_hands(service):
    secret = "ab" * 32
    same = deals(service, secret, ["one", None, "three"])
    assert deals(service, secret, ["one", None, "three"]) == same
    assert deals(service, secret, ["one", None, "three!"]) != same
    assert deals(service, secret, ["one", "", "three"][:1] + [None, "three"]) == same
    assert deals(service, secret, [None, "one", "three"]) != same
    assert deals(service, "cd" * 32, ["one", None, "three"]) != same


def test_contributions_stay_hidden_until_the_first_event_records_them(client, service):
    """An open game commits at creation; the creator's entropy and a joiner's are in no
    answer, lobby, summary, page or invitation until the last seat starts the game;
    then its first event records all three, beside the commitment given at creation."""
    ann, bob, cat = register(client, name="Ann"), register(client, name="Bob"), register(client, name="Cat")
    hidden = {"ann-hidden-entropy", "bob-hidden-entropy"}
    r = client.post("/v1/games", json={"game": GAME, "players": [
        {"player": ann["id"], "entropy": "ann-hidden-entropy"}, {"invite_player": bob["id"]}, {"open": True}]},
        headers=auth(ann["token"]))
    assert r.status_code == 201 and r.json["status"] == "open", r.json
    gid, commitment = r.json["id"], r.json["seed_commitment"]
    assert re.fullmatch(r"[0-9a-f]{64}", commitment)
    joined = client.post(f"/v1/games/{gid}/join", json={"entropy": "bob-hidden-entropy"}, headers=auth(bob["token"]))
    assert joined.status_code == 201 and joined.json["status"] == "open", joined.json
    answers = [r.json, joined.json, client.get(f"/v1/games/{gid}").json, client.get("/v1/games?status=open").json,
               client.get("/v1/players/me", headers=auth(bob["token"])).json,
               client.get("/v1/players/me", headers=auth(ann["token"])).json]
    assert all(not (hidden & strings(a)) for a in answers)
    for page in (client.get(f"/games/{gid}"), client.get("/"), client.get(f"/games/{gid}", headers=auth(ann["token"]))):
        assert page.status_code == 200 and not any(h in page.get_data(as_text=True) for h in hidden)
    assert answers[2]["seed_commitment"] == commitment  # the summary and the lobby: the same commitment
    assert [g["seed_commitment"] for g in answers[3]["games"] if g["id"] == gid] == [commitment]
    started = client.post(f"/v1/games/{gid}/join", json={"entropy": "cat's"}, headers=auth(cat["token"]))
    assert started.status_code == 201 and started.json["status"] != "open", started.json
    assert "cat's" not in json.dumps(started.json)
    first = client.get(f"/v1/games/{gid}/events?limit=1", headers=auth(cat["token"])).json["events"][0]
    assert first["payload"]["contributions"] == ["ann-hidden-entropy", "bob-hidden-entropy", "cat's"]
    assert first["payload"]["seed_commitment"] == commitment


def test_an_invited_players_contribution_comes_with_the_answer_to_the_invitations_link(client, service):
    """The invitation's page posts the player's entropy (its script draws 32 random
    bytes when the player types none: tests/test_seats_browser.py); the first event
    records it."""
    from referee.players import invitation_mail as mailing

    ann = register(client, name="Ann")
    r = client.post("/v1/games", json={"game": GAME, "players": [{"player": ann["id"]},
                                                                  {"invite": "uma@players.example"}]},
                    headers=auth(ann["token"]))
    gid = r.json["id"]
    record = json.loads(players_of(service).open_get(gid))
    code = mailing.code_for(service, gid, 1, mailing.kept_for(record["seats"][1]))
    page = client.get(f"/games/{gid}/invitation?seat=1&code={code}").get_data(as_text=True)
    assert 'name="entropy"' in page and "invitation.js" in page
    kept = players_of(service).open_get(gid)
    bad = client.post(f"/games/{gid}/invitation", data={"seat": "1", "code": code, "answer": "accept",
                                                       "name": "Uma", "entropy": "tab\there"})
    assert bad.status_code == 400 and "U+0009" in bad.get_data(as_text=True)
    # nothing written: the seat still kept, nobody registered with the address
    assert players_of(service).open_get(gid) == kept
    assert mailing.confirmed_owner(players_of(service), "uma@players.example") is None
    r = client.post(f"/games/{gid}/invitation", data={"seat": "1", "code": code, "answer": "accept",
                                                     "name": "Uma", "entropy": "uma's own"})
    assert r.status_code == 201, r.get_data(as_text=True)
    first = Event.from_json(service.whole_log(gid).splitlines()[0])
    assert first.payload["contributions"] == [None, "uma's own"]


BAD = ["", "x" * 257, "line\nbreak", "tab\t", "left\u200eto", "nb\u00a0space", "line\u2028sep", "\ue000private",
       "\ud800", 7, None, ["list"]]


@pytest.mark.parametrize("bad", BAD, ids=repr)
def test_bad_entropy_is_refused_naming_the_field_and_nothing_is_written(client, service, bad):
    before = service.store.games()
    for players, field in (([{"name": "Ann", "entropy": "fine"}, {"name": "Bob", "entropy": bad}],
                            "players[1].entropy"),
                           ([{"name": "Ann", "entropy": bad}, "Bob"], "players[0].entropy")):
        r = client.post("/v1/games", json={"game": GAME, "players": players})
        assert r.status_code == 400 and r.json["field"] == field, r.json
    ann, bob = register(client, name="Ann"), register(client, name="Bob")
    r = client.post("/v1/games", json={"game": GAME, "players": [{"player": ann["id"], "entropy": bad},
                                                                  {"open": True}]}, headers=auth(ann["token"]))
    assert r.status_code == 400 and r.json["field"] == "players[0].entropy", r.json
    assert client.get("/v1/games?status=open").json["games"] == []
    assert service.store.games() == before
    gid = client.post("/v1/games", json={"game": GAME, "players": [{"player": ann["id"]}, {"open": True}]},
                      headers=auth(ann["token"])).json["id"]
    kept = players_of(service).open_get(gid)
    r = client.post(f"/v1/games/{gid}/join", json={"entropy": bad}, headers=auth(bob["token"]))
    assert r.status_code == 400 and r.json["field"] == "entropy", r.json
    assert players_of(service).open_get(gid) == kept and service.store.record(gid) is None


def test_entropy_where_a_seat_takes_none_is_refused_naming_the_field(client, service):
    """Beside a given seed or deck (a stacked game's deal is chosen already), on a seat
    still to take or kept for an invited player (its player brings their own)."""
    ann, bob = register(client, name="Ann"), register(client, name="Bob")
    deck = [f"{s}{n}" for s in "WC" for n in range(1, 8)] + [f"Z{n}" for n in range(1, 9)] + ["KD", "KW", "KC", "KZ"]
    for options in ({"seed": 11}, {"seed": "private"}, {"deck": deck}):
        r = client.post("/v1/games", json={"game": GAME, "players": ["A", {"name": "B", "entropy": "mine"}],
                                           "options": options})
        assert r.status_code == 400 and r.json["field"] == "players[1].entropy", (options, r.json)
    for seat in ({"open": True, "entropy": "x"}, {"invite": "z@players.example", "entropy": "x"},
                 {"invite_player": bob["id"], "entropy": "x"}):
        r = client.post("/v1/games", json={"game": GAME, "players": [{"player": ann["id"]}, seat]},
                        headers=auth(ann["token"]))
        assert r.status_code == 400 and r.json["field"] == "players[1].entropy", (seat, r.json)
    # an open game's seed is checked when it opens (its commitment is made then)
    r = client.post("/v1/games", json={"game": GAME, "players": [{"player": ann["id"]}, {"open": True}],
                                       "options": {"seed": True}}, headers=auth(ann["token"]))
    assert r.status_code == 400 and r.json["field"] == "options.seed", r.json
    stacked = client.post("/v1/games", json={"game": GAME, "players": [{"player": ann["id"]}, {"open": True}],
                                             "options": {"seed": "s"}}, headers=auth(ann["token"])).json
    assert client.get(f"/v1/games/{stacked['id']}").json["stacked"] is True
    assert stacked["seed_commitment"] == hashlib.sha256(b"s").hexdigest()
    r = client.post(f"/v1/games/{stacked['id']}/join", json={"entropy": "x"}, headers=auth(bob["token"]))
    assert r.status_code == 400 and r.json["field"] == "entropy", r.json
    assert client.post(f"/v1/games/{stacked['id']}/join", json={}, headers=auth(bob["token"])).status_code == 201
    assert client.get("/v1/games?status=open").json["games"] == []


def test_a_game_dealt_from_a_given_seed_takes_no_contributions_and_reveals_the_seed_itself(client):
    created, text = ended(client, ["Ann", "Bob"], options={"seed": 11})
    lines = events_of(text)
    assert "contributions" not in lines[0]["payload"]
    assert created["seed_commitment"] == hashlib.sha256(b"11").hexdigest()
    assert set(lines[-1]["payload"]) == {"seed", "salt_key"} and lines[-1]["payload"]["seed"] == "11"
    assert audit(text)["valid"]


def test_an_export_from_before_contributions_still_audits_valid():
    """A King of Danger game of two deals exported by the referee before contributions
    (no contributions in its first event, its reveal the seed itself): valid, each
    deal re-dealt from that seed; its seed changed, the commitment catches it."""
    text = (ROOT / "tests" / "games" / "data" / "king-of-danger-before-entropy.jsonl").read_text()
    lines = events_of(text)
    assert "contributions" not in lines[0]["payload"] and "secret" not in lines[-1]["payload"]
    assert sum(1 for d in lines if d["type"] == "hand-dealt") == 2
    report = audit(text)
    assert report["valid"] and report["seed"] == "verified" and report["status"] == "finished", report
    lines[-1] = {**lines[-1], "payload": {**lines[-1]["payload"], "seed": "0" * 64}}
    assert audit(reseal(lines))["first_error"]["code"] == "seed-mismatch"
