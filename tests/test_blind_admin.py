"""The admin manages blind in a game of players (docs/api.md, "Who sees what").

A game of players (every seat a registered player's: open seats taken, every league
game) shows its admin token, while it runs, exactly what a spectator sees, on every
channel: the view (now and ``?at=N``), the events, the long poll, the log in words,
the board picture, the page, the notices; only the answers that name their viewer
say ``admin``. Its export is nobody's while it runs (409 ``game-running``) and
anyone's once it is over and its seed revealed. A game with a seat given by name,
and a game made before games of players (its first event's engine version), keep
the admin who sees everything, and the export that is the admin's while it runs.
"""

from __future__ import annotations

import json
import random

import pytest

from referee.audit import audit
from referee.caller import new_token, token_hash
from referee.events import GENESIS, REFEREE, Draft, chain
from referee.games import engine as engine_by_name
from referee.games.base import ADMIN
from referee.store import GameRecord
from referee.table import Table
from tests.playertools import auth, register

# (game, fewest and most players, options): hidden cards in each
GAMES = [("castle-danger", (2, 2), {"variant": "hidden-danger"}), ("king-of-danger", (2, 5), {}),
         ("king-of-the-castle", (3, 5), {}), ("kings-keys", (3, 4), {"wild_cards": True})]


class PlayersGame:
    """A game of players through the API: its id, admin token and seats' tokens."""

    def __init__(self, client, game_id: str, admin: str, tokens: dict[int, str]):
        self.client, self.id, self.admin, self.tokens = client, game_id, admin, tokens

    @classmethod
    def opened(cls, client, game: str, players: int, options: dict | None = None) -> PlayersGame:
        """Made as players make one: every seat open, each taken by a registered
        player joining with their own token."""
        r = client.post("/v1/games", json={"game": game, "players": [{"open": True}] * players,
                                           "options": options or {}})
        assert r.status_code == 201, r.json
        gid, admin, tokens = r.json["id"], r.json["admin_token"], {}
        for i in range(players):
            player = register(client, name=f"Player {i}")
            r = client.post(f"/v1/games/{gid}/join", json={}, headers=auth(player["token"]))
            assert r.status_code == 201, r.json
            tokens[r.json["seat"]] = player["token"]
        return cls(client, gid, admin, tokens)

    def get(self, path: str, token: str | None = None, **query):
        return self.client.get(f"/v1/games/{self.id}{path}", headers=auth(token) if token else {},
                               query_string=query)

    def summary(self) -> dict:
        return self.get("").json

    def play(self, rnd: random.Random, moves: int) -> None:
        """Up to ``moves`` random legal moves (no resigning) while the game runs."""
        for _ in range(moves):
            s = self.summary()
            if s["status"] != "active":
                return
            seat = rnd.choice(s["to_act"])
            legal = [m for m in self.get("/legal", self.tokens[seat]).json["moves"] if m["type"] != "resign"]
            r = self.client.post(f"/v1/games/{self.id}/moves", json={"move": rnd.choice(legal)},
                                 headers=auth(self.tokens[seat]))
            assert r.status_code == 201, r.json


def channels(g, token: str | None, version: int, at: int) -> dict:
    """What ``token`` (None: a spectator) is answered on every channel that reads a
    game, as (status, type, body): each body's text as sent."""
    asks = {"view": ("/view", {}), "view-at": ("/view", {"at": at}),
            "events": ("/events", {"limit": 1000}),
            "long-poll": ("/events", {"after": version - 1, "wait": 5}),  # an event after: answered at once
            "log": ("/log", {"limit": 1000}), "board": ("/board.svg", {}), "board-at": ("/board.svg", {"at": at})}
    out = {}
    for name, (path, query) in asks.items():
        r = g.get(path, token, **query)
        out[name] = (r.status_code, r.mimetype, r.get_data(as_text=True))
    return out


def as_spectator(answers: dict) -> dict:
    """The admin's answers with the viewer the views name put as a spectator's is."""
    out = dict(answers)
    for name in ("view", "view-at"):
        status, kind, body = answers[name]
        assert json.loads(body)["viewer"] == "admin"
        out[name] = (status, kind, body.replace('"viewer":"admin"', '"viewer":"spectator"', 1))
    return out


def view_of(answers: dict) -> dict:
    return json.loads(answers["view"][2])["view"]


@pytest.mark.parametrize(("game", "counts", "options"), GAMES, ids=[g[0] for g in GAMES])
def test_the_admin_of_a_running_game_of_players_sees_what_a_spectator_sees(client, game, counts, options):
    rnd = random.Random(f"blind-{game}")
    g = PlayersGame.opened(client, game, rnd.randint(*counts), options)
    samples, hidden = 0, 0
    for _ in range(3):  # a few positions of each game, a few moves apart
        g.play(rnd, rnd.randint(1, 12))
        version = g.summary()["version"]
        if g.summary()["status"] != "active":
            break
        at = rnd.randint(1, version)
        admin, spectator = channels(g, g.admin, version, at), channels(g, None, version, at)
        assert all(status == 200 for status, _, _ in admin.values()), admin
        assert as_spectator(admin) == spectator  # byte for byte, but for the viewer named
        # what the admin no longer sees is there to see: a seat sees its own cards
        seat = rnd.choice(sorted(g.tokens))
        hidden += g.get("/view", g.tokens[seat]).json["view"] != view_of(spectator)
        for token in (g.admin, g.tokens[seat], None):  # nobody's export while it runs
            r = g.get("/export", token)
            assert r.status_code == 409 and r.json["code"] == "game-running", r.json
            assert r.mimetype == "application/problem+json"
        samples += 1
    assert samples and hidden, "no position of the game held anything hidden to test"
    # over, and its seed revealed: the whole log is anyone's, and everything is open
    seat = rnd.choice(sorted(g.tokens))
    while g.summary()["status"] == "active":  # at three or more, seats leave until one is in
        seat = g.summary()["to_act"][0]
        r = client.post(f"/v1/games/{g.id}/moves", json={"move": {"type": "resign"}},
                        headers=auth(g.tokens[seat]))
        assert r.status_code == 201, r.json
    assert g.summary()["status"] == "finished", g.summary()
    exports = {g.get("/export", token).get_data(as_text=True) for token in (g.admin, g.tokens[seat], None)}
    (whole,) = exports
    assert audit(whole)["valid"] and json.loads(whole.splitlines()[-1])["type"] == "seed-revealed"
    events = g.get("/events", g.admin, limit=1000).json["events"]
    assert [json.dumps(e, sort_keys=True, separators=(",", ":")) for e in events] == whole.splitlines()
    assert g.get("/events", None, limit=1000).json["events"] == events


def test_the_admin_of_a_game_of_players_sees_no_stacked_deck_nor_salt(client, service):
    """A stacked deck is hidden until the game ends from the admin too, in the
    events and in the answers to what an admin does (a clock's pause, a seat
    replaced), and no event's salt is shown to it."""
    from referee.games.king_of_danger.engine import DECK

    deck = list(reversed(DECK))
    g = PlayersGame.opened(client, "king-of-danger", 3, {"deck": deck, "clock": {"move_seconds": 3600}})
    created = g.get("/events", g.admin).json["events"][0]
    assert created["payload"]["options"]["deck"] == "hidden until the game ends"
    assert all(e["salt"] is None for e in g.get("/events", g.admin).json["events"])
    paused = client.post(f"/v1/games/{g.id}/clock", json={"paused": True}, headers=auth(g.admin))
    assert paused.status_code == 201, paused.json
    replaced = client.post(f"/v1/games/{g.id}/seats/1/replace", json={"name": "Stand-in"},
                           headers=auth(g.admin))
    assert replaced.status_code == 201, replaced.json
    aborted = client.post(f"/v1/games/{g.id}/abort", json={}, headers=auth(g.admin))
    assert aborted.status_code == 201, aborted.json
    for answer in (paused.json, replaced.json, aborted.json):  # the admin manages blind
        assert answer["events"] and all(e["salt"] is None for e in answer["events"]), answer
    whole = g.get("/export").get_data(as_text=True)  # aborted, its seed revealed: anyone's
    assert json.loads(whole.splitlines()[0])["payload"]["options"]["deck"] == deck


def test_a_leagues_admin_token_manages_its_games_blind(client):
    """Every league game is a game of players, created with the league's admin
    token: the organiser sees of a running game what a spectator sees."""
    from tests.leagues.test_leagues_http import create, players

    humans = players(client, 2, bot=None)
    league = create(client, humans, format="round-robin")
    gid = client.get(f"/v1/leagues/{league['id']}").json["rounds"][0]["games"][0]["game"]
    g = PlayersGame(client, gid, league["admin_token"], {})
    version = g.summary()["version"]
    admin, spectator = channels(g, g.admin, version, 1), channels(g, None, version, 1)
    assert as_spectator(admin) == spectator
    assert any(g.get("/view", p["token"]).json["view"] != view_of(spectator) for p in humans)
    r = g.get("/export", g.admin)
    assert r.status_code == 409 and r.json["code"] == "game-running"
    # the organiser still manages the game: it may abort it, and then the log is anyone's
    r = client.post(f"/v1/games/{gid}/abort", json={}, headers=auth(g.admin))
    assert r.status_code == 201 and g.get("/export").status_code == 200


def test_a_game_with_a_seat_given_by_name_stays_its_creators_table(client):
    ann = register(client, name="Ann")
    r = client.post("/v1/games", json={"game": "king-of-danger", "players": [{"player": ann["id"]}, "Bob"]},
                    headers=auth(ann["token"]))
    assert r.status_code == 201, r.json
    gid, admin = r.json["id"], r.json["admin_token"]
    view = client.get(f"/v1/games/{gid}/view", headers=auth(admin)).json
    spectator = client.get(f"/v1/games/{gid}/view").json
    assert view["viewer"] == "admin" and view["view"] != spectator["view"]  # every hand
    events = client.get(f"/v1/games/{gid}/events", headers=auth(admin)).json["events"]
    assert all(e["salt"] for e in events)
    r = client.get(f"/v1/games/{gid}/export", headers=auth(admin))
    assert r.status_code == 200 and audit(r.get_data(as_text=True))["valid"]
    r = client.get(f"/v1/games/{gid}/export")
    assert r.status_code == 403 and r.json["code"] == "forbidden"  # the admin's alone, as before


def older_game_of_players(service, game: str = "king-of-danger") -> tuple[str, str]:
    """A game every seat of which is a player's, made by the engine version before
    games of players (its first event says so), written into the store as such a
    game was; returns its id and admin token."""
    eng = engine_by_name(game)
    gid, seed, salt_key, admin = "olderplayers", "older-seed", "older-salt-key", new_token()
    names, ids = ["Ann", "Bob"], ["p-ann", "p-bob"]
    payload = Table.created_payload(game, gid, names, {}, seed, False, accounts=dict(enumerate(ids)))
    payload["engine_version"] = eng.players_since - 1
    first = chain([Draft("game-created", payload)], REFEREE, 1, GENESIS, None, salt_key)[0]
    table = Table.from_created(first)
    assert not table.of_players
    log = table.settle_all(seed, salt_key=salt_key)
    record = GameRecord(gid, game, first.at, names, {token_hash(admin): ADMIN}, seed,
                        status="settling", version=1, salt_key=salt_key)
    service.store.create(record, first)
    service.store.append(gid, 1, log, status=table.status, to_act=table.to_act())
    return gid, admin


def test_an_older_game_of_players_keeps_the_admin_who_sees_everything(client, service):
    gid, admin = older_game_of_players(service)
    view = client.get(f"/v1/games/{gid}/view", headers=auth(admin)).json
    spectator = client.get(f"/v1/games/{gid}/view").json
    assert view["status"] == "active" and view["view"] != spectator["view"]
    events = client.get(f"/v1/games/{gid}/events", headers=auth(admin)).json["events"]
    assert all(e["salt"] for e in events)
    r = client.get(f"/v1/games/{gid}/export", headers=auth(admin))
    assert r.status_code == 200
    report = audit(r.get_data(as_text=True))
    assert report["valid"] and report["first_error"] is None, report
    assert client.get(f"/v1/games/{gid}/export").status_code == 403


def test_the_operators_backup_copies_a_running_game_of_players(client, service):
    """`referee export` reads the store the operator keeps (a backup), not the API."""
    g = PlayersGame.opened(client, "king-of-danger", 2)
    assert g.get("/export", g.admin).status_code == 409
    whole = service.whole_log(g.id)
    assert whole.splitlines() == service.store.raw_events(g.id) and audit(whole)["valid"]


def test_the_organisers_notices_of_a_game_of_players_say_what_a_spectator_sees(client, service, smtp):
    """The organiser (a league's, or the admin who set a contact) is told of a
    seat's timeout in the words a spectator could read: the spectator's text, and
    no line that only a seat's own view has."""
    import time

    from freezegun import freeze_time

    from referee import timeouts
    from referee.mail import sending
    from tests.test_timeouts import T0, at

    with freeze_time(T0):
        g = PlayersGame.opened(client, "king-of-danger", 3, {"clock": {"move_seconds": 3600, "on_timeout": "remind"}})
        r = client.put(f"/v1/games/{g.id}/organiser", json={"email": "org@league.example"},
                       headers=auth(g.admin))
        assert r.status_code == 200, r.json
    with freeze_time(at(3600)):
        timeouts.tick(service, g.id)
    sending.deliver_due(service, time.time() + 1)
    (told,) = smtp.inbox.to("org@league.example")
    text = told.get_content().replace("\r\n", "\n")
    assert "ran out of time" in text
    spectator = g.get("/view").json["text"]
    assert spectator in text and g.get("/view", g.admin).json["text"] == spectator
    for token in g.tokens.values():
        own = set(g.get("/view", token).json["text"].splitlines()) - set(spectator.splitlines())
        assert own and not any(line in text for line in own), own


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    from tests import browser as kit

    for url, client, _app in kit.serve(tmp_path_factory):
        yield url, client


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    from tests import browser as kit

    yield from kit.chromium(tmp_path_factory)


def test_the_game_page_with_the_admin_token_shows_the_spectators_game(site, browser):
    """``/games/{id}#token=ADMIN`` of a running game of players: the page's text,
    picture and log as a spectator's page has them, no hand drawn."""
    from tests.browser import wait

    url, client = site
    g = PlayersGame.opened(client, "king-of-danger", 3)
    g.play(random.Random(5), 4)
    spectator = g.get("/view").json["text"]
    browser.get(f"{url}/games/{g.id}#token={g.admin}")
    wait(browser, lambda d: "organiser" in d.find_element("id", "seen-as").text)
    wait(browser, lambda d: len(d.find_elements("css selector", "#log li")) == g.summary()["version"])
    assert browser.find_element("id", "text").text == spectator.strip()
    hand = "return document.querySelectorAll('#picture .hand-card').length"
    assert browser.execute_script(hand) == 0
    # each line's own text (its mark of the transparency log follows it)
    lines = browser.execute_script("return Array.from(document.querySelectorAll('#log li'), "
                                   "function (li) { return li.firstChild.textContent; })")
    assert lines == [line["text"] for line in g.get("/log", limit=1000).json["lines"]]
    browser.get(f"{url}/games/{g.id}#token={g.tokens[0]}")  # a seat's page draws its hand
    wait(browser, lambda d: "seat 0" in d.find_element("id", "seen-as").text)
    assert browser.execute_script(hand) > 0
