"""The league's page as an organiser of friends reads it: places that read as
places, a legend, the winner named, a sentence where the rating picture would be
empty axes, and a word on why players share a place."""

from __future__ import annotations

import re

from referee.leagues import League, running
from referee.leagues import pages as league_pages

from .helpers import force_results
from .test_leagues_http import create, players

NAMES = {"w": "Wyn", "x": "Xan", "y": "Yul", "z": "Zed"}
# Wyn beats Xan, Xan beats Yul, Yul beats Wyn: three level on points, and the
# head-to-head among the three of them (each beat one of the others) parts nobody;
# Sonneborn-Berger and games won are level too. Zed loses every game.
BEATS = {("w", "x"), ("x", "y"), ("y", "w")}


def cycle() -> League:
    league, _ = League.create("cycle", "cycle-seed", name="Friday league", game="castle-danger",
                              format="round-robin", players=[{"player": p, "name": n} for p, n in NAMES.items()])

    def placed(seats):
        a, b = seats
        first = a if b == "z" or (a, b) in BEATS else b
        return [1 if p == first else 2 for p in seats]

    league.apply(league.propose_pairing("cycle-seed", lambda r, t: f"c{r}.{t}"))
    while not league.state.finished:
        force_results(league, placed)
        if league.due() == "pair-round":
            league.apply(league.propose_pairing("cycle-seed", lambda r, t: f"c{r}.{t}"))
        elif league.due() == "finish":
            league.apply(league.propose_step())
    return league


def page_of(client, monkeypatch, league: League) -> str:
    """The page of a league written by hand (results recorded as scripted, no games
    played): the page reads it as it reads a stored one."""
    meta = {"name": "Friday league", "game": "castle-danger", "format": "round-robin",
            "status": "finished" if league.state.finished else "running", "created_at": "2026-11-27T00:00:00Z"}
    monkeypatch.setattr(league_pages, "_view", lambda league_id: running.view_of(league_id, meta, league))
    r = client.get("/leagues/cycle")
    assert r.status_code == 200
    return r.text


def text_of(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_a_shared_first_place_is_explained_and_the_winners_named(client, monkeypatch):
    league = cycle()
    standings = running.view_of("cycle", {"name": "", "game": "", "format": "", "status": "",
                                          "created_at": ""}, league)["standings"]
    assert [(s["name"], s["rank"]) for s in standings][-1] == ("Zed", 4)
    assert {s["name"] for s in standings if s["rank"] == 1} == {"Wyn", "Xan", "Yul"}
    text = text_of(page_of(client, monkeypatch, league))
    first = [s["name"] for s in standings if s["rank"] == 1]
    names = f"{first[0]}, {first[1]} and {first[2]}"
    assert f"Friday league is over. {names} share first place." in text
    assert f"{names} share the 1st place (1=): level on points, and on head-to-head (what each scored in the games " \
        "among all the players level on points with them), Sonneborn-Berger and games won alike" in text
    assert text.count(" 1= ") == 3  # the place column marks it
    assert "head-to-head (only the games among the players level on points" in text  # the legend
    # the games' places read as places, never as scores: "Wyn 1st · Zed 2nd"
    assert re.search(r"Wyn 1st · Zed 2nd|Zed 2nd · Wyn 1st", text), text
    assert not re.search(r"\(\d\)", text)
    assert "1st won" in text  # the rounds' legend


def test_one_winner_is_named_and_no_place_is_explained_when_none_is_shared(client, monkeypatch):
    league, _ = League.create("one", "one-seed", name="Friday league", game="castle-danger",
                              format="round-robin", players=[{"player": p, "name": n} for p, n in NAMES.items()])
    order = list("wxyz")

    def placed(seats):
        return [1 if order.index(p) < order.index(q) else 2 for p, q in (seats, seats[::-1])]

    league.apply(league.propose_pairing("one-seed", lambda r, t: f"o{r}.{t}"))
    while not league.state.finished:
        force_results(league, placed)
        if league.due() == "pair-round":
            league.apply(league.propose_pairing("one-seed", lambda r, t: f"o{r}.{t}"))
        elif league.due() == "finish":
            league.apply(league.propose_step())
    text = text_of(page_of(client, monkeypatch, league))
    assert "Friday league is over. Wyn wins the league." in text
    assert "share the" not in text


def test_before_any_game_a_sentence_stands_where_the_rating_picture_would_be_empty(client):
    league = create(client, players(client, 4, bot=None), name="Friday league")
    html = client.get(f"/leagues/{league['id']}").text
    assert "No league game has been rated yet" in html and "ratings.svg" not in html
    assert "Friday league is over" not in html and "share the" not in html  # everyone level at 0: nothing to explain yet
