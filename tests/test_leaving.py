"""Leaving a game of three or more (docs/api.md, "Leaving a game"): a resignation,
or a timeout on ``forfeit``, takes the seat out while the others play on; the
basic bot plays its turns, re-derived by the audit; it cannot win; the result,
ratings and league placings put the leavers last, the later above the earlier.
Games created before the house rule ``on_resign`` end at once, as they did."""

from __future__ import annotations

import json
import random

import pytest

from referee.audit import audit
from referee.autoplay import new_table, play
from referee.bots import candidates
from referee.events import GENESIS, REFEREE, Draft, chain
from referee.games import engine
from referee.games.base import IllegalMove
from referee.leagues import scoring
from referee.mail import sending
from referee.narration import moment, named
from referee.players import ratings, results
from referee.players.store import open_players
from referee.store import GameRecord
from referee.table import Table
from tests.helpers import Game
from tests.test_audit import reseal

SEED = "leaving-seed"
# Each multi-seat game at a table where two seats may leave and two stay in.
TABLES = {"king-of-danger": 4, "king-of-the-castle": 4, "kings-keys": 4}


def export(log) -> str:
    return "".join(ev.to_json() + "\n" for ev in log)


def play_random(table, log, rnd: random.Random, moves: int, leave=None) -> None:
    """``moves`` random bot-like moves by the seats to act (fewer if the game ends);
    ``leave``: {move number: seat} resignations made along the way."""
    for n in range(moves):
        if table.over:
            return
        if leave and n in leave:
            play(table, leave[n], {"type": "resign"}, SEED, log)
            continue
        seat = rnd.choice(table.to_act())
        play(table, seat, rnd.choice(candidates(table.engine, table.state, seat)), SEED, log)


def to_the_end(table, log, rnd: random.Random) -> None:
    play_random(table, log, rnd, 20000)
    assert table.over, "the game did not end"


def created_as(game: str, players: int, options: dict, version: int | None = None):
    """A game's first event as engine version ``version`` wrote it (today's when None):
    without the house rules added since, which it could not name."""
    names = [f"p{i}" for i in range(players)]
    made = Table.created_event(game, "g-leave", names, options, SEED, False)
    if version is None:
        return made
    eng = engine(game)
    payload = {**made.payload, "engine_version": version,
               "options": eng.options_as_logged(made.payload["options"], options, version)}
    return chain([Draft("game-created", payload)], REFEREE, 1, GENESIS, made.at, SEED)[0]


@pytest.mark.parametrize("game", list(TABLES))
def test_a_resignation_mid_game_takes_the_seat_out_and_the_others_play_to_the_end(game):
    rnd = random.Random(game)
    table, log = new_table(game, TABLES[game], {}, SEED)
    assert table.state.options["on_resign"] == "play-on"
    play_random(table, log, rnd, 12)
    resigned = play(table, 1, {"type": "resign"}, SEED, log)
    # the game goes on: seat 1 is out, no result, the others still to play
    assert resigned[0].type == "resigned" and "result" not in resigned[0].payload
    assert not table.over and table.status == "active" and table.state.left == (1,)
    assert 1 not in table.to_act()
    view = table.engine.view(table.state, 0)
    assert view["left"] == [1] and view["on_resign"] == "play-on"
    # a seat that left has no move of its own any more, and a refusal changes nothing
    before = (table.seq, table.state.left)
    with pytest.raises(IllegalMove) as refused:
        table.propose(1, [{"type": "resign"}], seed=SEED)
    assert refused.value.rule == "left" and (table.seq, table.state.left) == before
    at_leaving = len(log)
    to_the_end(table, log, rnd)
    # the referee made seat 1's moves since (written as the seat's, as a bot seat's)
    assert any(ev.actor == 1 and "move" in ev.payload for ev in log[at_leaving:])
    result = table.state.result
    assert result["left"] == [1] and 1 not in result["winners"] and result["winners"]
    assert "seat 1 left the game" in result["reason"]
    places = ratings.placings(result, TABLES[game])
    assert places[1] == max(places) and places.count(places[1]) == 1  # last, alone
    assert scoring.placings(result, TABLES[game], [1])[1] == TABLES[game]
    log += table.settle_all(SEED)  # the seed's reveal
    report = audit(export(log))
    assert report["valid"], report["first_error"]
    assert report["result"] == result and report["seed"] == "verified"


@pytest.mark.parametrize("game", list(TABLES))
def test_two_leavers_are_placed_last_the_later_above_the_earlier(game):
    rnd = random.Random(f"{game}-two")
    table, log = new_table(game, TABLES[game], {}, SEED)
    play_random(table, log, rnd, 30, leave={5: 2, 17: 0})
    assert table.state.left == (2, 0)
    to_the_end(table, log, rnd)
    result = table.state.result
    assert result["left"] == [2, 0] and not {0, 2} & set(result["winners"])
    # seat 2 left first: last; seat 0, who left later, above it
    places = ratings.placings(result, 4)
    assert places[2] == 4 and places[0] == 3 and max(places[1], places[3]) <= 2
    league = scoring.placings(result, 4, [2, 0])
    assert league[2] == 4 and league[0] == 3 and max(league[1], league[3]) <= 2
    log += table.settle_all(SEED)
    assert audit(export(log))["valid"]


def test_the_last_seat_still_in_wins_at_once():
    table, log = new_table("kings-keys", 3, {}, SEED)
    play_random(table, log, random.Random(3), 4)
    play(table, 2, {"type": "resign"}, SEED, log)
    assert not table.over
    ended = play(table, 0, {"type": "resign"}, SEED, log)
    assert table.over and ended[0].type == "resigned"
    result = table.state.result
    assert result["winners"] == [1] and result["left"] == [2, 0]
    assert result["reason"] == "seat 1 is the last seat still in"
    assert ratings.placings(result, 3) == [2, 1, 3]
    assert scoring.placings(result, 3, [2, 0]) == [2, 1, 3]
    names = ["Ann", "Bob", "Cy"]
    assert named(table.engine.narrate(ended[0], names), names) == \
        f"Ann resigns and leaves the game ({moment(ended[0].at)}); Bob is the last seat still in and wins"
    log += table.settle_all(SEED)
    assert audit(export(log))["valid"]


def test_the_log_in_words_says_who_left():
    table, log = new_table("king-of-the-castle", 3, {}, SEED)
    play_random(table, log, random.Random(5), 6)
    left = play(table, 1, {"type": "resign"}, SEED, log)
    words = table.engine.narrate(left[0], ["Ann", "Bob", "Cy"])
    assert words == (f"Bob resigns and leaves the game ({moment(left[0].at)}): the referee plays the seat "
                     "from now on, and it can no longer win")
    for seat in (None, 0):  # the position as text says it too, to anyone
        assert "Left the game (the referee plays their seats): p1" in table.engine.render(table.state, seat)


@pytest.mark.parametrize("back", [1, 0])
@pytest.mark.parametrize("game", list(TABLES))
def test_a_game_created_before_the_house_rule_still_ends_at_once(game, back):
    """An older engine version's game, and one of today's version created before the
    rule (its first event does not name ``on_resign``), end at the resignation."""
    eng = engine(game)
    first = created_as(game, 3, {}, version=eng.version - back)
    assert "on_resign" not in first.payload["options"]
    table = Table.from_created(first)
    assert table.state.options["on_resign"] == "end"
    log = [first] + table.settle_all(SEED)
    play_random(table, log, random.Random(game), 8)
    play(table, 1, {"type": "resign"}, SEED, log)
    assert table.over and table.state.left == ()
    result = table.state.result
    assert result["reason"] == "seat 1 resigned" and 1 not in result["winners"] and "left" not in result
    log += table.settle_all(SEED)
    assert audit(export(log))["valid"]


@pytest.mark.parametrize("game", list(TABLES))
def test_on_resign_end_ends_the_game_at_once_as_before(game):
    table, log = new_table(game, 3, {"on_resign": "end"}, SEED)
    play_random(table, log, random.Random(game), 8)
    play(table, 2, {"type": "resign"}, SEED, log)
    assert table.over and table.state.result["reason"] == "seat 2 resigned"
    assert "left" not in table.state.result


def test_at_a_table_of_two_a_resignation_ends_the_game_as_ever():
    table, log = new_table("king-of-danger", 2, {}, SEED)
    play(table, 0, {"type": "resign"}, SEED, log)
    assert table.over and table.state.result["winners"] == [1]
    assert table.state.result["reason"] == "seat 0 resigned" and "left" not in table.state.result


def test_a_timeout_on_forfeit_takes_the_seat_out_the_same_way():
    clock = {"move_seconds": 3600, "on_timeout": "forfeit"}
    table, log = new_table("kings-keys", 3, {"clock": clock}, SEED)
    seat = table.to_act()[0]
    events, fork = table.propose_timeout(seat, "2099-01-01T00:00:00.000000Z", seed=SEED)
    table.commit(fork)
    log += events + table.settle_all(SEED)
    forfeited = [ev for ev in log if ev.type == "forfeited"]
    assert len(forfeited) == 1 and "result" not in forfeited[0].payload
    assert not table.over and table.state.left == (seat,) and seat not in table.owed
    to_the_end(table, log, random.Random(9))
    assert table.state.result["left"] == [seat] and seat not in table.state.result["winners"]
    log += table.settle_all(SEED)
    assert audit(export(log))["valid"]


def test_the_audit_re_derives_the_moves_made_for_a_seat_that_left():
    table, log = new_table("kings-keys", 3, {}, SEED)
    rnd = random.Random(11)
    play_random(table, log, rnd, 3)
    play(table, 0, {"type": "resign"}, SEED, log)
    to_the_end(table, log, rnd)
    log += table.settle_all(SEED)
    lines = [json.loads(ev.to_json()) for ev in log]
    # the first move the referee made for seat 0 after it left, swapped for another
    # legal one: a forger's change, caught where it was made
    start = next(i for i, d in enumerate(lines) if d["type"] == "resigned")
    at = next(i for i in range(start + 1, len(lines)) if lines[i]["actor"] == 0 and "move" in lines[i]["payload"])
    replay = Table.replay(log[:at])
    moves = [m for m in candidates(replay.engine, replay.state, 0) if m != lines[at]["payload"]["move"]]
    assert moves, "seat 0 had one move only"
    forged = replay.engine.decide(replay.state, 0, moves[0])
    for k, draft in enumerate(forged[:1]):
        lines[at + k] = {**lines[at + k], "type": draft.type, "payload": draft.payload}
    report = audit(reseal(lines))
    assert not report["valid"] and report["first_error"]["seq"] == lines[at]["seq"]


@pytest.mark.parametrize("game", list(TABLES))
def test_the_leaver_is_rated_last(game):
    table, log = new_table(game, 3, {}, SEED)
    first = log[0]
    payload = {**first.payload, "seats": [{**s, "player": f"pl{s['seat']}"} for s in first.payload["seats"]]}
    first = chain([Draft("game-created", payload)], REFEREE, 1, GENESIS, first.at, SEED)[0]
    table = Table.from_created(first)
    log = [first] + table.settle_all(SEED)
    rnd = random.Random(4)
    play_random(table, log, rnd, 10, leave={3: 2})
    to_the_end(table, log, rnd)
    log += table.settle_all(SEED)
    out = ratings.outcome(log)
    made = ratings.plan(out, {})
    by_seat = {e["seat"]: e for e in made["players"]}
    assert by_seat[2]["place"] == 3 and not by_seat[2]["won"]
    assert by_seat[2]["left_at"] == next(ev.at for ev in log if ev.type == "resigned")
    assert "left_at" not in by_seat[0] and "left_at" not in by_seat[1]
    after = ratings.recompute([log])
    assert after["pl2"][game]["ordinal"] < min(after[p][game]["ordinal"] for p in ("pl0", "pl1"))


def test_through_the_api_the_leaver_gets_a_receipt_and_no_move_and_the_others_hear_of_it(
        client, service, smtp):
    players = [{"name": "Ann", "email": "ann@example.org"}, {"name": "Bob", "email": "bob@example.org"},
               {"name": "Cy", "email": "cy@example.org"}]
    g = Game(client, "kings-keys", players, {"seed": "leaving-api"})
    sending.deliver_due(service)
    before = len(smtp.inbox.messages)
    leaver = next(s for s in range(3) if s not in g.summary()["to_act"])
    r = g.post(leaver, {"move": {"type": "resign"}})
    assert r.status_code == 201 and r.json["receipt"]["seq"] == r.json["version"]
    s = g.summary()
    assert s["status"] == "active" and s["result"] is None
    assert g.get("/view", 0).json["view"]["left"] == [leaver]
    assert g.legal(leaver) == []
    # the leaver's move is refused by name and changes nothing
    version = g.summary()["version"]
    refused = g.post(leaver, {"move": {"type": "resign"}})
    assert refused.status_code == 422 and refused.json["rule"] == "left"
    assert "receipt" not in refused.json and g.summary()["version"] == version
    # the others are told who left, as they read it
    sending.deliver_due(service)
    names = ["Ann", "Bob", "Cy"]
    told = smtp.inbox.since(before)
    for seat in range(3):
        if seat == leaver:
            continue
        mails = [m for m in told if f"{names[seat].lower()}@example.org" in str(m["To"])]
        assert mails, f"{names[seat]} heard nothing"
        text = mails[-1].get_content()
        assert f"{names[leaver]} has left the game: the referee plays their seat from now on" in text, text
    # played to the end: the leaver does not win and is placed last
    end = g.play_random(random.Random(2))
    assert end["status"] == "finished" and leaver not in end["result"]["winners"]
    assert end["result"]["left"] == [leaver]
    assert audit(g.export())["valid"]


def _scored(players: int, left: tuple, scores: list[int]):
    """A King of Danger state just after a hand scored to ``scores`` (target 31),
    with ``left`` the seats that left."""
    eng = engine("king-of-danger")
    state = eng.start(created_as("king-of-danger", players, {}).payload)
    state.left, state.hands_dealt, state.phase = left, 3, "score"
    return eng, eng.evolve(state, Draft("hand-scored", {"hand": 3, "trackers": [0] * players,
                                                        "scores": scores}))


def test_king_of_danger_ends_when_the_highest_score_of_the_seats_still_in_stands_alone():
    # seats 0 and 2 tie at the top, but seat 2 left: seat 0 alone leads those still in
    eng, state = _scored(3, (2,), [31, 20, 31])
    assert state.phase == "end"
    result = eng.settle(state, None)[0].payload["result"]
    assert result["winners"] == [0] and result["left"] == [2]
    # the seat that left reached the target, and the two still in tie: another hand
    eng, state = _scored(3, (2,), [25, 25, 32])
    assert state.phase == "deal"
    # nobody left: a tie at the top is another hand, as ever
    eng, state = _scored(3, (), [31, 20, 31])
    assert state.phase == "deal"


def test_the_rating_history_says_when_the_leaver_left(store):
    """Recorded through the players' store (SQLite and Redis): the leaver's entry has
    ``left_at``, the moment of its resignation, and the lowest place."""
    table, log = new_table("kings-keys", 3, {}, SEED, game_id="g-left")
    first = log[0]
    payload = {**first.payload, "seats": [{**s, "player": f"pl{s['seat']}"} for s in first.payload["seats"]]}
    first = chain([Draft("game-created", payload)], REFEREE, 1, GENESIS, first.at, SEED)[0]
    table = Table.from_created(first)
    log = [first] + table.settle_all(SEED)
    rnd = random.Random(6)
    play_random(table, log, rnd, 10, leave={2: 1})
    to_the_end(table, log, rnd)
    log += table.settle_all(SEED)
    store.create(GameRecord("g-left", "kings-keys", first.at, ["p0", "p1", "p2"], {}, SEED,
                            status="settling", version=1), first)
    store.append("g-left", 1, log[1:], status="finished")
    players = open_players(store)
    made = results.rate_game(store, players, "g-left")
    assert made["rated"] is True
    left_at = next(ev.at for ev in log if ev.type == "resigned")
    (entry,) = players.history("pl1", "kings-keys")
    assert entry["left_at"] == left_at and entry["place"] == 3
    assert all("left_at" not in e for p in ("pl0", "pl2") for e in players.history(p, "kings-keys"))
