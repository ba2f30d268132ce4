"""A league table of three when one player withdraws: the referee resigns their
seat, the game plays on with the basic bot in it, the other two finish it, the
leaver is placed last at the table and the game is rated once, the leaver's loss
included."""

from __future__ import annotations

from tests.leagues.test_consent import league_of, person
from tests.leaguetools import new_league
from tests.playertools import auth


def test_a_table_of_three_plays_on_when_one_withdraws_and_the_two_finish(client):
    ann, bob, cy = (person(client, n) for n in ("Ann", "Bob", "Cy"))
    league = new_league(client, [ann, bob, cy], format="tables", table_size=3, rounds=1,
                        options={"target": 2})
    lid = league["id"]
    (table,) = league_of(client, lid)["rounds"][0]["games"]
    gid, seats = table["game"], table["seats"]
    token = {seats.index(p["id"]): p["token"] for p in (ann, bob, cy)}
    cy_seat = seats.index(cy["id"])

    r = client.post(f"/v1/leagues/{lid}/players/{cy['id']}/withdraw", headers=auth(cy["token"]))
    assert r.status_code == 200, r.json
    game = client.get(f"/v1/games/{gid}").json
    assert game["status"] == "active", "one leaving ends nobody else's game"

    for _ in range(3000):  # Ann and Bob play their first legal move until the end
        game = client.get(f"/v1/games/{gid}").json
        if game["status"] != "active":
            break
        assert cy_seat not in game["to_act"], "the referee plays the seat that left"
        seat = game["to_act"][0]
        legal = client.get(f"/v1/games/{gid}/legal", headers=auth(token[seat])).json["moves"]
        move = next(m for m in legal if m["type"] != "resign")
        r = client.post(f"/v1/games/{gid}/moves", json={"move": move}, headers=auth(token[seat]))
        assert r.status_code == 201, r.json
    assert game["status"] == "finished", game
    result = game["result"]
    assert result["left"] == [cy_seat] and cy_seat not in result["winners"] and result["winners"]

    got = league_of(client, lid)
    assert got["status"] == "finished"
    placings = got["rounds"][0]["games"][0]["placings"]
    assert placings[cy_seat] == 3 and all(placings[s] < 3 for s in range(3) if s != cy_seat)

    export = client.get(f"/v1/games/{gid}/export")
    assert export.status_code == 200
    audit = client.post("/v1/audit", data=export.data, content_type="application/jsonl").json
    assert audit["valid"], audit["first_error"]

    for p in (ann, bob, cy):  # rated once, the leaver's loss with it
        stats = client.get(f"/v1/players/{p['id']}").json["games"]["king-of-danger"]
        assert stats["played"] == 1
        assert stats["won"] == (1 if seats.index(p["id"]) in result["winners"] else 0)
    assert client.get(f"/v1/players/{cy['id']}").json["games"]["king-of-danger"]["won"] == 0
