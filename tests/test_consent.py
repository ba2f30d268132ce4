"""A player is seated only by their own act, on both stores: the rating attack (a
victim seated by ``{"player": ID}`` under a short forfeit clock) refused with nothing
created, rated or mailed; an invited player's seat kept until they join (then the
game deals and rates) or decline (then it is cancelled, nothing dealt or rated); a
bot player invited is seated at once; a timeout's forfeit is a rated loss; and a
game older than the rule keeps the rating it ended with."""

from __future__ import annotations

import json
import time

from freezegun import freeze_time

from referee import timeouts
from referee.audit import audit
from referee.events import GENESIS, REFEREE, Draft, chain
from referee.players import ratings, results
from referee.players.store import players_of
from referee.store import GameRecord
from referee.table import Table
from tests.playertools import auth, register

GAME = "king-of-danger"
FORFEIT_CLOCK = {"move_seconds": 5, "on_timeout": "forfeit"}


def create(client, players, token=None, **more):
    return client.post("/v1/games", json={"game": GAME, "players": players, **more},
                       headers=auth(token) if token else {})


def confirmed(service, client, name: str, address: str) -> dict:
    """A player whose address is confirmed (as its code coming back would)."""
    player = register(client, name=name)
    players_of(service).update(player["id"], {"email": address, "email_confirmed": True}, None)
    return player


def test_the_rating_attack_is_refused_and_nothing_is_created_rated_or_mailed(client, service, mail):
    victim = confirmed(service, client, "Vic", "vic@players.example")
    mallory = register(client, name="Mallory")
    games, lobby = len(service.games()), client.get("/v1/games?status=open").json["games"]
    attempts = [
        ([{"player": mallory["id"]}, {"player": victim["id"]}], mallory["token"]),  # the attacker's own token
        ([{"player": victim["id"]}, {"player": mallory["id"]}], mallory["token"]),
        ([{"player": victim["id"]}, "Mallory's sock"], None),  # no token at all
        ([{"player": victim["id"]}, {"open": True}], mallory["token"]),  # an open game too
        ([{"player": victim["id"]}, {"invite_player": mallory["id"]}], "no-such.token"),
    ]
    for _ in range(3):
        for players, token in attempts:
            r = create(client, players, token, options={"clock": FORFEIT_CLOCK})
            assert r.status_code == 403 and r.json["code"] == "forbidden", r.json
            assert r.json["field"].endswith(".player") and r.headers["Content-Type"].startswith(
                "application/problem+json")
    assert len(service.games()) == games and client.get("/v1/games?status=open").json["games"] == lobby
    profile = client.get(f"/v1/players/{victim['id']}").json
    assert profile["ratings"] == {} and profile["current_games"] == [] and profile["played"] == 0
    assert players_of(service).invitations_of(victim["id"], time.time()) == []
    time.sleep(0.3)  # a mail would have been tried at once on a thread
    assert mail.messages == []
    # the victim's own token seats the victim: it is their act
    r = create(client, [{"player": victim["id"]}, {"invite_player": mallory["id"]}], victim["token"])
    assert r.status_code == 201 and r.json["status"] == "open", r.json


def test_an_invited_player_who_joins_is_dealt_in_and_rated(client, service):
    ann, bob = register(client, name="Ann"), register(client, name="Bob")
    r = create(client, [{"player": ann["id"]}, {"invite_player": bob["id"]}], ann["token"])
    assert r.status_code == 201, r.json
    gid = r.json["id"]
    assert r.json["status"] == "open" and r.json["open_seats"] == 1
    assert [s.get("invited") for s in r.json["seats"]] == [None, True]
    # who has not yet accepted, by name, in the answer, the summary and the lobby
    summary = client.get(f"/v1/games/{gid}").json
    assert summary["players"] == ["Ann", "Bob"] and summary["seats"][1] == {
        "seat": 1, "name": "Bob", "player": bob["id"], "invited": True}
    (row,) = client.get("/v1/games?status=open").json["games"]
    assert row["players"] == ["Ann", "Bob"] and row["seats"][1]["invited"] is True
    assert service.store.record(gid) is None  # nothing dealt, nothing committed
    assert [i["id"] for i in client.get("/v1/players/me", headers=auth(bob["token"])).json["invitations"]] == [gid]
    # only Bob may take Bob's seat
    cat = register(client, name="Cat")
    r = client.post(f"/v1/games/{gid}/join", json={"seat": 1}, headers=auth(cat["token"]))
    assert r.status_code == 403 and r.json["code"] == "not-invited", r.json
    r = client.post(f"/v1/games/{gid}/join", json={}, headers=auth(bob["token"]))
    assert r.status_code == 201 and r.json["seat"] == 1 and r.json["status"] in ("active", "settling"), r.json
    assert client.get("/v1/players/me", headers=auth(bob["token"])).json["invitations"] == []
    first = json.loads(service.store.raw_events(gid)[0])
    assert [s.get("player") for s in first["payload"]["seats"]] == [ann["id"], bob["id"]]
    assert len(service.store.raw_events(gid)) > 1  # dealt
    r = client.post(f"/v1/games/{gid}/moves", json={"move": {"type": "resign"}}, headers=auth(bob["token"]))
    assert r.status_code == 201, r.json
    assert client.get(f"/v1/players/{ann['id']}").json["ratings"][GAME]["games"] == 1
    assert client.get(f"/v1/players/{bob['id']}").json["ratings"][GAME]["games"] == 1
    assert results.check(service.store, players_of(service)) == []
    assert audit("".join(line + "\n" for line in service.store.raw_events(gid)))["valid"]


def test_a_declined_invitation_cancels_the_game_with_nothing_dealt_or_rated(client, service):
    ann, bob, cat = (register(client, name=n) for n in ("Ann", "Bob", "Cat"))
    gid = create(client, [{"player": ann["id"]}, {"invite_player": bob["id"]}, {"open": True}],
                 ann["token"]).json["id"]
    before = players_of(service).open_get(gid)
    for token, status, code in ((None, 401, "unauthenticated"), (cat["token"], 403, "not-invited"),
                                (ann["token"], 403, "not-invited")):
        r = client.post(f"/v1/games/{gid}/decline", headers=auth(token) if token else {})
        assert r.status_code == status and r.json["code"] == code, r.json
    assert client.post("/v1/games/no-such/decline", headers=auth(bob["token"])).status_code == 404
    assert players_of(service).open_get(gid) == before  # refusals write nothing
    r = client.post(f"/v1/games/{gid}/decline", headers=auth(bob["token"]))
    assert r.status_code == 200 and r.json == {"id": gid, "seat": 1, "player": bob["id"], "status": "cancelled"}
    summary = client.get(f"/v1/games/{gid}").json
    assert summary["status"] == "cancelled" and summary["declined"] == 1
    assert service.store.record(gid) is None and gid not in [g["id"] for g in service.games()]
    r = client.post(f"/v1/games/{gid}/join", json={}, headers=auth(cat["token"]))
    assert r.status_code == 409 and r.json["code"] == "not-open"
    assert client.post(f"/v1/games/{gid}/decline", headers=auth(bob["token"])).status_code == 409
    assert client.get("/v1/players/me", headers=auth(bob["token"])).json["invitations"] == []
    assert players_of(service).invitations_of(bob["id"], time.time()) == []
    for who in (ann, bob):
        assert client.get(f"/v1/players/{who['id']}").json["ratings"] == {}
    assert "declined the invitation" in client.get(f"/games/{gid}").get_data(as_text=True)


def test_a_seat_not_yet_accepted_deals_nothing_and_rates_nothing(client, service):
    ann, bob, robo = register(client, name="Ann"), register(client, name="Bob"), register(
        client, name="Robo", bot="basic")
    gid = create(client, [{"player": ann["id"]}, {"invite_player": robo["id"]}, {"invite_player": bob["id"]}],
                 ann["token"]).json["id"]
    assert client.get(f"/v1/games/{gid}").json["status"] == "open"
    assert service.store.record(gid) is None and service.store.raw_events(gid) == []
    assert results.catch_up(service.store, players_of(service)) == 0  # nothing to rate
    assert results.check(service.store, players_of(service)) == []
    assert client.get(f"/v1/players/{ann['id']}").json["current_games"] == []
    page = client.get(f"/games/{gid}").get_data(as_text=True)
    assert "Waiting for Bob to accept" in page and "Robo" in page and "player <code>" not in page


def test_a_bot_player_invited_takes_its_seat_at_once(client, service):
    ann, robo = register(client, name="Ann"), register(client, name="Robo", bot="random")
    r = create(client, [{"player": ann["id"]}, {"invite_player": robo["id"]}], ann["token"])
    assert r.status_code == 201 and r.json["status"] in ("active", "settling"), r.json
    assert [s["name"] for s in r.json["seats"]] == ["Ann", "Robo"] and r.json["seats"][1]["bot"] == "random"
    first = json.loads(service.store.raw_events(r.json["id"])[0])
    assert first["payload"]["seats"][1] == {"seat": 1, "name": "Robo", "bot": "random", "player": robo["id"]}
    # and in an open game too: the bot's seat is taken, the open one waits
    r = create(client, [{"invite_player": robo["id"]}, {"open": True}], ann["token"])
    assert r.status_code == 201 and r.json["status"] == "open" and r.json["open_seats"] == 1
    assert r.json["seats"][0] == {"seat": 0, "name": "Robo", "player": robo["id"]}


def test_a_timeouts_forfeit_is_a_rated_loss_of_the_game(client, service):
    ann, bob = register(client, name="Ann"), register(client, name="Bob")
    with freeze_time("2026-03-01T10:00:00Z"):
        gid = create(client, [{"player": ann["id"]}, {"invite_player": bob["id"]}], ann["token"],
                     options={"clock": FORFEIT_CLOCK}).json["id"]
        assert client.post(f"/v1/games/{gid}/join", json={}, headers=auth(bob["token"])).status_code == 201
        (seat,) = client.get(f"/v1/games/{gid}").json["to_act"]
    with freeze_time("2026-03-01T10:00:06Z"):
        assert timeouts.tick(service, gid)["timeout"] == seat
    summary = client.get(f"/v1/games/{gid}").json
    assert summary["status"] == "finished" and summary["result"]["winners"] == [1 - seat]
    late, prompt = (ann, bob)[seat], (ann, bob)[1 - seat]
    assert client.get(f"/v1/players/{late['id']}").json["ratings"][GAME]["mu"] < 25
    assert client.get(f"/v1/players/{prompt['id']}").json["ratings"][GAME]["mu"] > 25
    assert results.check(service.store, players_of(service)) == []


def older_game(store, players: list[str], loser: int) -> str:
    """A finished game written as the engine before this rule wrote it (engine
    version 1, no ``follow_suit`` in its options): its seats named by ``{"player"}``,
    whoever asked, as any creator could then."""
    gid = f"old{len(players)}x{id(store) % 997}"
    seed = f"seed-{gid}"
    made = Table.created_event(GAME, gid, [f"name-{i}" for i in range(len(players))], {}, seed, False)
    payload = {**made.payload, "engine_version": 1,
               "options": {k: v for k, v in made.payload["options"].items() if k != "follow_suit"},
               "seats": [{**s, "player": p} for s, p in zip(made.payload["seats"], players, strict=True)]}
    first = chain([Draft("game-created", payload)], REFEREE, 1, GENESIS, made.at, seed)[0]
    table = Table.from_created(first)
    log = [first] + table.settle_all(seed)
    events, fork = table.propose(loser, [{"type": "resign"}], seed=seed)
    table.commit(fork)
    log += events + table.settle_all(seed)
    store.create(GameRecord(gid, GAME, first.at, [s["name"] for s in payload["seats"]], {}, seed,
                            status="settling", version=1), first)
    store.append(gid, 1, log[1:], status=table.status)
    return gid


def test_an_older_game_seated_by_player_ids_audits_and_rates_as_it_ended(client, service):
    victim, mallory = register(client, name="Vic"), register(client, name="Mallory")
    gid = older_game(service.store, [mallory["id"], victim["id"]], loser=1)
    export = "".join(line + "\n" for line in service.store.raw_events(gid))
    assert json.loads(export.splitlines()[0])["payload"]["engine_version"] == 1
    report = audit(export)
    assert report["valid"] and report["seed"] == "verified", report
    made = results.rate_game(service.store, players_of(service), gid)
    assert made is not None and made["rated"] is True  # as it was rated when it ended
    assert ratings.recompute([export]) == players_of(service).all_ratings()
    assert results.check(service.store, players_of(service)) == []
    assert client.get(f"/v1/players/{victim['id']}").json["ratings"][GAME]["games"] == 1
