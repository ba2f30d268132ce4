"""Leagues are neutral by construction: nobody is put into a league but by their own
act. A league is created with a player's token (its organiser), its players invited;
each joins or declines, and the organiser starts it with those who joined. Leagues
created before (version 1, every player in at once) keep working and auditing."""

from __future__ import annotations

import json
import threading

from referee.caller import token_hash
from referee.events import utcnow
from referee.leagues import League, audit_league, running
from referee.leagues.advancing import mark_before
from referee.leagues.keeping import leagues_of
from referee.mail import outbox
from referee.players import accounts
from tests.leaguetools import new_league
from tests.playertools import auth

KOD = {"target": 1}


def person(client, name: str, **more) -> dict:
    r = client.post("/v1/players", json={"name": name} | more)
    assert r.status_code == 201, r.json
    return r.json


def body(ids, **terms) -> dict:
    return {"name": "Spring", "game": "king-of-danger", "options": KOD, "format": "round-robin",
            "players": ids} | terms


def league_of(client, lid: str) -> dict:
    return client.get(f"/v1/leagues/{lid}").json


def test_creating_a_league_needs_a_player_token(client):
    ann, bob = person(client, "Ann"), person(client, "Bob")
    r = client.post("/v1/leagues", json=body([ann["id"], bob["id"]]))
    assert (r.status_code, r.json["code"]) == (401, "unauthenticated")
    r = client.post("/v1/leagues", json=body([ann["id"], bob["id"]]), headers=auth("not-a-token"))
    assert r.status_code == 401
    assert client.get("/v1/leagues").json["leagues"] == []
    assert client.get(f"/v1/players/{ann['id']}").json["leagues"] == []


def test_listed_players_are_invited_and_seated_by_nobody_until_they_join(client):
    org, ann, bob, cy = (person(client, n) for n in ("Org", "Ann", "Bob", "Cy"))
    r = client.post("/v1/leagues", json=body([ann["id"], bob["id"], cy["id"]]), headers=auth(org["token"]))
    assert r.status_code == 201, r.json
    made = r.json
    assert made["status"] == "waiting" and made["league_version"] == 2 and made["organiser"] == org["id"]
    assert made["players"] == [] and made["rounds"] == [] and made["standings"] == []
    assert [p["player"] for p in made["invited"]] == [ann["id"], bob["id"], cy["id"]]
    assert client.get("/v1/games").json["games"] == []  # nothing paired, nothing dealt
    first = client.get(f"/v1/leagues/{made['id']}/export").text.splitlines()[0]
    assert json.loads(first)["event"]["payload"]["league_version"] == 2
    # ann joins, bob declines, cy never answers; a stranger may not join
    assert client.post(f"/v1/leagues/{made['id']}/join", json={}, headers=auth(ann["token"])).status_code == 200
    r = client.post(f"/v1/leagues/{made['id']}/decline", headers=auth(bob["token"]))
    assert r.status_code == 200 and [p["player"] for p in r.json["invited"]] == [cy["id"]]
    dee = person(client, "Dee")
    before = league_of(client, made["id"])["version"]
    r = client.post(f"/v1/leagues/{made['id']}/join", json={}, headers=auth(dee["token"]))
    assert (r.status_code, r.json["code"]) == (403, "not-invited")
    r = client.post(f"/v1/leagues/{made['id']}/join", json={}, headers=auth(bob["token"]))  # declined
    assert (r.status_code, r.json["code"]) == (403, "not-invited")
    r = client.post(f"/v1/leagues/{made['id']}/decline", headers=auth(dee["token"]))
    assert (r.status_code, r.json["code"]) == (403, "not-invited")
    assert league_of(client, made["id"])["version"] == before  # refusals wrote nothing
    # one joined: too few to start
    r = client.post(f"/v1/leagues/{made['id']}/start", headers=auth(made["admin_token"]))
    assert (r.status_code, r.json["code"]) == (409, "league-conflict")
    # the organiser joins too, then a non-admin may not start it, the admin may
    assert client.post(f"/v1/leagues/{made['id']}/join", json={}, headers=auth(org["token"])).status_code == 403
    assert client.get(f"/v1/players/{ann['id']}").json["leagues"][0]["id"] == made["id"]
    assert client.get(f"/v1/players/{bob['id']}").json["leagues"] == []


def test_a_league_never_pairs_a_player_who_did_not_join(client):
    org, ann, bob, cy, dee = (person(client, n) for n in ("Org", "Ann", "Bob", "Cy", "Dee"))
    r = client.post("/v1/leagues", json=body([org["id"], ann["id"], bob["id"], cy["id"], dee["id"]],
                                             format="swiss", rounds=2), headers=auth(org["token"]))
    made = r.json
    assert [p["player"] for p in made["players"]] == [org["id"]]  # the organiser listing themself plays
    for p in (ann, bob):
        assert client.post(f"/v1/leagues/{made['id']}/join", json={}, headers=auth(p["token"])).status_code == 200
    assert client.post(f"/v1/leagues/{made['id']}/decline", headers=auth(cy["token"])).status_code == 200
    r = client.post(f"/v1/leagues/{made['id']}/start", headers=auth(ann["token"]))  # no admin
    assert (r.status_code, r.json["code"]) == (403, "forbidden")
    r = client.post(f"/v1/leagues/{made['id']}/start")
    assert r.status_code == 401
    assert league_of(client, made["id"])["status"] == "waiting"
    r = client.post(f"/v1/leagues/{made['id']}/start", headers=auth(made["admin_token"]))
    assert r.status_code == 200, r.json
    got = r.json
    assert got["status"] == "running" and got["invited"] == [] and got["receipt"]["seq"] == got["version"]
    joined = {org["id"], ann["id"], bob["id"]}
    seated = {p for g in got["rounds"][0]["games"] for p in g["seats"]} | set(got["rounds"][0]["byes"])
    assert seated == joined
    assert {row["player"] for row in got["standings"]} == joined
    assert {p["player"] for p in got["players"]} == joined
    # too late to join or decline, or to start again
    r = client.post(f"/v1/leagues/{made['id']}/join", json={}, headers=auth(dee["token"]))
    assert (r.status_code, r.json["code"]) == (409, "league-conflict")
    r = client.post(f"/v1/leagues/{made['id']}/start", headers=auth(made["admin_token"]))
    assert (r.status_code, r.json["code"]) == (409, "league-conflict")
    for p in (cy, dee):
        assert client.get(f"/v1/players/{p['id']}").json["current_games"] == []
    report = client.post("/v1/audit", data=client.get(f"/v1/leagues/{made['id']}/export").data,
                         content_type="application/jsonl").json
    assert report["valid"], report


def test_open_entry_lets_any_player_join(client):
    org, ann, bob = (person(client, n) for n in ("Org", "Ann", "Bob"))
    made = client.post("/v1/leagues", json=body([], entry="open"), headers=auth(org["token"])).json
    assert made["entry"] == "open" and made["invited"] == []
    for p in (ann, bob):
        r = client.post(f"/v1/leagues/{made['id']}/join", json={}, headers=auth(p["token"]))
        assert r.status_code == 200, r.json
    r = client.post(f"/v1/leagues/{made['id']}/join", json={}, headers=auth(ann["token"]))
    assert (r.status_code, r.json["code"]) == (409, "league-conflict")  # in already
    r = client.post(f"/v1/leagues/{made['id']}/join", json={"seat": 1}, headers=auth(bob["token"]))
    assert r.status_code == 400
    got = client.post(f"/v1/leagues/{made['id']}/start", headers=auth(made["admin_token"])).json
    assert {p for g in got["rounds"][0]["games"] for p in g["seats"]} == {ann["id"], bob["id"]}


def test_a_bot_player_invited_is_in_at_once(client):
    org, ann = person(client, "Org"), person(client, "Ann")
    bot = person(client, "Robo", bot="random")
    made = client.post("/v1/leagues", json=body([ann["id"], bot["id"]]), headers=auth(org["token"])).json
    assert [p["player"] for p in made["players"]] == [bot["id"]]
    assert [p["player"] for p in made["invited"]] == [ann["id"]]


def test_league_invitations_count_against_the_pending_cap(client, monkeypatch):
    """A player has at most REFEREE_PENDING_INVITATIONS invitations waiting: one more
    league inviting them is 429 and creates nothing."""
    monkeypatch.setenv("REFEREE_PENDING_INVITATIONS", "2")
    org, ann, bob = (person(client, n) for n in ("Org", "Ann", "Bob"))
    for _ in range(2):
        assert client.post("/v1/leagues", json=body([ann["id"], bob["id"]]),
                           headers=auth(org["token"])).status_code == 201
    r = client.post("/v1/leagues", json=body([bob["id"], ann["id"]]), headers=auth(org["token"]))
    assert (r.status_code, r.json["code"]) == (429, "too-many-requests") and r.json["field"] == "players[0]"
    assert len(client.get("/v1/leagues").json["leagues"]) == 2
    me = client.get("/v1/players/me", headers=auth(ann["token"])).json
    assert len([i for i in me["league_invitations"]]) == 2


def test_creating_leagues_is_rate_limited_per_token(client, monkeypatch):
    monkeypatch.setenv("REFEREE_CREATE_RATE", "2/minute")
    org = person(client, "Org")
    for _ in range(2):
        assert client.post("/v1/leagues", json=body([], entry="open"), headers=auth(org["token"])).status_code == 201
    r = client.post("/v1/leagues", json=body([], entry="open"), headers=auth(org["token"]))
    assert r.status_code == 429 and int(r.headers["Retry-After"]) >= 1


def test_a_leagues_invitations_are_rate_limited_and_over_the_limit_nothing_is_created(client, monkeypatch):
    monkeypatch.setenv("REFEREE_INVITE_RATE", "3/hour")
    org = person(client, "Org")
    ids = [person(client, f"P{i}")["id"] for i in range(4)]
    r = client.post("/v1/leagues", json=body(ids), headers=auth(org["token"]))
    assert r.status_code == 429 and int(r.headers["Retry-After"]) >= 1
    assert client.get("/v1/leagues").json["leagues"] == []
    r = client.post("/v1/leagues", json=body(ids[:3] + [org["id"]]), headers=auth(org["token"]))
    assert r.status_code == 201, r.json  # the organiser's own place is no invitation


# ---- withdrawals ----------------------------------------------------------------------------

def test_parallel_withdrawals_answer_2xx_or_a_refusal_that_wrote_nothing(client):
    """Every player of a league withdraws at once, each twice, on threads: each
    withdrawal is written once and answered 200, the second of each is 409 and writes
    nothing; every game ends with a winner (both stores). A league left with one
    player finishes, so the last one may find it over: both of theirs refused, and
    nothing of theirs written."""
    humans = [person(client, f"P{i}") for i in range(6)]
    league = new_league(client, humans, format="swiss", rounds=3)
    lid = league["id"]
    answers, barrier = [], threading.Barrier(len(humans) * 2)
    app = client.application

    def leave(p):
        mine = app.test_client()
        barrier.wait()
        r = mine.post(f"/v1/leagues/{lid}/players/{p['id']}/withdraw", headers=auth(p["token"]))
        answers.append((p["id"], r.status_code, r.json.get("code"), r.json.get("detail")))

    threads = [threading.Thread(target=leave, args=(p,)) for p in humans for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    by = {}
    for pid, status, code, _ in answers:
        by.setdefault(pid, []).append((status, code))
    assert len(by) == len(humans)
    accepted = {pid for pid, v in by.items() if sorted(v) == [(200, None), (409, "league-conflict")]}
    too_late = {pid for pid, v in by.items() if v == [(409, "league-conflict")] * 2}
    assert accepted | too_late == set(by) and len(too_late) <= 1, by
    events = [json.loads(line)["event"] for line in client.get(f"/v1/leagues/{lid}/export").text.splitlines()
              if json.loads(line)["log"] == "league"]
    withdrew = [e["payload"]["player"] for e in events if e["type"] == "player-withdrew"]
    assert sorted(withdrew) == sorted(accepted)  # each accepted once, the refused not at all
    got = league_of(client, lid)
    assert got["status"] == "finished"
    if too_late:  # refused because the others' withdrawals had finished the league
        assert len(accepted) == len(humans) - 1
        assert all("over" in d or "finished" in d for pid, _, _, d in answers if pid in too_late), answers
    for g in got["rounds"][0]["games"]:
        game = client.get(f"/v1/games/{g['game']}").json
        assert game["status"] == "finished" and game["result"]["winners"], game


# ---- leagues created before -------------------------------------------------------------------

def test_a_league_created_before_keeps_its_players_in_and_audits(client):
    """A league of version 1 (written as the referee wrote them before: every player in,
    round 1 paired at once) plays on and audits; a withdrawal there still aborts the
    game and records it lost by forfeit, as such leagues always did."""
    service = client.application.extensions["referee"]
    bots = [accounts.register(service, {"name": f"B{i}", "bot": "random"}) for i in range(2)]
    humans = [person(client, n) for n in ("Ann", "Bob")]
    entries = [{"player": p["id"], "name": p["name"]} for p in humans + bots]
    league, first = League.create("oldxleague", "f" * 64, at=utcnow(), name="Old", game="king-of-danger",
                                  options=KOD, format="round-robin", players=entries)
    assert "league_version" not in first.payload and league.state.version == 1
    admin = "old-admin-token"
    meta = {"id": "oldxleague", "name": "Old", "game": "king-of-danger", "format": "round-robin",
            "created_at": first.at, "admin_hash": token_hash(admin), "seed": "f" * 64,
            "players": [e["player"] for e in entries]}
    leagues_of(service).owe("oldxleague", mark_before(0))
    leagues_of(service).create(meta, first)
    running.advance(service, "oldxleague")
    got = league_of(client, "oldxleague")
    assert got["league_version"] == 1 and got["status"] == "running" and len(got["rounds"]) == 1
    ann = humans[0]
    mine = next(g for g in got["rounds"][0]["games"] if ann["id"] in g["seats"])
    r = client.post("/v1/leagues/oldxleague/players/" + ann["id"] + "/withdraw", headers=auth(ann["token"]))
    assert r.status_code == 200, r.json
    assert client.get(f"/v1/games/{mine['game']}").json["status"] == "aborted"  # as it always did
    r = client.post("/v1/leagues/oldxleague/decline", headers=auth(humans[1]["token"]))
    assert r.status_code == 409
    assert audit_league(running.export(service, "oldxleague"))["valid"]
    report = client.post("/v1/audit", data=client.get("/v1/leagues/oldxleague/export").data,
                         content_type="application/jsonl").json
    assert report["valid"] and report["games"] >= 1, report


def test_the_opponent_hears_who_withdrew_and_that_they_won_and_the_page_says_so(client):
    ann = person(client, "Ann", webhook="https://hooks.example/ann")
    bob = person(client, "Bob")
    league = new_league(client, [ann, bob], name="Spring")
    game = league["rounds"][0]["games"][0]
    r = client.post(f"/v1/leagues/{league['id']}/players/{bob['id']}/withdraw", headers=auth(bob["token"]))
    assert r.status_code == 200, r.json
    service = client.application.extensions["referee"]
    seat = game["seats"].index(ann["id"])
    notes = [n["body"].get("note") for n in outbox.outbox_of(service).of_game(game["game"]) if n["seat"] == seat]
    assert ("Bob withdrew from the league Spring: the referee resigned their seat, and Ann won the game."
            in notes), notes
    page = client.get(f"/leagues/{league['id']}").get_data(as_text=True)
    assert "Bob withdrew; won: Ann" in page and "no winner" not in page


def test_a_joins_entropy_is_unseen_until_the_start_records_it(client):
    org, ann, bob = (person(client, n) for n in ("Org", "Ann", "Bob"))
    made = client.post("/v1/leagues", json=body([ann["id"], bob["id"]]), headers=auth(org["token"])).json
    assert len(made["seed_commitment"]) == 64  # committed before anyone contributes
    r = client.post(f"/v1/leagues/{made['id']}/join", json={"entropy": "a\u0007b"}, headers=auth(ann["token"]))
    assert r.status_code == 400 and r.json["field"] == "entropy"
    assert league_of(client, made["id"])["players"] == []  # refused: nothing written
    secret = "my own dice: 4 6 1"
    assert client.post(f"/v1/leagues/{made['id']}/join", json={"entropy": secret},
                       headers=auth(ann["token"])).status_code == 200
    assert client.post(f"/v1/leagues/{made['id']}/join", json={}, headers=auth(bob["token"])).status_code == 200
    for text in (client.get(f"/v1/leagues/{made['id']}").text, client.get(f"/v1/leagues/{made['id']}/export").text,
                 client.get(f"/leagues/{made['id']}").text):
        assert secret not in text
    client.post(f"/v1/leagues/{made['id']}/start", headers=auth(made["admin_token"]))
    events = [json.loads(line)["event"] for line in client.get(f"/v1/leagues/{made['id']}/export").text.splitlines()]
    started = next(e for e in events if e["type"] == "league-started")
    assert started["payload"]["contributions"] == [{"player": ann["id"], "entropy": secret},
                                                   {"player": bob["id"], "entropy": None}]
