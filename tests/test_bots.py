"""Bots: legal moves only, reproducible from the seed, blind to what the seat
cannot see."""

from __future__ import annotations

import copy
import random

import pytest

from referee import bots
from referee.autoplay import new_table, play
from referee.rng import Rng

GAMES = [("king-of-danger", 4), ("king-of-danger", 2), ("castle-danger", 2),
         ("king-of-the-castle", 4), ("kings-keys", 3), ("kings-keys", 4)]


def bot_game(game, players, kinds, seed="bot-seed", on_turn=None, max_moves=20000, options=None):
    table, log = new_table(game, players, options, seed=seed)
    for _ in range(max_moves):
        if table.over:
            return table, log
        seat = table.to_act()[0]
        rng = Rng(seed, len(log) + 1)
        move = bots.choose(kinds[seat], table, seat, rng)
        if on_turn:
            on_turn(table, seat, kinds[seat], move)
        play(table, seat, move, seed, log)
    raise AssertionError("game did not end")


@pytest.mark.parametrize("game,players", GAMES)
def test_bots_play_legal_moves_to_the_end_and_never_resign(game, players):
    kinds = ["basic", "random"] * players

    def check(table, seat, kind, move):
        assert move["type"] != "resign"
        assert move in table.engine.legal(table.state, seat)

    table, _ = bot_game(game, players, kinds[:players], on_turn=check)
    assert table.state.result["winners"]


@pytest.mark.parametrize("kind", bots.KINDS)
def test_the_same_log_and_seed_give_the_same_move(kind):
    table, log = new_table("kings-keys", 3, seed="x")
    seat = table.to_act()[0]
    moves = {str(bots.choose(kind, table, seat, Rng("x", len(log) + 1))) for _ in range(5)}
    assert len(moves) == 1
    # another seed may well choose otherwise, but always legally
    other = bots.choose(kind, table, seat, Rng("y", len(log) + 1))
    assert other in table.engine.legal(table.state, seat)


def test_unknown_kind_and_no_move_are_refused():
    table, log = new_table("kings-keys", 3, seed="x")
    with pytest.raises(ValueError):
        bots.choose("clever", table, table.to_act()[0], Rng("x", 1))
    idle = next(s for s in range(3) if s not in table.to_act())
    with pytest.raises(bots.NoMove):
        bots.choose("basic", table, idle, Rng("x", 1))


def _shuffle_hidden(game, state, seat, rnd):
    """The same position as ``seat`` sees it: other seats' hands (and the draw
    pile) dealt otherwise, every size kept."""
    other = copy.deepcopy(state)
    others = [s for s in range(state.players) if s != seat]
    pool = [c for s in others for c in other.hands[s]]
    if game == "kings-keys":
        pool += other.pile
    rnd.shuffle(pool)
    for s in others:
        n = len(other.hands[s])
        other.hands[s], pool = sorted(pool[:n]), pool[n:]
    if game == "kings-keys":
        other.pile = pool
    return other


@pytest.mark.parametrize("game,players", [("king-of-danger", 4), ("king-of-danger", 3),
                                          ("kings-keys", 3), ("kings-keys", 4)])
@pytest.mark.parametrize("kind", bots.KINDS)
def test_a_bot_never_reads_what_its_seat_cannot_see(game, players, kind):
    """Positions that differ only in the other hands and the pile get the same
    move, at every turn of random games."""
    rnd = random.Random(f"{game}{players}{kind}")
    compared = 0
    for g in range(3):
        seed = f"blind-{g}"

        def check(table, seat, _kind, move):
            nonlocal compared
            twin = copy.copy(table)
            twin.state = _shuffle_hidden(game, table.state, seat, rnd)
            assert table.engine.view(twin.state, seat) == table.engine.view(table.state, seat)
            assert bots.choose(kind, twin, seat, Rng("tie", 99)) == bots.choose(
                kind, table, seat, Rng("tie", 99))
            compared += 1

        bot_game(game, players, [kind] * players, seed=seed, on_turn=check)
    assert compared > 50


def _swap_hidden_pieces(state, seat, rnd):
    """The same Hidden Danger position as ``seat`` sees it: each of the opponent's
    hidden pieces made another kind its owner still has in supply (the supply
    taking back the old kind), so the counts shown stay the same."""
    other = copy.deepcopy(state)
    changed = False
    for sq, p in sorted(other.pieces.items()):
        if p["owner"] == seat or not p["hidden"]:
            continue
        supply = other.supply[p["owner"]]
        kinds = [k for k in ("Z", "B", "C") if k != p["kind"] and supply.get(k, 0) > 0]
        if kinds:
            new = rnd.choice(kinds)
            supply[new] -= 1
            supply[p["kind"]] += 1
            other.pieces[sq] = {**p, "kind": new}
            changed = True
    return other, changed


@pytest.mark.parametrize("kind", bots.KINDS)
def test_a_hidden_danger_bot_never_reads_the_opponents_hidden_pieces(kind):
    """Hidden Danger positions that differ only in what the opponent's hidden
    pieces are get the same move, at every action of bot games."""
    rnd = random.Random(f"hidden-{kind}")
    compared = differed = 0
    for g in range(6):
        def check(table, seat, _kind, move):
            nonlocal compared, differed
            twin = copy.copy(table)
            twin.state, changed = _swap_hidden_pieces(table.state, seat, rnd)
            assert table.engine.view(twin.state, seat) == table.engine.view(table.state, seat)
            assert bots.choose(kind, twin, seat, Rng("tie", 99)) == bots.choose(
                kind, table, seat, Rng("tie", 99))
            compared += 1
            differed += changed and twin.state != table.state

        bot_game("castle-danger", 2, ["random", kind], seed=f"hidden-{g}", on_turn=check,
                 options={"variant": "hidden-danger", "turn_limit": 40})
    assert compared > 100
    assert differed > 10, "the games never had two hidden pieces of different kinds to swap"
