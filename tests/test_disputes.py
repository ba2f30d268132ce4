"""Disputes and rulings: a seat's dispute stops the clocks and every seat reads it;
the admin dismisses, voids, awards or extends a seat's clock; every refusal writes
nothing; the audit replays every ruling and names a forged one."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from freezegun import freeze_time

from referee.audit import audit
from referee.disputes import standing as standing_mod
from tests.helpers import Game
from tests.test_audit import reseal

CLOCK = {"move_seconds": 600}


def dispute(g: Game, seat, text="that was not legal", **more):
    return g.client.post(f"/v1/games/{g.id}/disputes", json={"text": text, **more}, headers=g.auth(seat))


def rule(g: Game, who, dispute_id, decision, text="heard both sides"):
    return g.client.post(f"/v1/games/{g.id}/rulings", json={"dispute": dispute_id, "decision": decision,
                                                             "text": text}, headers=g.auth(who))


def a_move(g: Game) -> tuple[int, dict]:
    seat = g.summary()["to_act"][0]
    return seat, next(m for m in g.legal(seat) if m["type"] not in ("resign", "offer-draw", "take-back"))


def valid(g: Game) -> dict:
    report = audit(g.export())
    assert report["valid"], report
    return report


def test_a_dispute_is_read_by_every_seat_and_stops_the_clocks_until_it_is_ruled(client):
    g = Game(client, "kings-keys", 3, {"seed": 1, "clock": CLOCK})
    assert g.summary()["deadlines"]
    r = dispute(g, 1, "Ann took two cards", seq=1)
    assert r.status_code == 201, r.json
    d = r.json["dispute"]
    assert d == {"id": r.json["events"][0]["seq"], "seq": 1, "text": "Ann took two cards", "by": 1, "status": "open"}
    assert "receipt" in r.json
    for who in (0, 2, None, "admin"):
        seen = [e for e in g.get("/events", who).json["events"] if e["type"] == "dispute-opened"]
        assert seen[0]["payload"] == {"dispute": d["id"], "by": 1, "seq": 1, "text": "Ann took two cards"}
        assert g.get("/view", who).json["disputes"][0]["status"] == "open"
    s = g.summary()
    assert s["deadlines"] == [] and s["clock"]["paused"] is True
    seat, move = a_move(g)
    assert g.post(seat, {"move": move}).status_code == 201  # play goes on; only the clocks stand still
    assert g.summary()["deadlines"] == []
    r = rule(g, "admin", d["id"], {"kind": "dismiss"}, "Ann took one card and one from the pile")
    assert r.status_code == 201, r.json
    assert r.json["ruling"]["decision"] == {"kind": "dismiss"} and "receipt" in r.json
    s = g.summary()
    assert s["deadlines"] and s["clock"]["paused"] is False
    assert g.get("/view", 0).json["disputes"][0]["status"] == "ruled"
    assert "the organiser rules on dispute" in g.get("/view", 0).json["text"]
    valid(g)


def test_an_extension_gives_the_seat_more_time_from_the_ruling(client):
    g = Game(client, "king-of-danger", 2, {"seed": 2, "clock": CLOCK})
    seat = g.summary()["to_act"][0]
    d = dispute(g, 1 - seat).json["dispute"]
    r = rule(g, "admin", d["id"], {"kind": "extend", "seat": seat, "seconds": 3600})
    assert r.status_code == 201, r.json
    at = datetime.strptime(r.json["events"][0]["at"], "%Y-%m-%dT%H:%M:%S.%fZ")
    deadline = next(x["deadline"] for x in g.summary()["deadlines"] if x["seat"] == seat)
    assert datetime.strptime(deadline, "%Y-%m-%dT%H:%M:%S.%fZ") == at + timedelta(seconds=600 + 3600)
    valid(g)


def test_a_void_ends_the_game_without_a_result(client):
    g = Game(client, "king-of-the-castle", 3, {"seed": 3})
    d = dispute(g, 2, "the deck was not shuffled").json["dispute"]
    r = rule(g, "admin", d["id"], {"kind": "void"}, "a misdeal: the game is void")
    assert r.status_code == 201, r.json
    s = g.summary()
    assert s["status"] == "aborted" and s["result"]["winners"] == []
    report = valid(g)
    assert report["seed"] == "verified" and report["status"] == "aborted"


def test_an_award_ends_the_game_with_that_result(client):
    g = Game(client, "castle-danger", 2, {"seed": 4})
    d = dispute(g, 1, "blue's phone told them every move").json["dispute"]
    r = rule(g, "admin", d["id"], {"kind": "award", "winners": [1]}, "blue was helped: red wins")
    assert r.status_code == 201, r.json
    s = g.summary()
    assert s["status"] == "finished" and s["result"]["winners"] == [1]
    assert s["result"]["reason"] == "awarded by the organiser's ruling"
    assert valid(g)["result"]["winners"] == [1]


@pytest.mark.parametrize("who,body,status,code,field", [
    (0, {"dispute": "D", "decision": {"kind": "dismiss"}, "text": "no"}, 403, "forbidden", None),
    (None, {"dispute": "D", "decision": {"kind": "dismiss"}, "text": "no"}, 403, "forbidden", None),
    ("admin", {"dispute": 99, "decision": {"kind": "dismiss"}, "text": "no"}, 404, "no-such-dispute", "dispute"),
    ("admin", {"dispute": "D", "decision": {"kind": "pardon"}, "text": "no"}, 400, "malformed", "decision.kind"),
    ("admin", {"dispute": "D", "decision": {"kind": "dismiss"}, "text": ""}, 400, "malformed", "text"),
    ("admin", {"dispute": "D", "decision": {"kind": "take-back", "to": 0}}, 400, "malformed", "text"),
    ("admin", {"dispute": "D", "decision": {"kind": "take-back", "to": 0}, "text": "x"}, 400, "malformed",
     "decision.to"),
    ("admin", {"dispute": "D", "decision": {"kind": "take-back", "to": "V"}, "text": "x"}, 400, "malformed",
     "decision.to"),
    ("admin", {"dispute": "D", "decision": {"kind": "award", "winners": [5]}, "text": "x"}, 400, "malformed",
     "decision.winners"),
    ("admin", {"dispute": "D", "decision": {"kind": "extend", "seat": 0, "seconds": 60}, "text": "x"}, 400,
     "malformed", "decision.kind"),  # no clock
    ("admin", {"dispute": "D", "decision": {"kind": "void", "why": 1}, "text": "x"}, 400, "malformed",
     "decision.why"),
])
def test_a_bad_ruling_is_refused_naming_the_field_and_writes_nothing(client, who, body, status, code, field):
    g = Game(client, "king-of-danger", 2, {"seed": 5})
    d = dispute(g, 0).json["dispute"]
    version = g.summary()["version"]
    body = json.loads(json.dumps(body).replace('"D"', str(d["id"])).replace('"V"', str(version)))
    r = client.post(f"/v1/games/{g.id}/rulings", json=body, headers=g.auth(who))
    assert r.status_code == status, r.json
    assert r.content_type == "application/problem+json" and r.json["code"] == code
    if field:
        assert r.json["field"] == field
    assert g.summary()["version"] == version
    assert g.get("/view", 0).json["disputes"][0]["status"] == "open"


def test_a_ruled_dispute_is_not_ruled_again(client):
    g = Game(client, "king-of-danger", 2, {"seed": 6})
    d = dispute(g, 0).json["dispute"]
    assert rule(g, "admin", d["id"], {"kind": "dismiss"}).status_code == 201
    version = g.summary()["version"]
    r = rule(g, "admin", d["id"], {"kind": "void"})
    assert r.status_code == 409 and r.json["code"] == "already-ruled"
    assert g.summary()["version"] == version


@pytest.mark.parametrize("who,body,status,field", [
    ("admin", {"text": "x"}, 403, None),
    (None, {"text": "x"}, 401, None),
    (0, {"text": ""}, 400, "text"),
    (0, {"text": "x" * 2001}, 400, "text"),
    (0, {"text": "x", "seq": 999}, 400, "seq"),
    (0, {"text": "x", "seq": True}, 400, "seq"),
    (0, {"text": "x", "about": 1}, 400, "about"),
])
def test_a_bad_dispute_is_refused_and_writes_nothing(client, who, body, status, field):
    g = Game(client, "king-of-danger", 2, {"seed": 7})
    version = g.summary()["version"]
    r = client.post(f"/v1/games/{g.id}/disputes", json=body, headers=g.auth(who))
    assert r.status_code == status, r.json
    if field:
        assert r.json["field"] == field
    assert g.summary()["version"] == version


def test_a_game_may_be_disputed_for_seven_days_after_its_end_and_then_only_dismissed(client):
    start = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
    with freeze_time(start) as frozen:
        g = Game(client, "king-of-danger", 2, {"seed": 8})
        assert g.post(0, {"move": {"type": "resign"}}).status_code == 201
        frozen.tick(timedelta(days=6))
        r = dispute(g, 0, "I pressed resign by mistake")
        assert r.status_code == 201, r.json
        d = r.json["dispute"]
        r = rule(g, "admin", d["id"], {"kind": "award", "winners": [0]})
        assert r.status_code == 409 and r.json["code"] == "game-over"
        assert rule(g, "admin", d["id"], {"kind": "dismiss"}, "a resignation stands").status_code == 201
        frozen.tick(timedelta(days=1, seconds=1))
        r = dispute(g, 1)
        assert r.status_code == 409 and r.json["code"] == "dispute-window-closed"
    assert g.summary()["result"]["winners"] == [1]
    valid(g)


def _forged(g: Game, change) -> dict:
    lines = [json.loads(line) for line in g.export().splitlines()]
    change(lines)
    return audit(reseal(lines))


def test_the_audit_names_a_forged_ruling(client):
    g = Game(client, "king-of-danger", 2, {"seed": 9})
    d = dispute(g, 1).json["dispute"]
    seq = rule(g, "admin", d["id"], {"kind": "award", "winners": [1]}).json["ruling"]["seq"]
    valid(g)

    def as_a_seat(lines):
        lines[seq - 1]["actor"] = 1

    def by_a_seat(lines):
        lines[seq - 1]["payload"]["by"] = "seat 1"

    def no_such_dispute(lines):
        lines[seq - 1]["payload"]["dispute"] = 1

    for change in (as_a_seat, by_a_seat, no_such_dispute):
        report = _forged(g, change)
        assert not report["valid"]
        assert report["first_error"]["seq"] == seq and report["first_error"]["code"] == "forged-ruling", report


def test_the_organiser_and_the_seats_hear_of_a_dispute_and_its_ruling(client, service, smtp):
    from referee.mail import sending

    g = Game(client, "king-of-danger", [{"name": "Ann", "email": "ann@example.org"},
                                         {"name": "Bob", "email": "bob@example.org"}], {"seed": 10},
             organiser={"email": "org@example.org"})
    sending.deliver_due(service)
    before = {who: len(smtp.inbox.to(who)) for who in ("ann@example.org", "bob@example.org", "org@example.org")}
    d = dispute(g, 1, "Ann played out of turn").json["dispute"]
    sending.deliver_due(service)
    told = smtp.inbox.to("org@example.org")[before["org@example.org"]:]
    assert len(told) == 1 and "a dispute to rule on" in told[0]["Subject"]
    text = told[0].get_body(("plain",)).get_content()
    assert "Bob disputes the game as a whole" in text and "Ann played out of turn" in text
    assert "/rulings" in text
    ann = smtp.inbox.to("ann@example.org")[before["ann@example.org"]:]
    assert ann and "Ann played out of turn" in ann[-1].get_body(("plain",)).get_content()
    rule(g, "admin", d["id"], {"kind": "dismiss"}, "Ann was to lead")
    sending.deliver_due(service)
    bob = smtp.inbox.to("bob@example.org")
    assert "Ann was to lead" in bob[-1].get_body(("plain",)).get_content()


def test_the_game_page_shows_disputes_votes_and_rulings(client):
    g = Game(client, "king-of-danger", ["Ann", "Bob"], {"seed": 11})
    vote_id = client.post(f"/v1/games/{g.id}/votes", json={"proposal": "pause"}, headers=g.auth(0)).json["vote"]["id"]
    d = dispute(g, 1, "Ann <b>peeked</b> at the deck").json["dispute"]
    page = client.get(f"/games/{g.id}").get_data(as_text=True)
    assert f"Vote {vote_id} under way: Ann proposes pause" in page
    assert "Ann &lt;b&gt;peeked&lt;/b&gt; at the deck" in page and "<b>peeked" not in page
    assert "open: the clocks stand still" in page
    assert "Ann proposes to pause the clocks" in page  # the log in words
    rule(g, "admin", d["id"], {"kind": "award", "winners": [1]}, "peeking loses the game")
    page = client.get(f"/games/{g.id}").get_data(as_text=True)
    assert "ruled at event" in page and "awarded to Bob" in page and "peeking loses the game" in page
    assert "the organiser rules on dispute" in page


def test_the_organiser_lists_the_open_disputes_of_their_games(client):
    mine = Game(client, "king-of-danger", ["Ann", "Bob"], {"seed": 12})
    other = Game(client, "king-of-danger", ["Cy", "Dee"], {"seed": 13})
    d = dispute(mine, 0, "Bob looked at my cards").json["dispute"]
    dispute(other, 1, "not this organiser's")
    r = client.get("/v1/disputes", headers=mine.auth("admin"))
    assert r.status_code == 200, r.json
    assert [(x["game"], x["dispute"]["id"], x["dispute"]["text"]) for x in r.json["disputes"]] == \
        [(mine.id, d["id"], "Bob looked at my cards")]
    assert r.json["disputes"][0]["players"] == ["Ann", "Bob"]
    rule(mine, "admin", d["id"], {"kind": "dismiss"})
    assert client.get("/v1/disputes", headers=mine.auth("admin")).json["disputes"] == []
    r = client.get("/v1/disputes", headers=mine.auth(None))
    assert r.status_code == 401 and r.content_type == "application/problem+json"
    # a token that rules no game with a dispute open (a seat's here) finds none
    assert client.get("/v1/disputes", headers=mine.auth(0)).json == {"disputes": []}
    page = client.get("/organiser")
    assert page.status_code == 200 and b"organiser.js" in page.data


def test_the_organiser_list_reads_only_the_games_with_a_dispute_open(client, service, monkeypatch):
    quiet = [Game(client, "king-of-danger", 2, {"seed": 20 + i}) for i in range(6)]
    disputed = Game(client, "king-of-danger", 2, {"seed": 30})
    d = dispute(disputed, 1).json["dispute"]
    client.get("/v1/disputes", headers=disputed.auth("admin"))  # the store's first look (once: see below)
    read = []
    real = service.store.record
    monkeypatch.setattr(service.store, "record", lambda gid, *a, **k: read.append(gid) or real(gid, *a, **k))
    r = client.get("/v1/disputes", headers=disputed.auth("admin"))
    assert [x["dispute"]["id"] for x in r.json["disputes"]] == [d["id"]]
    assert not {g.id for g in quiet} & set(read)  # the games with no dispute were never read
    read.clear()
    rule(disputed, "admin", d["id"], {"kind": "dismiss"})
    read.clear()
    assert client.get("/v1/disputes", headers=disputed.auth("admin")).json["disputes"] == []
    assert read == []  # the ruling unmarked it: nothing left to read


def test_a_mark_left_by_a_refused_or_killed_dispute_heals_after_a_while(client, service):
    g = Game(client, "king-of-danger", 2, {"seed": 31})
    assert dispute(g, 0, "").status_code == 400  # refused after its mark was written
    standing = service.disputes.standing
    assert [gid for gid, _ in standing.games()] == [g.id]
    assert client.get("/v1/disputes", headers=g.auth("admin")).json["disputes"] == []
    assert [gid for gid, _ in standing.games()] == [g.id]  # young: it may be a dispute being written
    with freeze_time(datetime.now(UTC) + timedelta(seconds=standing_mod.SETTLED + 5)):
        assert client.get("/v1/disputes", headers=g.auth("admin")).json["disputes"] == []
    assert standing.games() == []


def test_a_store_from_before_the_marks_lists_its_open_disputes(client, service):
    g = Game(client, "king-of-danger", 2, {"seed": 32})
    d = dispute(g, 1).json["dispute"]
    standing = service.disputes.standing
    standing.unmark(g.id)  # as a store written before the marks were kept
    if hasattr(service.store, "path"):
        with service.store.immediate() as conn:
            conn.execute("DELETE FROM disputes_backfilled")
    else:
        service.store.r.delete(standing_mod.BACKFILLED)
    assert [x["dispute"]["id"] for x in client.get("/v1/disputes", headers=g.auth("admin")).json["disputes"]] \
        == [d["id"]]
    assert standing.backfilled() and [gid for gid, _ in standing.games()] == [g.id]


def test_no_seat_times_out_while_a_dispute_is_open(client, service):
    from referee import timeouts
    from tests.test_timeouts import T0, at

    with freeze_time(T0):
        g = Game(client, "king-of-danger", 2, {"seed": 14, "clock": {"move_seconds": 3600, "on_timeout": "forfeit"}})
        seat = g.summary()["to_act"][0]
        d = dispute(g, 1 - seat).json["dispute"]
    with freeze_time(at(7200)):
        timeouts.tick(service, g.id)
    assert g.summary()["status"] == "active"  # two hours past the deadline: the clocks stood still
    with freeze_time(at(7200)):
        assert rule(g, "admin", d["id"], {"kind": "dismiss"}).status_code == 201
    with freeze_time(at(7200 + 3599)):
        timeouts.tick(service, g.id)
    assert g.summary()["status"] == "active"  # a full hour from the ruling
    with freeze_time(at(7200 + 3601)):
        timeouts.tick(service, g.id)
    s = g.summary()
    assert s["status"] == "finished" and s["result"]["winners"] == [1 - seat]
    valid(g)


def test_disputes_and_votes_are_rate_limited_per_token(client, monkeypatch):
    monkeypatch.setenv("REFEREE_DISPUTE_RATE", "3/hour")
    g = Game(client, "king-of-danger", 2, {"seed": 15})
    for _ in range(3):
        assert dispute(g, 0).status_code == 201
    version = g.summary()["version"]
    r = dispute(g, 0)
    assert r.status_code == 429 and r.json["code"] == "too-many-requests" and "Retry-After" in r.headers
    assert g.summary()["version"] == version
    assert dispute(g, 1).status_code == 201  # another seat's token has its own count


def test_an_extension_is_for_a_seat_on_the_clock(client):
    g = Game(client, "king-of-danger", 2, {"seed": 16, "clock": CLOCK})
    waiting = 1 - g.summary()["to_act"][0]
    d = dispute(g, waiting).json["dispute"]
    version = g.summary()["version"]
    r = rule(g, "admin", d["id"], {"kind": "extend", "seat": waiting, "seconds": 60})
    assert r.status_code == 400 and r.json["field"] == "decision.seat", r.json
    assert g.summary()["version"] == version


def test_a_vote_an_answer_and_a_dispute_sent_twice_with_one_idempotency_key_are_written_once(client):
    g = Game(client, "king-of-danger", 2, {"seed": 16})

    def twice(path, body, seat, key):
        headers = {**g.auth(seat), "Idempotency-Key": key}
        first = client.post(f"/v1/games/{g.id}/{path}", json=body, headers=headers)
        version = g.summary()["version"]
        again = client.post(f"/v1/games/{g.id}/{path}", json=body, headers=headers)
        assert first.status_code == again.status_code == 201, (first.json, again.json)
        assert again.json["events"] == first.json["events"] and g.summary()["version"] == version
        other = client.post(f"/v1/games/{g.id}/{path}", json={**body, "x": 1}, headers=headers)
        assert other.status_code == 422 and other.json["code"] == "idempotency-key-reused"  # another request
        assert g.summary()["version"] == version
        return first.json

    vote = twice("votes", {"proposal": "pause"}, 0, "v1")["vote"]["id"]
    twice(f"votes/{vote}", {"yes": True}, 1, "a1")
    d = twice("disputes", {"text": "that card was seen"}, 1, "d1")["dispute"]
    view = client.get(f"/v1/games/{g.id}/view", headers=g.auth(0)).json
    assert [x["id"] for x in view["disputes"]] == [d["id"]]
