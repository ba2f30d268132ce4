"""The log in words (``/v1/games/{id}/log``, the page's log, the view's last
move, notices and ``referee replay``): every line names who held the seat when
it happened, and the first event is told in words like every other."""

from __future__ import annotations

import datetime as dt
import html
import re

from freezegun import freeze_time

from tests.helpers import Game

T0 = "2026-03-01T10:00:00Z"


def at(seconds: float) -> str:
    moment = dt.datetime(2026, 3, 1, 10, 0, 0, tzinfo=dt.UTC) + dt.timedelta(seconds=seconds)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _move(g: Game, seat: int) -> None:
    move = [m for m in g.legal(seat) if m["type"] != "resign"][0]
    assert g.post(seat, {"move": move}).status_code == 201


def _replace(g: Game, seat: int, body: dict):
    r = g.client.post(f"/v1/games/{g.id}/seats/{seat}/replace", json=body, headers=g.auth("admin"))
    assert r.status_code == 201, r.json
    return r.json


def _replaced_game(client, service) -> tuple[Game, dict]:
    """King of Danger, Ann Bob Cy: Bob moves, Dan takes Bob's seat and moves, Cy
    runs out of time and a bot, Robo2, takes Cy's seat and moves for it.
    Returns the game and the seq of each of those events."""
    from referee import timeouts

    seqs = {}
    with freeze_time(T0):
        g = Game(client, "king-of-danger", ["Ann", "Bob", "Cy"],
                 {"seed": "holders", "clock": {"move_seconds": 3600, "on_timeout": "remind"}})
    with freeze_time(at(10)):
        while 1 not in g.summary()["to_act"]:
            _move(g, g.summary()["to_act"][0])
        _move(g, 1)
        seqs["bob"] = max(e["seq"] for e in g.get("/events", "admin", limit=1000).json["events"]
                          if e["actor"] == 1)
        g.tokens[1] = _replace(g, 1, {"name": "Dan"})["token"]
        seqs["dan-in"] = g.summary()["version"]
        while 1 not in g.summary()["to_act"]:
            _move(g, g.summary()["to_act"][0])
        _move(g, 1)
        seqs["dan"] = max(e["seq"] for e in g.get("/events", "admin", limit=1000).json["events"]
                          if e["actor"] == 1)
        while 2 not in g.summary()["to_act"]:
            _move(g, g.summary()["to_act"][0])
        since = g.summary()["version"]
    with freeze_time(at(10 + 3600)):
        assert timeouts.tick(service, g.id)["timeout"] == 2
        seqs["cy-out"] = g.summary()["version"]
        _replace(g, 2, {"name": "Robo2", "bot": "basic"})  # its move follows at once
    log = g.get("/events", "admin", limit=1000).json["events"]
    seqs["robo-in"] = next(e["seq"] for e in log if e["type"] == "seat-replaced" and e["seq"] > since)
    seqs["robo"] = next(e["seq"] for e in log if e["actor"] == 2 and e["seq"] > seqs["robo-in"])
    return g, seqs


EXPECTED = [("bob", r"^Bob plays "), ("dan-in", r"^Bob is now played by Dan$"), ("dan", r"^Dan plays "),
            ("cy-out", r"^Cy ran out of time"), ("robo-in", r"^Cy is now played by Robo2$"),
            ("robo", r"^Robo2 plays ")]


def test_each_line_names_who_held_the_seat_then(client, service, tmp_path, capsys):
    from referee import cli

    g, seqs = _replaced_game(client, service)
    lines = {x["seq"]: x["text"] for x in g.get("/log").json["lines"]}
    for what, pattern in EXPECTED:
        assert re.search(pattern, lines[seqs[what]]), (what, lines[seqs[what]])
    # the log from a later start still knows who held the seats before it
    later = {x["seq"]: x["text"] for x in g.get("/log", after=seqs["dan-in"]).json["lines"]}
    assert later[seqs["cy-out"]] == lines[seqs["cy-out"]] and later[seqs["dan"]] == lines[seqs["dan"]]
    # the page's log says the same
    page = html.unescape(client.get(f"/games/{g.id}").get_data(as_text=True))
    for what, _ in EXPECTED:
        # (each line may be followed by its mark in the transparency log, in a span)
        assert re.search(rf'<li value="{seqs[what]}">{re.escape(lines[seqs[what]])}(</li>| <span)', page), what
    # so does the view's last move, at any position
    for what, _ in EXPECTED:
        text = g.get("/view", at=seqs[what]).json["text"]
        assert f"[{seqs[what]}] {lines[seqs[what]]}" in text, (what, text)
    # and the replay of the exported log
    path = tmp_path / "game.jsonl"
    path.write_text(g.export())
    assert cli.main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    for what, _ in EXPECTED:
        assert re.search(rf"^\[{seqs[what]}\] \S+  {re.escape(lines[seqs[what]])}$", out, re.M), what


def test_a_notice_names_who_held_the_seat_then(client, service):
    from referee.mail import outbox

    g, seqs = _replaced_game(client, service)
    happened = outbox.compose(service, g.id, 0, "turn")["happened"]
    for what, pattern in EXPECTED:
        assert any(re.search(pattern, line) for line in happened), (what, happened)


FIRST_LINES = [
    ("king-of-danger", ["Ann", "Bob", "Cy"], {},
     "The game starts: Ann, Bob and Cy at King of Danger (target 31)"),
    ("king-of-danger", ["Ann", {"name": "Robo", "bot": "basic"}], {"target": 20, "clock": {"move_seconds": 86400}},
     "The game starts: Ann and Robo (a basic bot) at King of Danger (target 20, 1 day a move)"),
    ("castle-danger", ["Ann", "Bob"], {"variant": "hidden-danger", "edition": "3rd", "turn_limit": 25},
     "The game starts: Ann and Bob at Castle Danger (3rd edition, Hidden Danger, a draw after 25 turns each)"),
    ("king-of-the-castle", ["Ann", "Bob", "Cy"], {"squires": "letters"},
     "The game starts: Ann, Bob and Cy at King of the Castle (squires by letter)"),
    ("kings-keys", ["Ann", "Bob", "Cy", "Di"], {"wild_cards": True},
     "The game starts: Ann, Bob, Cy and Di at King's Keys (wild cards)"),
]


def test_the_first_event_is_told_in_words(client):
    for game, players, options, line in FIRST_LINES:
        g = Game(client, game, players, options)
        first = g.get("/log").json["lines"][0]
        assert (first["seq"], first["type"], first["text"]) == (1, "game-created", line)
        assert g.get("/log", 0).json["lines"][0]["text"] == line  # a seat reads the same
        page = html.unescape(client.get(f"/games/{g.id}").get_data(as_text=True))
        assert re.search(rf'<li value="1">{re.escape(line)}(</li>| <span)', page)


def test_the_first_line_keeps_a_given_deck_hidden(client):
    from referee.games.king_of_danger.cards import DECK

    deck = list(DECK)
    g = Game(client, "king-of-danger", ["Ann", "Bob", "Cy"], {"deck": deck})
    for who in (None, 0):
        line = g.get("/log", who).json["lines"][0]["text"]
        assert line == ("The game starts: Ann, Bob and Cy at King of Danger (target 31); stacked: dealt "
                        "from a seed or a deck order given at creation")
