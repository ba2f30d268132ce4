"""A league's terms: every refusal is a MalformedMove naming its field; defaults
are completed as docs/leagues.md says."""

from __future__ import annotations

import pytest

from referee.games.base import MalformedMove
from referee.leagues import League, league_terms, seat_counts

from .helpers import players


def terms(**over):
    base = {"name": "Autumn", "game": "castle-danger", "options": {}, "format": "round-robin",
            "players": players(4)}
    return {**base, **over}


def refused(field: str, **over) -> str:
    with pytest.raises(MalformedMove) as err:
        league_terms(**terms(**over))
    assert err.value.extra["field"] == field, err.value.detail
    assert err.value.code == "malformed" and err.value.status == 400
    return err.value.detail


def test_a_round_robin_is_completed_with_its_defaults():
    t = league_terms(**terms())
    assert t["cycles"] == 1 and t["rounds"] is None and t["table_size"] is None
    assert t["points"] == {"win": 1, "draw": 0.5, "loss": 0}
    assert t["seat_counts"] == [2] and t["clock"] is None


def test_swiss_defaults_to_enough_rounds_for_one_winner():
    assert league_terms(**terms(format="swiss", players=players(9)))["rounds"] == 4
    assert league_terms(**terms(format="swiss", players=players(8)))["rounds"] == 3
    assert league_terms(**terms(format="swiss", players=players(2)))["rounds"] == 1


def test_tables_default_to_four_seats_where_the_game_allows_it():
    t = league_terms(**terms(game="kings-keys", format="tables", players=players(7)))
    assert t["table_size"] == 4 and t["seat_counts"] == [3, 4] and t["rounds"] == 3
    t = league_terms(**terms(game="king-of-the-castle", format="tables", players=players(7),
                             options={"squires": "letters"}))
    assert t["seat_counts"] == [3, 4, 5, 6]  # letters need 2 to 6 seats


def test_the_clock_is_every_games_and_completed():
    t = league_terms(**terms(clock={"move_seconds": 86400}))
    assert t["clock"] == {"move_seconds": 86400, "remind_seconds": 0, "on_timeout": "remind"}
    refused("options.clock.move_seconds", clock={"move_seconds": 1})


def test_an_unknown_format_is_refused():
    assert "round-robin, swiss, tables" in refused("format", format="knockout")


def test_a_format_the_games_player_count_cannot_take_is_refused():
    assert "three or more" in refused("format", format="tables")  # castle-danger: 2 only
    assert "two by two" in refused("format", game="kings-keys", format="swiss")
    refused("format", game="kings-keys", format="round-robin")


def test_an_unknown_game_is_refused():
    refused("game", game="chess")
    refused("game", game=3)


def test_duplicate_players_are_refused():
    detail = refused("players[2]", players=players(2) + [{"player": "p0", "name": "Again"}])
    assert "'p0'" in detail


def test_too_few_players_are_refused():
    refused("players", players=players(1))
    refused("players", game="kings-keys", format="tables", players=players(2))


def test_players_must_be_ids_and_names():
    refused("players", players="p0,p1")
    refused("players[1]", players=[{"player": "a", "name": "A"}, "b"])
    refused("players[0].name", players=[{"player": "a", "name": " "}, {"player": "b", "name": "B"}])
    refused("players[0].player", players=[{"player": 7, "name": "A"}, {"player": "b", "name": "B"}])
    refused("players", players=players(1001))


def test_bad_rounds_are_refused():
    refused("rounds", format="swiss", rounds=0)
    refused("rounds", format="swiss", rounds=101)
    refused("rounds", format="swiss", rounds=True)
    refused("rounds", format="swiss", rounds=2.0)
    refused("rounds", rounds=3)  # a round-robin's rounds follow from its players


def test_bad_table_sizes_are_refused():
    kk = {"game": "kings-keys", "format": "tables", "players": players(8)}
    refused("table_size", **kk, table_size=5)
    refused("table_size", **kk, table_size=2)
    refused("table_size", **kk, table_size="4")
    refused("table_size", table_size=2)  # not a tables league
    # King of the Castle by letters: 2 to 6 seats, so not 7 though the game takes 8
    refused("table_size", game="king-of-the-castle", format="tables", players=players(8),
            options={"squires": "letters"}, table_size=7)


def test_bad_cycles_are_refused():
    refused("cycles", cycles=0)
    refused("cycles", cycles=5)
    refused("cycles", format="swiss", cycles=2)


def test_bad_points_are_refused():
    refused("points", points=[1, 0.5, 0])
    refused("points.bonus", points={"bonus": 1})
    refused("points.win", points={"win": "1"})
    refused("points.win", points={"win": float("inf")})
    refused("points.loss", points={"loss": -1})
    refused("points.draw", points={"draw": 2})  # more than a win
    refused("points.win", points={"win": 0, "draw": 0})
    assert league_terms(**terms(points={"win": 3, "draw": 1}))["points"] == {
        "win": 3, "draw": 1, "loss": 0}


def test_options_the_league_decides_are_refused():
    for key in ("seed", "deck", "first_player", "first_dealer", "clock"):
        refused(f"options.{key}", game="king-of-danger", options={key: 1})


def test_the_games_own_refusals_name_the_option():
    refused("options.target", game="king-of-danger", options={"target": "many"})
    refused("options.edition", options={"edition": "1st"})
    refused("options", options=[1])


def test_a_name_is_needed():
    refused("name", name="")
    refused("name", name="x" * 101)


def test_seat_counts_follow_the_options():
    assert seat_counts("king-of-the-castle", {}) == list(range(2, 9))
    assert seat_counts("king-of-the-castle", {"squires": "letters"}) == list(range(2, 7))
    with pytest.raises(MalformedMove) as err:
        seat_counts("nope", {})
    assert err.value.extra["field"] == "game"


def test_creating_a_league_refuses_as_its_terms_do_and_writes_nothing():
    with pytest.raises(MalformedMove):
        League.create("L", "seed", **terms(format="swiss", rounds=-1))
    league, created = League.create("L", "seed", **terms())
    assert created.seq == 1 and created.payload["id"] == "L"
