"""The player layer following games through the API, on both stores: a finished
game rates its players by itself (once), profiles list current games and the
games waiting on the player; a seat is handed to no player but a bot player (a player is
seated only by their own act), and a bot player's seat follows it."""

from __future__ import annotations

from referee.audit import audit
from referee.players.store import players_of
from tests.playertools import auth, new_game, register

GAME = "king-of-danger"


def resign(client, gid, token) -> None:
    r = client.post(f"/v1/games/{gid}/moves", json={"move": {"type": "resign"}}, headers=auth(token))
    assert r.status_code == 201, r.json


def test_a_finished_game_rates_its_players_by_itself_once(client, service):
    ann, bob = register(client, name="Ann"), register(client, name="Bob")
    game = new_game(client, [{"player": ann["id"]}, {"player": bob["id"]}])
    profile = client.get(f"/v1/players/{ann['id']}").json
    assert [g["id"] for g in profile["current_games"]] == [game["id"]]
    assert profile["current_games"][0]["seat"] == 0 and profile["ratings"] == {}
    resign(client, game["id"], bob["token"])
    assert client.get(f"/v1/games/{game['id']}").json["status"] == "finished"
    ann_now = client.get(f"/v1/players/{ann['id']}").json
    bob_now = client.get(f"/v1/players/{bob['id']}").json
    assert ann_now["ratings"][GAME]["games"] == 1 and bob_now["ratings"][GAME]["games"] == 1
    assert ann_now["ratings"][GAME]["mu"] > 25 > bob_now["ratings"][GAME]["mu"]
    assert (ann_now["won"], bob_now["won"], ann_now["played"]) == (1, 0, 1)
    assert ann_now["current_games"] == [] and bob_now["current_games"] == []
    # the job again (a retry, a second worker): nothing twice
    service.queue.enqueue("ratings", game["id"])
    assert client.get(f"/v1/players/{ann['id']}").json["ratings"] == ann_now["ratings"]
    assert players_of(service).recorded(game["id"])["order"] == 1


def test_bots_are_rated_and_aborted_or_stacked_games_are_not(client, service):
    ann, robo = register(client, name="Ann"), register(client, name="Robo", bot="random")
    game = new_game(client, [{"player": ann["id"]}, {"player": robo["id"]}])
    resign(client, game["id"], ann["token"])
    assert client.get(f"/v1/players/{robo['id']}").json["ratings"][GAME]["games"] == 1
    stacked = new_game(client, [{"player": ann["id"]}, {"player": robo["id"]}], options={"seed": "s"})
    resign(client, stacked["id"], ann["token"])
    aborted = new_game(client, [{"player": ann["id"]}, {"player": robo["id"]}])
    r = client.post(f"/v1/games/{aborted['id']}/abort", json={"reason": "test"},
                    headers=auth(aborted["admin_token"]))
    assert r.status_code in (200, 201), r.json
    now = client.get(f"/v1/players/{ann['id']}").json
    assert now["ratings"][GAME]["games"] == 1  # the stacked game counts as played, unrated
    assert now["played"] == 2 and now["current_games"] == []
    assert players_of(service).recorded(aborted["id"]) is None


def test_me_lists_the_games_waiting_on_the_player(client):
    ann, bob = register(client, name="Ann"), register(client, name="Bob")
    one = new_game(client, [{"player": ann["id"]}, {"player": bob["id"]}])
    two = new_game(client, [{"player": bob["id"]}, {"player": ann["id"]}])
    me = client.get("/v1/players/me", headers=auth(ann["token"])).json
    assert {g["id"] for g in me["current_games"]} == {one["id"], two["id"]}
    to_act = {g["id"]: client.get(f"/v1/games/{g['id']}").json["to_act"] for g in (one, two)}
    want = [g["id"] for g in me["current_games"] if g["seat"] in to_act[g["id"]]]
    assert [g["id"] for g in me["waiting"]] == want and want
    # Bob sees his own; the public profile shows no waiting list and no contacts
    assert "waiting" not in client.get(f"/v1/players/{ann['id']}").json


def test_a_seat_is_handed_to_no_player_but_a_bot_player(client, service):
    """An admin's token is nobody's consent: a seat handed to a registered player is 403
    and writes nothing; a bot player, which plays whenever asked, takes it, and its
    seat follows it (the log names it, the audit accepts it, the game rates it)."""
    ann, bob, cat = (register(client, name=n) for n in ("Ann", "Bob", "Cat"))
    robo = register(client, name="Robo", bot="random")
    game = new_game(client, [{"player": ann["id"]}, {"player": bob["id"]}])
    gid, admin = game["id"], game["admin_token"]
    before = service.store.raw_events(gid)
    r = client.post(f"/v1/games/{gid}/seats/1/replace", json={"player": cat["id"]}, headers=auth(admin))
    assert r.status_code == 403 and r.json["code"] == "forbidden" and r.json["field"] == "player", r.json
    assert service.store.raw_events(gid) == before
    assert client.get(f"/v1/players/{cat['id']}").json["current_games"] == []
    assert client.get(f"/v1/games/{gid}/view", headers=auth(bob["token"])).json["seat"] == 1
    r = client.post(f"/v1/games/{gid}/seats/1/replace", json={"player": robo["id"]}, headers=auth(admin))
    assert r.status_code == 201, r.json
    assert r.json["events"][0]["payload"] == {"seat": 1, "name": "Robo", "bot": "random", "player": robo["id"]}
    me = client.get(f"/v1/games/{gid}/view", headers=auth(bob["token"]))
    assert (me.status_code, me.json["code"]) == (403, "not-your-seat")  # a player, no seat here
    assert client.get(f"/v1/players/{bob['id']}").json["current_games"] == []
    resign(client, gid, ann["token"])
    export = client.get(f"/v1/games/{gid}/export", headers=auth(admin)).text
    assert audit(export)["valid"]
    assert client.get(f"/v1/players/{robo['id']}").json["ratings"][GAME]["games"] == 1
    assert GAME not in client.get(f"/v1/players/{bob['id']}").json["ratings"]


def test_a_bad_replacement_player_is_refused_and_changes_nothing(client):
    ann, bob = register(client, name="Ann"), register(client, name="Bob")
    robo = register(client, name="Robo", bot="basic")
    game = new_game(client, [{"player": ann["id"]}, {"player": bob["id"]}])
    gid, admin = game["id"], game["admin_token"]
    # the log as the admin sees it (every event's seq and hash; a game of players' export
    # waits for its end)
    log = lambda: client.get(f"/v1/games/{gid}/events", headers=auth(admin), query_string={"limit": 1000}).json  # noqa: E731
    before = log()
    assert before["events"]
    for body, status, field in (({"player": "nobody"}, 400, "player"),
                                ({"player": ann["id"]}, 403, "player"),
                                ({"player": bob["id"], "name": "X"}, 400, "name")):
        r = client.post(f"/v1/games/{gid}/seats/1/replace", json=body, headers=auth(admin))
        assert r.status_code == status and r.json["field"] == field, (body, r.json)
        assert r.headers["Content-Type"].startswith("application/problem+json")
    robo_game = new_game(client, [{"player": ann["id"]}, {"player": robo["id"]}])
    r = client.post(f"/v1/games/{robo_game['id']}/seats/1/replace", json={"player": ann["id"]},
                    headers=auth(robo_game["admin_token"]))
    assert r.status_code == 403, r.json  # even the creator's own player: a seat is taken by joining
    assert log() == before
    assert client.get(f"/v1/games/{gid}/view", headers=auth(bob["token"])).json["seat"] == 1


def test_profiles_show_no_hand_and_no_seed(client):
    ann, bob = register(client, name="Ann"), register(client, name="Bob")
    game = new_game(client, [{"player": ann["id"]}, {"player": bob["id"]}],
                    options={"seed": "profile-secret-seed"})
    view = client.get(f"/v1/games/{game['id']}/view", headers=auth(ann["token"])).json
    hand = view["view"].get("hand") or view["view"].get("hands")
    assert hand, view["view"]  # Ann has cards: none of them may show on a profile
    texts = [client.get(f"/v1/players/{ann['id']}").get_data(as_text=True),
             client.get("/v1/players/me", headers=auth(ann["token"])).get_data(as_text=True),
             client.get("/v1/players/me", headers=auth(bob["token"])).get_data(as_text=True)]
    for text in texts:
        assert "profile-secret-seed" not in text and game["seed_commitment"] not in text
        assert "hand" not in text and game["admin_token"] not in text
    me = client.get("/v1/players/me", headers=auth(ann["token"])).json
    assert set(me["current_games"][0]) == {"id", "game", "title", "players", "seat", "status", "version", "created",
                                           "waiting"}
    assert all(set(w) == {"id", "game", "title", "players", "seat", "version", "created", "deadline"} for w in me["waiting"])


def test_the_catch_up_finds_a_game_whose_players_came_by_replacement(client, service):
    """A game created with bare names, both seats then given to bot players, its end's
    job lost (the ratings reaction taken out, as a process killed before it): the
    catch-up a starting process runs records it."""
    from referee.players import following

    robots = [register(client, name=n, bot="random") for n in ("Robo", "Tin")]
    service.followers._reactions[:] = [(n, r) for n, r in service.followers._reactions if n != "ratings"]
    game = new_game(client, ["x", "y"])
    for seat, who in enumerate(robots):  # the bots play it to its end at once
        r = client.post(f"/v1/games/{game['id']}/seats/{seat}/replace", json={"player": who["id"]},
                        headers=auth(game["admin_token"]))
        assert r.status_code == 201, r.json
    assert client.get(f"/v1/games/{game['id']}").json["status"] == "finished"
    assert players_of(service).recorded(game["id"]) is None
    plain = new_game(client, ["p", "q"])  # a game seating no player: the catch-up skips it
    resign(client, plain["id"], plain["seats"][0]["token"])
    assert following.catch_up(service) == 1
    assert client.get(f"/v1/players/{robots[1]['id']}").json["ratings"][GAME]["games"] == 1
    assert following.catch_up(service) == 0
