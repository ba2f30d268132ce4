"""Rulings in a league: the league's admin token rules on a dispute in its game;
an award and a void are results like any other (the standings, the ratings and
the league's audit follow them), and a game's own admin token is the league's."""

from __future__ import annotations

from referee.players import results
from referee.players.store import players_of
from tests.leagues.test_leagues_http import audited, auth, create, players


def _dispute_and_rule(client, gid: str, token: str, admin: str, decision: dict) -> dict:
    r = client.post(f"/v1/games/{gid}/disputes", json={"text": "my opponent left the table"},
                    headers=auth(token))
    assert r.status_code == 201, r.json
    r = client.post(f"/v1/games/{gid}/rulings", json={"dispute": r.json["dispute"]["id"],
                                                      "decision": decision, "text": "so ruled"},
                    headers=auth(admin))
    assert r.status_code == 201, r.json
    return r.json


def _league_of_two(client):
    humans = players(client, 2, bot=None)
    league = create(client, humans)
    game = league["rounds"][0]["games"][0]
    tokens = {p["id"]: p["token"] for p in humans}
    return humans, league, game, tokens


def test_an_award_in_a_league_game_counts_in_the_standings_and_the_ratings(client, service):
    humans, league, game, tokens = _league_of_two(client)
    seat0, seat1 = game["seats"]
    # a seat's token may not rule, the league's admin token may
    r = client.post(f"/v1/games/{game['game']}/rulings", json={"dispute": 1, "decision": {"kind": "dismiss"},
                                                                "text": "x"}, headers=auth(tokens[seat0]))
    assert r.status_code == 403 and r.json["code"] == "forbidden"
    _dispute_and_rule(client, game["game"], tokens[seat0], league["admin_token"], {"kind": "award", "winners": [1]})
    got = client.get(f"/v1/leagues/{league['id']}").json
    assert got["status"] == "finished"
    top = got["standings"][0]
    assert top["player"] == seat1 and top["points"] == 1 and top["won"] == 1
    assert got["rounds"][0]["games"][0]["placings"] == [2, 1]
    winner = client.get(f"/v1/players/{seat1}").json
    loser = client.get(f"/v1/players/{seat0}").json
    game_id = "king-of-danger"
    assert winner["ratings"][game_id]["ordinal"] > loser["ratings"][game_id]["ordinal"]
    assert results.check(service.store, players_of(service)) == []  # as `referee ratings --check`
    report = audited(client, league["id"])
    assert report["valid"], report
    assert report["standings"] == got["standings"]


def test_a_void_in_a_league_game_places_its_seats_level_unrated(client):
    humans, league, game, tokens = _league_of_two(client)
    seat0, seat1 = game["seats"]
    _dispute_and_rule(client, game["game"], tokens[seat1], league["admin_token"], {"kind": "void"})
    assert client.get(f"/v1/games/{game['game']}").json["status"] == "aborted"
    got = client.get(f"/v1/leagues/{league['id']}").json
    assert got["rounds"][0]["games"][0]["placings"] == [1, 1]
    assert sorted(s["points"] for s in got["standings"]) == [0.5, 0.5]
    assert not client.get(f"/v1/players/{seat0}").json["ratings"]  # never rated
    report = audited(client, league["id"])
    assert report["valid"], report
    assert report["standings"] == got["standings"]


def test_the_leagues_admin_token_lists_the_open_disputes_of_its_games(client):
    humans, league, game, tokens = _league_of_two(client)
    r = client.post(f"/v1/games/{game['game']}/disputes", json={"text": "a card fell face up"},
                    headers=auth(tokens[game["seats"][0]]))
    assert r.status_code == 201, r.json
    got = client.get("/v1/disputes", headers=auth(league["admin_token"])).json["disputes"]
    assert [(d["game"], d["league"], d["dispute"]["text"]) for d in got] == \
        [(game["game"], league["id"], "a card fell face up")]
