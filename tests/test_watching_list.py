"""The list of games (``/``): each game by its title and players, when it
started, who is to play and how many moves were made (not events), all from
the store's rows: counting costs no replay, on either store."""

from __future__ import annotations

import html
import json
import random
import re

from referee.events import Event
from tests.helpers import Game


def _moves(g: Game) -> int:
    return sum(Event.from_json(line).is_move for line in g.export().splitlines())


def _row(html_text: str, gid: str) -> str:
    return next(r for r in html_text.split("<tr>") if f'href="/games/{gid}"' in r)


def test_the_list_counts_moves_not_events_and_names_the_game_and_whose_turn(client, service):
    done = Game(client, "king-of-danger", ["Ann", "Bob", "Cy"], {"seed": "list", "target": 6})
    done.play_random(random.Random(4))
    live = Game(client, "kings-keys", ["Ann", "Bob", "Cy"], {"seed": "list"})
    for _ in range(5):
        s = live.summary()
        seat = s["to_act"][0]
        assert live.post(seat, {"move": [m for m in live.legal(seat) if m["type"] != "resign"][0]}).status_code == 201
    moves = _moves(done)
    assert 0 < moves < done.summary()["version"]  # a trick's end, the deals, the scoring are no moves
    rows = {r["id"]: r for r in client.get("/v1/games").json["games"]}
    assert rows[done.id]["moves"] == moves and rows[done.id]["to_act"] == []
    assert rows[live.id]["moves"] == 5 and rows[live.id]["to_act"] == live.summary()["to_act"]
    # the page: the title and players, the start, whose turn by name, the moves; the id stays small
    page = html.unescape(client.get("/").get_data(as_text=True))
    row = _row(page, done.id)
    assert "King of Danger: Ann, Bob, Cy" in row and f'<small class="game-id">{done.id}</small>' in row
    cells = re.findall(r"<td>(.*?)</td>", row.split("</a></td>", 1)[1], re.S)
    assert cells[1:] == ["finished", "", str(moves)], cells
    created = json.loads(done.export().splitlines()[0])["at"]
    assert f'<time datetime="{created}">{created[:16].replace("T", " ")}</time>' in row
    row = _row(page, live.id)
    to_play = ", ".join(["Ann", "Bob", "Cy"][s] for s in live.summary()["to_act"])
    assert "King's Keys: Ann, Bob, Cy" in row
    assert re.findall(r"<td>(.*?)</td>", row.split("</a></td>", 1)[1], re.S)[1:] == ["active", to_play, "5"]


def test_the_list_replays_no_game(client, service, monkeypatch):
    from referee.table import Table

    for game, n in (("king-of-danger", 3), ("castle-danger", 2), ("kings-keys", 3), ("king-of-the-castle", 3)):
        Game(client, game, n)
    service.forget()  # nothing kept in memory: a load would have to read and replay

    def no(*args, **kw):
        raise AssertionError("the list read a game's log")

    monkeypatch.setattr(Table, "replay", no)
    monkeypatch.setattr(Table, "apply", no)
    monkeypatch.setattr(service, "load", no)
    page = client.get("/")
    assert page.status_code == 200 and page.get_data(as_text=True).count('href="/games/') == 4


def test_games_stored_before_the_count_are_counted_from_their_logs(client, service):
    g = Game(client, "king-of-danger", ["Ann", "Bob", "Cy"], {"seed": "old"})
    for _ in range(7):
        s = g.summary()
        seat = s["to_act"][0]
        assert g.post(seat, {"move": [m for m in g.legal(seat) if m["type"] != "resign"][0]}).status_code == 201
    store = service.store
    if hasattr(store, "path"):  # SQLite: a file from before 0.3.0 has neither column
        import sqlite3

        from referee.store.sqlite import SqliteStore

        store.close()
        conn = sqlite3.connect(store.path)
        conn.execute("ALTER TABLE games DROP COLUMN moves")
        conn.execute("ALTER TABLE games DROP COLUMN to_act")
        conn.commit()
        conn.close()
        store = SqliteStore("/" + store.path if store.path.startswith("/") else store.path)
    else:  # Redis: a game from before 0.3.0 has no count
        from referee.store.redis import _k

        store.r.hdel(_k(g.id, "meta"), "moves", "to_act")
    row = store.page(None, 10, None)[0][0]
    assert row["moves"] == _moves(g) == 7 and row["to_act"] is None
    # and from then on the appends count on from there
    service.store = store
    service.forget()
    s = g.summary()
    assert g.post(s["to_act"][0], {"move": [m for m in g.legal(s["to_act"][0]) if m["type"] != "resign"][0]}
                  ).status_code == 201
    row = store.page(None, 10, None)[0][0]
    assert row["moves"] == _moves(g) == 8 and row["to_act"] == g.summary()["to_act"]
