"""A player's current games, paged and bounded however many games the player holds a
seat in: the profile's page (the games waiting on the player first, then the others,
each the oldest first, with the cursor of the next page) and ``me``'s games waiting
(at most ``current.WAITING``, the nearest deadline first), found from the player's
index and the games' listing columns, not by reading every game."""

from __future__ import annotations

import pytest

from referee.players import current
from tests.playertools import auth, register

GAME = "king-of-danger"  # seat 1 leads: a player in seat 1 of a new game is waited on


def seated(client, player: dict, waited_on: bool, clock: int | None = None) -> str:
    """A new game with ``player`` in it, waiting on the player's move or on the opponent's."""
    seats = [{"player": player["id"]}, "Opp"]
    body = {"game": GAME, "players": seats[::-1] if waited_on else seats,
            "options": {"clock": {"move_seconds": clock}} if clock else {}}
    r = client.post("/v1/games", json=body, headers=auth(player["token"]))
    assert r.status_code == 201, r.json
    return r.json["id"]


def pages(client, path: str, headers=None, **query) -> list[list[dict]]:
    """Every page of ``path``'s current games, following the cursors."""
    out, after = [], None
    while True:
        r = client.get(path, headers=headers or {}, query_string={**query, **({"after": after} if after else {})})
        assert r.status_code == 200, r.json
        out.append(r.json["current_games"])
        after = r.json["current_games_next"]
        if after is None:
            return out


def test_a_page_shows_the_games_waiting_on_the_player_first_and_me_at_most_the_bound(client, service, monkeypatch):
    ann = register(client, name="Ann")
    rest = [seated(client, ann, False)]
    waiting_plain = [seated(client, ann, True) for _ in range(current.WAITING - 9)]
    rest.append(seated(client, ann, False))
    # ten with a clock, each newer one with a nearer deadline
    clocked = [seated(client, ann, True, clock=100_000 - 1000 * k) for k in range(10)]
    rest.append(seated(client, ann, False))
    waited = waiting_plain + clocked  # WAITING + 1 of them, the oldest first
    assert len(waited) == current.WAITING + 1
    reads = []
    summary = service.summary
    monkeypatch.setattr(service, "summary", lambda gid: reads.append(gid) or summary(gid))

    got = pages(client, f"/v1/players/{ann['id']}")
    assert [len(p) for p in got] == [current.PAGE, len(waited) + len(rest) - current.PAGE]
    shown = [g for p in got for g in p]
    assert [g["id"] for g in shown] == waited + rest  # waiting first, then the others, each oldest first
    assert [g["waiting"] for g in shown] == [True] * len(waited) + [False] * len(rest)
    assert all(g["players"] and g["status"] == "active" for g in shown)
    assert reads == []  # the profile found the games waiting without reading a single game's summary

    me = client.get("/v1/players/me", headers=auth(ann["token"])).json
    assert [g["id"] for g in me["current_games"]] == waited[:current.PAGE]
    # at most WAITING: the nearest deadlines first, then the games without a clock, the
    # oldest first; the newest game without a clock is the one left out
    assert [g["id"] for g in me["waiting"]] == clocked[::-1] + waiting_plain[:-1]
    deadlines = [g["deadline"] for g in me["waiting"]]
    assert all(deadlines[:10]) and deadlines[:10] == sorted(deadlines[:10]) and not any(deadlines[10:])
    assert len(reads) <= current.WAITING  # only the games it shows were read whole


def test_limit_and_cursor(client):
    bob = register(client, name="Bob")
    made = [seated(client, bob, k % 2 == 0) for k in range(5)]
    want = made[0::2] + made[1::2]
    for path, headers in ((f"/v1/players/{bob['id']}", None), ("/v1/players/me", auth(bob["token"]))):
        got = pages(client, path, headers, limit=2)
        assert [len(p) for p in got] == [2, 2, 1] and [g["id"] for p in got for g in p] == want
        for query, field in (({"limit": 0}, "limit"), ({"limit": current.MAX_PAGE + 1}, "limit"),
                             ({"after": "nonsense"}, "after"), ({"after": "x" * 201}, "after")):
            r = client.get(path, headers=headers or {}, query_string=query)
            assert r.status_code == 400 and r.json["field"] == field, r.json
    # a cursor whose game has ended since still places the next page
    cursor = client.get(f"/v1/players/{bob['id']}", query_string={"limit": 1}).json["current_games_next"]
    gone = want[0]
    assert client.post(f"/v1/games/{gone}/moves", json={"move": {"type": "resign"}},
                       headers=auth(bob["token"])).status_code == 201
    after = client.get(f"/v1/players/{bob['id']}", query_string={"after": cursor}).json["current_games"]
    assert [g["id"] for g in after] == want[1:]


def test_a_game_not_moved_since_the_seats_to_act_were_kept_is_still_found_waiting(client, service):
    """A game from before the listing kept its seats to act (``to_act`` unset) is read
    whole, once, to learn whether it waits on the player."""
    cy = register(client, name="Cy")
    old, new = seated(client, cy, True), seated(client, cy, False)
    store = service.store
    if hasattr(store, "r"):
        store.r.hdel(f"{{g:{old}}}:meta", "to_act")
    else:
        with store.immediate() as conn:
            conn.execute("UPDATE games SET to_act = NULL WHERE id = ?", (old,))
    assert store.glance([old])[old]["to_act"] is None
    got = client.get(f"/v1/players/{cy['id']}").json["current_games"]
    assert [(g["id"], g["waiting"]) for g in got] == [(old, True), (new, False)]
    me = client.get("/v1/players/me", headers=auth(cy["token"])).json
    assert [g["id"] for g in me["waiting"]] == [old]


@pytest.mark.parametrize("players", [False, True])
def test_glance_reads_what_the_listing_keeps_of_many_games_at_once(client, service, players):
    dee = register(client, name="Dee")
    ids = [seated(client, dee, k == 1, clock=3600 if k == 1 else None) for k in range(3)]
    got = service.store.glance(ids + ["no-such-game"], players=players)
    assert sorted(got) == sorted(ids)
    for gid in ids:
        summary = service.summary(gid)
        row = got[gid]
        assert (row["game"], row["status"], row["version"], row["to_act"]) == \
            (GAME, summary["status"], summary["version"], summary["to_act"])
        assert row["created_at"] == service.store.record(gid).created_at
        assert ("players" in row) == players and (not players or row["players"] == summary["players"])
    assert got[ids[1]]["timer"] is not None and got[ids[0]]["timer"] is None
    assert service.store.glance([]) == {}
