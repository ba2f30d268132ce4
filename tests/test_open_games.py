"""Open games on both stores: seats anyone may take or kept for an invited player,
the lobby, joining (one winner of a race for the last seat), the admin's bot and
cancel, refusals that write nothing, and nothing hidden shown."""

from __future__ import annotations

import json
import threading

from referee.audit import audit
from referee.games.base import RefereeError
from referee.players import accounts, joining, lobby
from referee.players.store import players_of
from referee.queue import InlineQueue
from referee.store import open_store
from referee.system import assemble
from tests.playertools import auth, new_game, register

GAME = "king-of-danger"


def confirm(service, player: dict, address: str) -> None:
    players_of(service).update(player["id"], {"email": address, "email_confirmed": True}, None)


def lobby_ids(client) -> list[str]:
    r = client.get("/v1/games?status=open")
    assert r.status_code == 200, r.json
    return [g["id"] for g in r.json["games"]]


def test_an_open_game_deals_nothing_until_full_then_starts_with_its_players(client, service):
    ann, bob = register(client, name="Ann"), register(client, name="Bob")
    game = new_game(client, [{"player": ann["id"]}, {"open": True}], options={"seed": "lobby-secret-seed"})
    gid, admin = game["id"], game["admin_token"]
    assert game["status"] == "open" and game["open_seats"] == 1 and game["version"] == 0
    assert service.store.record(gid) is None  # no log at all while seats are open
    summary = client.get(f"/v1/games/{gid}").json
    assert summary["status"] == "open" and summary["to_act"] == [] and summary["stacked"] is True
    assert lobby_ids(client) == [gid]
    page = client.get("/").get_data(as_text=True)
    assert gid in page and "Open games" in page
    for shown in (json.dumps(game), json.dumps(summary), client.get("/v1/games?status=open").get_data(as_text=True),
                  page):
        assert "lobby-secret-seed" not in shown  # an open game's seed is never shown
    r = client.post(f"/v1/games/{gid}/join", json={}, headers=auth(bob["token"]))
    assert r.status_code == 201, r.json
    assert r.json["seat"] == 1 and r.json["status"] in ("active", "settling") and r.json["version"] >= 1
    assert lobby_ids(client) == []
    assert client.get(f"/v1/games/{gid}").json["players"] == ["Ann", "Bob"]
    # the log starts with both players; Bob's token plays his seat; the admin token is the
    # one given (a game of players': its export waits for the end, docs/api.md "Who sees what")
    r = client.get(f"/v1/games/{gid}/export", headers=auth(admin))
    assert r.status_code == 409 and r.json["code"] == "game-running"
    assert client.get(f"/v1/games/{gid}/notices", headers=auth(admin)).status_code == 200
    export = service.whole_log(gid)
    first = json.loads(export.splitlines()[0])
    assert [s.get("player") for s in first["payload"]["seats"]] == [ann["id"], bob["id"]]
    assert audit(export)["valid"]
    assert client.get(f"/v1/games/{gid}/view", headers=auth(bob["token"])).json["seat"] == 1
    assert [g["id"] for g in client.get(f"/v1/players/{bob['id']}").json["current_games"]] == [gid]
    # a game that is full (or finished) has no seat to take
    cat = register(client, name="Cat")
    r = client.post(f"/v1/games/{gid}/join", json={}, headers=auth(cat["token"]))
    assert r.status_code == 409 and r.json["code"] == "not-open"


def test_an_invited_seat_is_the_confirmed_addresss_players(client, service):
    ann, bob = register(client, name="Ann"), register(client, name="Bob")
    cat = register(client, name="Cat", email="cat@example.org")
    game = new_game(client, [{"player": ann["id"]}, {"invite": "cat@example.org"}, {"open": True}])
    gid = game["id"]
    assert "cat@example.org" not in client.get("/v1/games?status=open").get_data(as_text=True)
    assert [s.get("invited") for s in game["seats"]] == [None, True, None]
    r = client.post(f"/v1/games/{gid}/join", json={"seat": 1}, headers=auth(bob["token"]))
    assert r.status_code == 403 and r.json["code"] == "not-invited" and r.json["field"] == "seat"
    r = client.post(f"/v1/games/{gid}/join", json={"seat": 1}, headers=auth(cat["token"]))
    assert r.status_code == 403  # not confirmed yet: the address is nobody's until it is
    assert client.get("/v1/players/me", headers=auth(cat["token"])).json["invitations"] == []
    confirm(service, cat, "Cat@Example.org")
    invited = client.get("/v1/players/me", headers=auth(cat["token"])).json["invitations"]
    assert [(i["id"], i["seat"]) for i in invited] == [(gid, 1)]
    assert client.get("/v1/players/me", headers=auth(bob["token"])).json["invitations"] == []
    r = client.post(f"/v1/games/{gid}/join", json={}, headers=auth(cat["token"]))
    assert r.status_code == 201 and r.json["seat"] == 1 and r.json["status"] == "open", r.json
    assert client.get("/v1/players/me", headers=auth(cat["token"])).json["invitations"] == []
    r = client.post(f"/v1/games/{gid}/join", headers=auth(bob["token"]), json={})
    assert r.status_code == 201 and r.json["seat"] == 2 and r.json["status"] != "open"


def test_a_join_without_a_seat_takes_the_first_free_seat(client, service):
    ann, bob, cy, di = (register(client, name=n) for n in ("Ann", "Bob", "Cy", "Di"))
    game = new_game(client, [{"open": True}, {"player": ann["id"]}, {"open": True}, {"open": True}])
    for who, seat in ((bob, 0), (cy, 2), (di, 3)):
        r = client.post(f"/v1/games/{game['id']}/join", json={}, headers=auth(who["token"]))
        assert r.status_code == 201 and r.json["seat"] == seat, (who["name"], r.json)
    assert client.get(f"/v1/games/{game['id']}").json["players"] == ["Bob", "Ann", "Cy", "Di"]


def test_an_open_game_does_not_start_while_an_invited_seat_is_still_empty(client, service):
    ann, bob = register(client, name="Ann"), register(client, name="Bob")
    cat = register(client, name="Cat", email="cat@example.org")
    game = new_game(client, [{"player": ann["id"]}, {"open": True}, {"invite": "cat@example.org"}])
    gid = game["id"]
    r = client.post(f"/v1/games/{gid}/join", json={}, headers=auth(bob["token"]))
    assert r.status_code == 201 and (r.json["seat"], r.json["status"]) == (1, "open"), r.json
    assert "version" not in r.json
    assert service.store.record(gid) is None  # no log: nothing dealt while Cat's seat waits
    summary = client.get(f"/v1/games/{gid}").json
    assert summary["status"] == "open" and summary["open_seats"] == 1
    assert lobby_ids(client) == [gid]
    confirm(service, cat, "cat@example.org")
    r = client.post(f"/v1/games/{gid}/join", json={}, headers=auth(cat["token"]))
    assert r.status_code == 201 and r.json["seat"] == 2 and r.json["status"] != "open", r.json
    assert service.store.record(gid) is not None
    # nor when the admin's bot takes the last open seat
    game = new_game(client, [{"player": ann["id"]}, {"open": True}, {"invite": "cat@example.org"}])
    r = client.post(f"/v1/games/{game['id']}/seats/1/fill", json={"bot": "random"},
                    headers=auth(game["admin_token"]))
    assert r.status_code == 201 and r.json["status"] == "open", r.json
    assert service.store.record(game["id"]) is None


def test_bad_joins_and_open_games_are_refused_and_write_nothing(client, service):
    ann, bob = register(client, name="Ann"), register(client, name="Bob")
    for seats, field in (([{"invite_player": "nobody"}, {"open": True}], "players[0].invite_player"),
                         ([{"player": ann["id"]}, {"invite_player": bob["id"], "seat": 1}],
                          "players[1].invite_player"),
                         ([{"open": False}, {"open": True}], "players[0].open"),
                         ([{"open": True}, {"invite": "not an address"}], "players[1].invite"),
                         ([{"open": True, "name": "x"}, {"open": True}], "players[0].open"),
                         ([{"name": "x" * 101}, {"open": True}], "players[0].name"),
                         ([{"player": ann["id"]}, {"player": ann["id"]}, {"open": True}], "players")):
        r = client.post("/v1/games", json={"game": GAME, "players": seats}, headers=auth(ann["token"]))
        assert r.status_code == 400 and r.json["field"] == field, (seats, r.json)
        assert r.headers["Content-Type"].startswith("application/problem+json")
    assert lobby_ids(client) == []
    game = new_game(client, [{"player": ann["id"]}, {"open": True}, {"open": True}])
    gid = game["id"]
    before = players_of(service).open_get(gid)
    cases = [(gid, {"seat": 0}, bob, 409, "seat"), (gid, {"seat": 7}, bob, 400, "seat"),
             (gid, {"seat": "x"}, bob, 400, "seat"), (gid, {}, ann, 409, "player"),
             (gid, {"colour": 1}, bob, 400, "colour"), ("no-such", {}, bob, 404, None)]
    for game_id, body, who, status, field in cases:
        r = client.post(f"/v1/games/{game_id}/join", json=body, headers=auth(who["token"]))
        assert r.status_code == status, (body, r.json)
        assert field is None or r.json["field"] == field, (body, r.json)
    assert client.post(f"/v1/games/{gid}/join", json={}).status_code == 401
    assert client.post(f"/v1/games/{gid}/join", json={}, headers=auth(game["admin_token"])).status_code == 401
    assert players_of(service).open_get(gid) == before  # nothing written


def test_the_admin_fills_a_seat_with_a_bot_or_cancels(client, service):
    ann, bob = register(client, name="Ann"), register(client, name="Bob")
    game = new_game(client, [{"player": ann["id"]}, {"open": True}])
    gid, admin = game["id"], game["admin_token"]
    r = client.post(f"/v1/games/{gid}/seats/1/fill", json={"bot": "random"}, headers=auth(ann["token"]))
    assert r.status_code == 403
    r = client.post(f"/v1/games/{gid}/seats/0/fill", json={"bot": "random"}, headers=auth(admin))
    assert r.status_code == 409 and r.json["field"] == "seat"
    r = client.post(f"/v1/games/{gid}/seats/1/fill", json={"bot": "basic"}, headers=auth(admin))
    assert r.status_code == 201 and r.json["status"] in ("active", "settling"), r.json
    assert client.get(f"/v1/games/{gid}").json["players"] == ["Ann", "basic bot"]
    other = new_game(client, [{"player": ann["id"]}, {"open": True}])
    assert client.post(f"/v1/games/{other['id']}/cancel", headers=auth(ann["token"])).status_code == 403
    r = client.post(f"/v1/games/{other['id']}/cancel", headers=auth(other["admin_token"]))
    assert r.status_code == 200 and r.json["status"] == "cancelled"
    assert other["id"] not in lobby_ids(client)
    r = client.post(f"/v1/games/{other['id']}/join", json={}, headers=auth(bob["token"]))
    assert r.status_code == 409 and r.json["code"] == "not-open"
    assert client.get(f"/v1/games/{other['id']}").json["status"] == "cancelled"


def test_two_players_racing_for_the_last_seat_one_wins(store_url, service):
    """Each joiner has a referee of its own on the same store, as two processes would."""
    ann = accounts.register(service, {"name": "Ann"})
    for round_ in range(4):
        racers = [accounts.register(service, {"name": f"R{round_}{k}"}) for k in range(2)]
        gid = lobby.open_game(service, GAME, [{"player": ann["id"]}, {"open": True}], {}, None, True)["id"]
        referees = [assemble(open_store(store_url), InlineQueue()) for _ in racers]
        for r in referees:  # each referee's player store opened before the start
            lobby.find(r, gid)
        start, outcome = threading.Barrier(len(racers)), [None] * len(racers)

        def race(k, start=start, outcome=outcome, referees=referees, gid=gid, racers=racers):
            start.wait()
            try:
                outcome[k] = joining.join(referees[k], gid, racers[k]["token"], {})["seat"]
            except RefereeError as err:
                outcome[k] = (err.status, err.code)

        threads = [threading.Thread(target=race, args=(k,)) for k in range(len(racers))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert sorted(outcome, key=str) == sorted([1, (409, "not-open")], key=str) or \
            sorted(outcome, key=str) == sorted([1, (409, "seat-taken")], key=str), outcome
        winner = racers[outcome.index(1)]
        created = json.loads(service.store.raw_events(gid)[0])
        assert [s.get("player") for s in created["payload"]["seats"]] == [ann["id"], winner["id"]]
        for r in referees:
            r.store.close()


def test_two_servers_racing_for_the_last_seat_one_wins(store_url, tmp_path):
    """Two `referee serve` processes on the same store; each joiner asks its own."""
    from tests.test_durability import Server

    servers = [Server(store_url, tmp_path), Server(store_url, tmp_path)]
    try:
        made = [servers[0].call("POST", "/v1/players", {"name": n})[1] for n in ("Ann", "Bob", "Cat")]
        status, game = servers[0].call("POST", "/v1/games", {"game": GAME, "players": [
            {"player": made[0]["id"]}, {"open": True}]}, token=made[0]["token"])
        assert status == 201 and game["status"] == "open", game
        start, answers = threading.Barrier(2), [None, None]

        def race(k, start=start, answers=answers):
            start.wait()
            answers[k] = servers[k].call("POST", f"/v1/games/{game['id']}/join", {}, token=made[k + 1]["token"])

        threads = [threading.Thread(target=race, args=(k,)) for k in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        codes = sorted(a[0] for a in answers)
        assert codes == [201, 409], answers
        winner = made[1 + [a[0] for a in answers].index(201)]
        status, summary = servers[1].call("GET", f"/v1/games/{game['id']}")
        assert status == 200 and summary["status"] in ("active", "settling")
        assert summary["players"] == ["Ann", winner["name"]]
    finally:
        for s in servers:
            s.kill()


def test_the_lobby_pages_oldest_first_and_a_cursor_that_left_still_marks_its_place(client):
    ann = register(client, name="Ann")
    made = [new_game(client, [{"player": ann["id"]}, {"open": True}]) for _ in range(5)]
    first = client.get("/v1/games?status=open&limit=2").json
    assert [g["id"] for g in first["games"]] == [g["id"] for g in made[:2]] and first["next"] == made[1]["id"]
    # the cursor's game leaves the lobby: the next page still starts after it
    assert client.post(f"/v1/games/{made[1]['id']}/cancel", headers=auth(made[1]["admin_token"])).status_code == 200
    rest = client.get(f"/v1/games?status=open&limit=10&after={first['next']}").json
    assert [g["id"] for g in rest["games"]] == [g["id"] for g in made[2:]] and rest["next"] is None


def test_filling_the_last_seat_with_a_bot_is_refused_where_the_game_could_not_start(client, service):
    game = new_game(client, [{"name": "Robo", "bot": "random"}, {"open": True}], game="castle-danger")
    before = players_of(service).open_get(game["id"])
    r = client.post(f"/v1/games/{game['id']}/seats/1/fill", json={"bot": "basic"},
                    headers=auth(game["admin_token"]))
    assert r.status_code == 400 and r.json["field"] == "bot", r.json
    assert players_of(service).open_get(game["id"]) == before
    assert client.get(f"/v1/games/{game['id']}").json["status"] == "open"


def test_a_game_left_starting_by_a_dead_process_is_created_by_the_next_read(client, service):
    """The join that took the last seat wrote ``starting`` and died before creating the
    game: the next read of it creates it, once."""
    ann, bob = register(client, name="Ann"), register(client, name="Bob")
    game = new_game(client, [{"player": ann["id"]}, {"open": True}])
    players = players_of(service)
    text = players.open_get(game["id"])
    record = json.loads(text)
    seats = [record["seats"][0], {"player": bob["id"]}]
    assert players.open_swap(game["id"], text, {**record, "seats": seats, "status": "starting"})
    assert service.store.record(game["id"]) is None
    first = client.get(f"/v1/games/{game['id']}").json
    assert service.store.record(game["id"]) is not None and first["status"] in ("active", "settling")
    summary = client.get(f"/v1/games/{game['id']}").json
    assert summary["status"] in ("active", "settling") and summary["players"] == ["Ann", "Bob"]
    assert json.loads(players.open_get(game["id"]))["status"] == "started"
    r = client.post(f"/v1/games/{game['id']}/join", json={}, headers=auth(register(client, name="C")["token"]))
    assert r.status_code == 409 and r.json["code"] == "not-open"


def test_a_null_clock_is_no_clock_and_a_given_one_is_shown_complete_before_the_game_starts(client, service):
    """An open game's answers show the clock as the started game will keep it: none for
    ``clock: null`` (the answers' options have no null clock: docs/api.md), a given clock
    with its defaults filled in."""
    ann, bob, cat = register(client, name="Ann"), register(client, name="Bob"), register(client, name="Cat")
    complete = {"move_seconds": 3600, "remind_seconds": 0, "on_timeout": "remind"}
    for clock, shown_clock, joiner in ((None, None, bob), ({"move_seconds": 3600}, complete, cat)):
        game = new_game(client, [{"player": ann["id"]}, {"open": True}], options={"clock": clock})
        gid = game["id"]
        for options in (game["options"], client.get(f"/v1/games/{gid}").json["options"],
                        next(g for g in client.get("/v1/games?status=open").json["games"] if g["id"] == gid)["options"]):
            assert options.get("clock", "none") == (shown_clock or "none"), options
        r = client.post(f"/v1/games/{gid}/join", json={}, headers=auth(joiner["token"]))
        assert r.status_code == 201, r.json
        summary = client.get(f"/v1/games/{gid}").json
        assert summary["options"].get("clock", "none") == (shown_clock or "none")
        assert summary["clock"] == (None if clock is None else {**complete, "paused": False})
    # a bad clock is refused by name and keeps nothing, as at any game's creation
    r = client.post("/v1/games", json={"game": GAME, "players": [{"player": ann["id"]}, {"open": True}],
                                       "options": {"clock": {"move_seconds": 1}}}, headers=auth(ann["token"]))
    assert r.status_code == 400 and r.json["field"] == "options.clock.move_seconds"
