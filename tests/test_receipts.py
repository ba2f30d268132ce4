"""Signed receipts through the API (docs/trust.md): every answer that appends
carries the receipt of the last event it wrote, any event's receipt may be asked
for, a refusal carries none, the keys are listed, and a receipt shows nothing its
caller may not see. Both stores."""

from __future__ import annotations

import base64
import hashlib
import json
import logging

import pytest

from referee.events import canonical
from referee.trust import verify
from tests.helpers import Game
from tests.leaguetools import new_league
from tests.playertools import auth, register

KOD = "king-of-danger"


def keys(client) -> dict[str, bytes]:
    r = client.get("/v1/keys")
    assert r.status_code == 200
    return verify.public_keys(r.json)


def logged(text: str) -> dict[int, dict]:
    """An export's events by seq."""
    return {ev["seq"]: ev for ev in map(json.loads, text.splitlines())}


def read(client, game_id: str) -> dict[int, dict]:
    """A game's events by seq as anyone reads them (hashes and times whole)."""
    return {ev["seq"]: ev for ev in client.get(f"/v1/games/{game_id}/events", query_string={"limit": 1000})
            .json["events"]}


def holds(client, receipt: dict, events: dict[int, dict], game: str) -> None:
    """The receipt is signed by a listed key and names exactly that logged event."""
    # (GET .../receipts/{seq} adds the event's place in the transparency log once it is integrated)
    assert set(receipt) - {"index", "checkpoint", "inclusion"} == {"game", "seq", "hash", "at", "key_id", "signature"}
    verify.check_signature(receipt, keys(client))
    ev = events[receipt["seq"]]
    assert (receipt["game"], receipt["hash"], receipt["at"]) == (game, ev["hash"], ev["at"])


def test_every_answer_that_appends_carries_the_receipt_of_its_last_event(client):
    g = Game(client, KOD, 3, {"seed": "receipts-1"})
    receipts = [g.created["receipt"]]
    assert receipts[0]["seq"] == 1
    seat = g.summary()["to_act"][0]
    move = g.post(seat, {"move": g.legal(seat)[0]}).json
    assert move["receipt"]["seq"] == move["events"][-1]["seq"]  # the request's own last event
    receipts.append(move["receipt"])
    seat = g.summary()["to_act"][0]
    batch = g.post(seat, {"moves": g.legal(seat)[:1]}).json
    receipts.append(batch["receipt"])
    clock = g.client.post(f"/v1/games/{g.id}/clock", json={"clock": {"move_seconds": 3600}}, headers=g.auth("admin"))
    assert clock.status_code == 201
    receipts.append(clock.json["receipt"])
    replaced = g.client.post(f"/v1/games/{g.id}/seats/2/replace", json={"name": "Dee"}, headers=g.auth("admin"))
    assert replaced.status_code == 201
    assert replaced.json["receipt"]["seq"] == replaced.json["events"][-1]["seq"]
    receipts.append(replaced.json["receipt"])
    aborted = g.client.post(f"/v1/games/{g.id}/abort", json={}, headers=g.auth("admin"))
    assert aborted.status_code == 201
    assert aborted.json["receipt"]["seq"] == aborted.json["events"][-1]["seq"]  # the abort, not the reveal after it
    receipts.append(aborted.json["receipt"])
    events = logged(g.export())
    for receipt in receipts:
        holds(client, receipt, events, g.id)
    assert len({r["seq"] for r in receipts}) == len(receipts)


def test_a_move_by_mail_is_answered_with_its_receipt(client):
    from email.message import EmailMessage

    g = Game(client, KOD, 2, {"seed": "receipts-mail"})
    seat = g.summary()["to_act"][0]
    move = g.legal(seat)[0]
    mail = EmailMessage()
    mail["From"], mail["To"], mail["Subject"], mail["Message-ID"] = ("ann@example.org", f"referee+{g.id}@example.org",
                                                                     "my move", "<receipt@example.org>")
    mail.set_content(f"token: {g.tokens[seat]}\nplay {move['card']}" + (f" {move['suit']}" if "suit" in move else "") + "\n")
    r = client.post("/v1/inbound/email", data=mail.as_bytes(), content_type="message/rfc822")
    assert r.status_code == 201, r.json
    assert r.json["receipt"]["seq"] == r.json["events"][-1]["seq"]
    holds(client, r.json["receipt"], logged(g.export()), g.id)


def test_an_open_games_last_seat_and_a_leagues_calls_carry_receipts(client):
    ann, bob, cy = (register(client, name=n) for n in ("Ann", "Bob", "Cy"))
    # (Ann's token goes along: her own seat, as the creator's)
    opened = client.post("/v1/games", json={"game": KOD, "players": [{"player": ann["id"]}, {"open": True},
                                                                      {"open": True}]}, headers=auth(ann["token"])).json
    assert opened["receipt"] is None  # nothing appended yet: no log
    first = client.post(f"/v1/games/{opened['id']}/join", json={}, headers=auth(bob["token"])).json
    assert first["status"] == "open" and first["receipt"] is None
    filled = client.post(f"/v1/games/{opened['id']}/seats/2/fill", json={"bot": "basic"},
                         headers=auth(opened["admin_token"]))
    assert filled.status_code == 201
    holds(client, filled.json["receipt"], read(client, opened["id"]), opened["id"])
    assert filled.json["receipt"]["seq"] == 1

    again = client.post("/v1/games", json={"game": KOD, "players": [{"player": ann["id"]}, {"open": True}]},
                        headers=auth(ann["token"])).json
    joined = client.post(f"/v1/games/{again['id']}/join", json={}, headers=auth(cy["token"]))
    assert joined.status_code == 201
    holds(client, joined.json["receipt"], read(client, again["id"]), again["id"])

    made = new_league(client, [ann, bob, cy], by=ann, start=False)  # created, joined: receipts each
    started = client.post(f"/v1/leagues/{made['id']}/start", headers=auth(made["admin_token"]))
    assert started.status_code == 200
    lid = made["id"]
    withdrawn = client.post(f"/v1/leagues/{lid}/players/{cy['id']}/withdraw", headers=auth(cy["token"]))
    assert withdrawn.status_code == 200
    league = {}
    for line in client.get(f"/v1/leagues/{lid}/export").get_data(as_text=True).splitlines():
        found = json.loads(line)
        if found["log"] == "league":
            league[found["event"]["seq"]] = found["event"]
    created, left = started.json["receipt"], withdrawn.json["receipt"]
    assert created["seq"] == started.json["version"] and left["seq"] == withdrawn.json["version"] > created["seq"]
    assert league[left["seq"]]["type"] in ("player-withdrew", "result-recorded", "round-closed",
                                           "round-paired", "league-finished", "seed-revealed")
    for receipt in (created, left):
        holds(client, receipt, league, lid)


def test_a_refusal_carries_no_receipt_and_a_retry_the_same_one(client):
    g = Game(client, KOD, 2, {"seed": "receipts-2"})
    seat = g.summary()["to_act"][0]
    before = g.export()
    refused = [g.post(seat, {"move": {"type": "play", "card": "ZZ"}}), g.post(1 - seat, {"move": g.legal(seat)[0]}),
               g.post(seat, {"move": g.legal(seat)[0], "expected_version": 1}),
               g.client.post(f"/v1/games/{g.id}/abort", json={}, headers=g.auth(seat)),
               g.client.post(f"/v1/games/{g.id}/seats/0/replace", json={"name": ""}, headers=g.auth("admin"))]
    for r in refused:
        assert r.status_code >= 400 and r.mimetype == "application/problem+json"
        assert "receipt" not in r.json
    assert g.export() == before
    move = g.legal(seat)[0]
    first = g.post(seat, {"move": move}, **{"Idempotency-Key": "once"})
    again = g.post(seat, {"move": move}, **{"Idempotency-Key": "once"})
    assert first.status_code == again.status_code == 201 and first.get_data() == again.get_data()


def test_a_receipt_for_any_event_to_anyone(client):
    g = Game(client, KOD, 2, {"seed": "receipts-3"})
    seat = g.summary()["to_act"][0]
    move = g.post(seat, {"move": g.legal(seat)[0]}).json
    events = logged(g.export())
    for seq in events:
        for who in (None, 0, 1, "admin"):
            r = g.get(f"/receipts/{seq}", who)
            assert r.status_code == 200, r.json
            holds(client, r.json, events, g.id)
    # the same key, the same bytes: Ed25519 signs deterministically (the fuller receipt adds
    # the event's place in the transparency log once it is integrated, and changes nothing else)
    fuller = g.get(f"/receipts/{move['receipt']['seq']}").json
    assert {k: fuller[k] for k in move["receipt"]} == move["receipt"]
    version = g.summary()["version"]
    for seq in (0, version + 1):
        r = g.get(f"/receipts/{seq}")
        assert r.status_code == 400 and r.json["field"] == "seq"
    assert client.get("/v1/games/nope/receipts/1").status_code == 404
    bad = client.get(f"/v1/games/{g.id}/receipts/1", headers={"Authorization": "Bearer nope"})
    assert bad.status_code == 401 and "receipt" not in bad.json


def test_a_receipt_lets_no_guess_of_hidden_content_be_tested(client):
    """A seat holds the receipt of a deal it sees only its own part of. The hash is
    over the event with its salt, which the seat is never shown while the game runs:
    even the true hidden payload, guessed right, does not give the hash without it."""
    g = Game(client, KOD, 2, {"seed": "receipts-4"})
    full = logged(g.export())
    dealt = next(ev for ev in full.values() if ev["type"] == "hand-dealt")
    mine = next(ev for ev in g.get("/events", 0, limit=1000).json["events"] if ev["seq"] == dealt["seq"])
    assert mine["payload"] != dealt["payload"] and mine["salt"] is None  # the other hand is hidden from seat 0
    receipt = g.get(f"/receipts/{dealt['seq']}", 0).json
    assert set(receipt) == {"game", "seq", "hash", "at", "key_id", "signature"}  # nothing else of the event
    right_guess = {k: v for k, v in dealt.items() if k != "hash"}

    def hashed(salt) -> str:
        return hashlib.sha256(canonical({**right_guess, "salt": salt})).hexdigest()

    assert receipt["hash"] not in (hashed(None), hashed(""), hashed(mine["salt"]))
    assert receipt["hash"] == hashed(dealt["salt"])  # the secret salt is what keeps the guess untestable


def test_the_keys_are_listed_and_no_private_key_is_ever_shown(client, service, caplog):
    caplog.set_level(logging.DEBUG)
    g = Game(client, KOD, 2, {"seed": "receipts-5"})
    listed = client.get("/v1/keys").json["keys"]
    assert len(listed) == 1 and set(listed[0]) == {"key_id", "algorithm", "public_key", "since", "until"}
    key = listed[0]
    assert key["algorithm"] == "ed25519" and key["until"] is None
    assert len(base64.b64decode(key["public_key"])) == 32
    assert key["key_id"] == hashlib.sha256(base64.b64decode(key["public_key"])).hexdigest()[:16]
    current = service.receipts.ring.current()
    assert current.key_id == key["key_id"] and "private" not in repr(current)
    seed = current.private.private_bytes_raw()
    secrets = {base64.b64encode(seed).decode(), seed.hex()}
    seat = g.summary()["to_act"][0]
    seen = [g.post(seat, {"move": g.legal(seat)[0]}).get_data(as_text=True), g.export(),
            client.get("/v1/keys").get_data(as_text=True), g.get("/receipts/2").get_data(as_text=True),
            client.get("/openapi.json").get_data(as_text=True), caplog.text]
    assert not any(s in text for s in secrets for text in seen)


@pytest.mark.parametrize("edit", ["at", "payload"])
def test_the_audit_says_which_receipts_an_edited_log_contradicts(client, edit):
    """The referee (or anyone) rewrites event N after acknowledging it, hashes and
    chains the log again so that it verifies as a chain: the receipt of N and of
    every later event is contradicted, the receipts before N still held."""
    g = Game(client, KOD, 2, {"seed": "receipts-6"})
    got = [g.created["receipt"]]
    for _ in range(3):
        seat = g.summary()["to_act"][0]
        got.append(g.post(seat, {"move": g.legal(seat)[0]}).json["receipt"])
    text = g.export()
    body = "".join(json.dumps({"receipt": r}) + "\n" for r in got)
    r = client.post("/v1/audit", data=(body + text).encode(), content_type="application/jsonl")
    assert r.status_code == 200, r.json
    assert r.json["valid"] and [x["status"] for x in r.json["receipts"]] == ["held"] * 4
    assert r.json["events"] == len(text.splitlines())  # the audit of the log after the receipts, as ever
    edited = rewritten(text, got[2]["seq"], edit)
    r = client.post("/v1/audit", data=(body + edited).encode(), content_type="application/jsonl")
    assert r.status_code == 200, r.json
    assert [x["status"] for x in r.json["receipts"]] == ["held", "held", "contradicted", "contradicted"]
    assert "not what the referee acknowledged" in r.json["receipts"][2]["detail"]
    assert [x["seq"] for x in r.json["receipts"]] == [x["seq"] for x in got]
    # without re-chaining, the chain breaks at the edit: what comes after is contradicted too
    broken = text.replace(json.loads(text.splitlines()[got[2]["seq"] - 1])["at"], "2000-01-01T00:00:00.000000Z", 1)
    r = client.post("/v1/audit", data=(body + broken).encode(), content_type="application/jsonl")
    assert [x["status"] for x in r.json["receipts"]] == ["held", "held", "contradicted", "contradicted"]
    assert "chain breaks" in r.json["receipts"][2]["detail"] and not r.json["valid"]
    # an export alone is audited as before: no receipts in the report
    assert "receipts" not in client.post("/v1/audit", data=text.encode(), content_type="application/jsonl").json


def rewritten(text: str, seq: int, what: str) -> str:
    """The log with event ``seq`` changed and every hash from it on made again."""
    events = [json.loads(line) for line in text.splitlines()]
    ev = events[seq - 1]
    if what == "at":
        ev["at"] = ev["at"][:11] + "00:00:00.000000Z"  # backdated: "before the deadline"
    else:
        ev["payload"] = {**ev["payload"], "edited": True}
    for ev in events[seq - 1:]:
        ev["prev"] = events[ev["seq"] - 2]["hash"] if ev["seq"] > 1 else ev["prev"]
        ev["hash"] = hashlib.sha256(canonical({k: v for k, v in ev.items() if k != "hash"})).hexdigest()
    return "".join(json.dumps(ev, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n" for ev in events)


ALTERED = {"game": lambda r: r["game"] + "x", "seq": lambda r: r["seq"] + 1, "hash": lambda r: "0" * 64,
           "at": lambda r: "2000-01-01T00:00:00.000000Z", "key_id": lambda r: "0" * 16,
           "signature": lambda r: base64.b64encode(bytes(64)).decode()}


@pytest.mark.parametrize("field", list(ALTERED))
def test_the_audit_refuses_an_altered_receipt(client, field):
    g = Game(client, KOD, 2, {"seed": "receipts-7"})
    good = g.created["receipt"]
    forged = {**good, field: ALTERED[field](good)}
    body = (json.dumps({"receipt": good}) + "\n" + json.dumps({"receipt": forged}) + "\n" + g.export()).encode()
    r = client.post("/v1/audit", data=body, content_type="application/jsonl")
    assert r.status_code == 400 and r.mimetype == "application/problem+json"
    assert r.json["field"] == "receipts[1]." + ("key_id" if field == "key_id" else "signature"), r.json
    assert "receipts" not in r.json


def test_the_audit_checks_a_receipt_against_a_leagues_bundle(client):
    ann, bob = (register(client, name=n) for n in ("Ann", "Bob"))
    made = new_league(client, [ann, bob], by=ann)
    game = next(gm["game"] for rnd in made["rounds"] for gm in rnd["games"])
    resigned = client.post(f"/v1/games/{game}/moves", json={"move": {"type": "resign"}},
                           headers=auth(ann["token"])).json
    bundle = client.get(f"/v1/leagues/{made['id']}/export").get_data(as_text=True)
    body = "".join(json.dumps({"receipt": r}) + "\n" for r in (made["receipt"], resigned["receipt"])) + bundle
    r = client.post("/v1/audit", data=body.encode(), content_type="application/jsonl")
    assert r.status_code == 200 and r.json["valid"], r.json
    assert [x["status"] for x in r.json["receipts"]] == ["held", "held"]


def test_bad_receipt_lines_are_refused_naming_them_and_nothing_is_audited(client):
    g = Game(client, KOD, 2, {"seed": "receipts-8"})
    good = json.dumps({"receipt": g.created["receipt"]})
    cases = [('{"receipt": ' + "[" * 5000 + "]" * 5000 + "}", "receipts[1]"),  # deeper than any parser goes
             ('{"receipt": {"game": "\\ud800"}, "x": 1}', "receipts[1]"),
             (json.dumps({"receipt": {**g.created["receipt"], "game": "\ud800"}}), "receipts[1].game"),
             (json.dumps({"receipt": {**g.created["receipt"], "seq": True}}), "receipts[1].seq"),
             (json.dumps({"receipt": {k: v for k, v in g.created["receipt"].items() if k != "at"}}),
              "receipts[1].at"),
             ('{"receipt": "nothing"}', "receipts[1]"),
             ('{"receipt": {"seq": ' + "9" * 5000 + "}}", "receipts[1]")]
    for line, field in cases:
        r = client.post("/v1/audit", data=(good + "\n" + line + "\n" + g.export()).encode("utf-8", "surrogatepass"),
                        content_type="application/jsonl")
        assert r.status_code == 400 and r.json["field"] == field, (line[:40], r.get_data()[:300])
    many = (good + "\n") * 257 + g.export()
    r = client.post("/v1/audit", data=many.encode(), content_type="application/jsonl")
    assert r.status_code == 400 and r.json["field"] == "receipts"


def test_receipts_beside_a_log_no_parser_can_read_are_contradicted(client):
    g = Game(client, KOD, 2, {"seed": "receipts-9"})
    lines = g.export().splitlines()
    for bad in ("[" * 100000 + "]" * 100000, "not json", ""):  # event 2 unreadable, or gone
        log = "\n".join(lines[:1] + [bad] + lines[2:]) + "\n"
        body = json.dumps({"receipt": g.created["receipt"]}) + "\n" + json.dumps({"receipt": g.get("/receipts/2").json})
        r = client.post("/v1/audit", data=(body + "\n" + log).encode(), content_type="application/jsonl")
        assert r.status_code == 200 and not r.json["valid"], r.get_data()[:300]
        assert [x["status"] for x in r.json["receipts"]] == ["held", "contradicted"]
    # a bundle whose league log names no league: the receipt's game is not in it
    bundle = "".join(json.dumps(line) + "\n" for line in (
        {"event": {"seq": 1, "payload": {}}, "log": "league"},
        {"event": json.loads(lines[0]), "game": "elsewhere", "log": "game"}))
    r = client.post("/v1/audit", data=(body + "\n" + bundle).encode(), content_type="application/jsonl")
    assert r.status_code == 200 and [x["status"] for x in r.json["receipts"]] == ["contradicted"] * 2
