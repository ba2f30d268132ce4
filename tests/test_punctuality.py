"""A profile's timekeeping, on both stores: ``moves`` (the player's own), ``timeouts``
and ``on_time`` (moves made in time over moves and timeouts), over every game that
ended, each game counted once; worked out by hand on a frozen clock."""

from __future__ import annotations

from freezegun import freeze_time

from referee import timeouts
from tests.playertools import auth, new_game, register
from tests.test_timeouts import T0, at

REMIND = {"move_seconds": 3600, "on_timeout": "remind"}


def _move(client, gid, player) -> None:
    moves = [m for m in client.get(f"/v1/games/{gid}/legal", headers=auth(player["token"])).json["moves"]
             if m["type"] != "resign"]
    r = client.post(f"/v1/games/{gid}/moves", json={"move": moves[0]}, headers=auth(player["token"]))
    assert r.status_code == 201, r.json


def _profile(client, player) -> dict:
    p = client.get(f"/v1/players/{player['id']}").json
    return {k: p[k] for k in ("moves", "timeouts", "on_time")}


def test_moves_timeouts_and_on_time_over_finished_games(client, service):
    ann, bob = register(client, name="Ann"), register(client, name="Bob")
    assert _profile(client, ann) == {"moves": 0, "timeouts": 0, "on_time": None}
    with freeze_time(T0):
        gid = new_game(client, [{"player": ann["id"]}, {"player": bob["id"]}], options={"clock": REMIND, "seed": 9})["id"]
        by_seat = [ann, bob]
        first = by_seat[client.get(f"/v1/games/{gid}").json["to_act"][0]]
        second = bob if first is ann else ann
    with freeze_time(at(10)):
        _move(client, gid, first)  # in time
    with freeze_time(at(10 + 3600)):
        assert timeouts.tick(service, gid)["timeout"] is not None  # the second runs out (remind)
    with freeze_time(at(10 + 3700)):
        _move(client, gid, second)  # late: after the deadline
        # the game is running: nothing counted yet
        assert _profile(client, second) == {"moves": 0, "timeouts": 0, "on_time": None}
        seat = client.get(f"/v1/games/{gid}").json["to_act"][0]
        resigner = by_seat[seat]
        r = client.post(f"/v1/games/{gid}/moves", json={"move": {"type": "resign"}}, headers=auth(resigner["token"]))
        assert r.status_code == 201  # a resignation is a move, in time
    assert client.get(f"/v1/games/{gid}").json["status"] == "finished"
    want = {first["id"]: [1, 0, 0], second["id"]: [1, 1, 1]}  # moves, late, timeouts
    want[resigner["id"]][0] += 1
    for p in (ann, bob):
        moves, late, outs = want[p["id"]]
        assert _profile(client, p) == {"moves": moves, "timeouts": outs,
                                       "on_time": round((moves - late) / (moves + outs), 4)}
    me = client.get("/v1/players/me", headers=auth(ann["token"])).json
    assert {k: me[k] for k in ("moves", "timeouts", "on_time")} == _profile(client, ann)
    # a game is counted once, however often its end is followed
    store = service.player_settings.store
    assert store.count_game(ann["id"], gid, 5, 5, 5) is False
    assert _profile(client, ann)["moves"] == want[ann["id"]][0]
