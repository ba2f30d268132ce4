"""The games listing: pages by cursor over an index, newest first, complete and
stable while games are created and change status between pages."""

from __future__ import annotations

from referee.events import GENESIS, Draft, chain
from referee.store import GameRecord


def new_game(store, gid, at):
    first = chain([Draft("game-created", {"id": gid})], "referee", 1, GENESIS, at)[0]
    store.create(GameRecord(gid, "toy", at, ["Ann", gid], {"h": 0}, "seed", status="active"), first)
    return first


def at(i: int) -> str:
    return f"2026-01-01T00:00:{i // 1000:02d}.{i % 1000:03d}000Z"


def all_pages(store, status=None, limit=3):
    seen, after = [], None
    while True:
        rows, after = store.page(status, limit, after)
        seen += rows
        if after is None:
            return seen


def test_pages_are_newest_first_complete_and_carry_players(store):
    for i in range(10):
        new_game(store, f"g{i}", at(i))
    rows, nxt = store.page(None, 4, None)
    assert [r["id"] for r in rows] == ["g9", "g8", "g7", "g6"] and nxt == "g6"
    assert rows[0] == {"id": "g9", "game": "toy", "created_at": at(9), "status": "active",
                       "version": 1, "players": ["Ann", "g9"], "moves": 0, "to_act": None}
    assert [r["id"] for r in all_pages(store)] == [f"g{i}" for i in range(9, -1, -1)]
    rows, nxt = store.page(None, 10, None)
    assert len(rows) == 10 and nxt is None  # an exact fit ends without an empty page


def test_games_created_between_pages_neither_shift_nor_repeat(store):
    for i in range(0, 20, 2):
        new_game(store, f"g{i:02d}", at(i))
    first, after = store.page(None, 4, None)
    for i in range(1, 20, 2):  # older and newer than the cursor, ids sort between
        new_game(store, f"g{i:02d}", at(i))
    new_game(store, "zz", at(50))
    rest = []
    while after is not None:
        rows, after = store.page(None, 4, after)
        rest += rows
    ids = [r["id"] for r in first + rest]
    assert len(ids) == len(set(ids))
    older_than_cursor = {f"g{i:02d}" for i in range(0, 13)}
    assert set(ids) >= {f"g{i:02d}" for i in range(0, 20, 2)}  # every game there at the start
    assert set(ids) - {r["id"] for r in first} == older_than_cursor - {r["id"] for r in first}


def test_same_creation_time_is_ordered_by_id(store):
    for gid in ("b", "a", "c"):
        new_game(store, gid, at(1))
    assert [r["id"] for r in all_pages(store, limit=1)] == ["c", "b", "a"]


def test_status_listing_follows_every_change(store):
    firsts = {f"g{i}": new_game(store, f"g{i}", at(i)) for i in range(6)}
    for gid in ("g1", "g4"):
        store.append(gid, 1, chain([Draft("x", {})], 0, 2, firsts[gid].hash), status="finished")
    store.append("g2", 1, chain([Draft("x", {})], 0, 2, firsts["g2"].hash), status="settling")
    assert [r["id"] for r in all_pages(store, "finished", 1)] == ["g4", "g1"]
    assert [r["id"] for r in all_pages(store, "settling")] == ["g2"]
    assert [r["id"] for r in all_pages(store, "active", 2)] == ["g5", "g3", "g0"]
    assert [r["id"] for r in all_pages(store, "aborted")] == []
    assert len(all_pages(store)) == 6
    assert {g["id"] for g in store.games(status="settling")} == {"g2"}


def test_paging_past_a_game_that_changed_status(store):
    firsts = {f"g{i}": new_game(store, f"g{i}", at(i)) for i in range(6)}
    rows, after = store.page("active", 2, None)
    assert after == "g4"
    # the cursor's own game finishes: the cursor still marks a place
    store.append("g4", 1, chain([Draft("x", {})], 0, 2, firsts["g4"].hash), status="finished")
    rows, after = store.page("active", 10, after)
    assert [r["id"] for r in rows] == ["g3", "g2", "g1", "g0"] and after is None


def test_unknown_cursor_is_an_empty_page(store):
    new_game(store, "g1", at(1))
    assert store.page(None, 5, "nope") == ([], None)


def test_more_than_a_thousand_games_are_listed(store):
    for i in range(1205):
        new_game(store, f"g{i:05d}", at(i))
    assert len(store.games()) == 1205
    assert len(store.games(status="active")) == 1205


def test_redis_listing_repairs_an_entry_left_by_a_crash(redis_url):
    from referee.store.redis import RedisStore, _k
    from referee.store.redis_listing import set_of

    store = RedisStore(redis_url)
    new_game(store, "g1", at(1))
    # a crash after the game's own write, before the listing's: meta says finished
    store.r.hset(_k("g1", "meta"), mapping={"status": "finished", "version": 2})
    assert store.page("active", 5, None) == ([], None)
    assert [r["id"] for r in store.page("finished", 5, None)[0]] == ["g1"]
    assert store.r.zcard(set_of("g1", "active")) == 0


def test_redis_listing_never_goes_back_to_an_older_status(redis_url):
    from referee.store.redis import RedisStore
    from referee.store.redis_listing import set_of

    store = RedisStore(redis_url)
    new_game(store, "g1", at(1))
    store._list("g1", at(1), "finished", 5)
    store._list("g1", at(1), "active", 3)  # a slower writer of an older version
    assert store.r.zrange(set_of("g1", "active"), 0, -1) == []
    assert store.r.zrange(set_of("g1", "finished"), 0, -1) == [f"{at(1)}|g1".encode()]


def test_api_lists_games_by_cursor(client):
    made = [client.post("/v1/games", json={"game": "castle-danger", "players": ["Ann", "Bob"]}).get_json()["id"]
            for _ in range(5)]
    got, after = [], None
    while True:
        r = client.get("/v1/games", query_string={"limit": 2, **({"after": after} if after else {})})
        assert r.status_code == 200
        body = r.get_json()
        assert len(body["games"]) <= 2
        got += body["games"]
        after = body["next"]
        if after is None:
            break
    assert sorted(g["id"] for g in got) == sorted(made)
    assert got[0]["players"] == ["Ann", "Bob"] and set(got[0]) == {
        "id", "game", "created_at", "status", "version", "players", "moves", "to_act"}
    assert got[0]["moves"] == 0 and got[0]["to_act"] == [0]  # Castle Danger: the first seat moves first
    assert client.get("/v1/games?status=active").get_json()["games"] != []
    assert client.get("/v1/games?status=finished").get_json() == {"games": [], "next": None}


def test_api_refuses_bad_listing_arguments(client):
    for q in ("status=won", "limit=0", "limit=1001", "limit=x"):
        r = client.get("/v1/games?" + q)
        assert r.status_code == 400 and r.content_type.startswith("application/problem+json"), q


def test_referee_games_lines_up_its_columns_for_league_game_ids(tmp_path, capsys):
    """A league game's id is longer than a game's own: `referee games` still lines
    every column up under its heading."""
    from referee import cli
    from referee.players import accounts
    from referee.queue import InlineQueue
    from referee.store import open_store
    from referee.system import assemble
    from tests.leaguetools import started

    url = f"sqlite:///{tmp_path}/r.db"
    store = open_store(url)
    service = assemble(store, InlineQueue())
    bots = [accounts.register(service, {"name": f"Bot{i}", "bot": "random"})["id"] for i in range(2)]
    started(service, {"name": "L", "game": "king-of-danger", "options": {"target": 1},
                      "format": "round-robin", "players": bots})
    service.create("king-of-danger", ["Ann", "Bob"], {})
    store.close()
    assert cli.main(["games", "--store", url]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3 and len({len(line.split()[0]) for line in lines[1:]}) == 2  # two lengths of id
    for heading in ("GAME", "STATUS", "VERSION", "CREATED", "PLAYERS"):
        at = lines[0].index(heading)
        assert all(line[at - 2:at] == "  " and line[at] != " " for line in lines[1:]), (heading, lines)
