"""``Engine.play`` (decide and apply in one pass, an audit's replay) is exactly
``decide`` followed by ``evolve``: the same events, the same state after them, the
same refusal. Checked over random games of every engine, at every step, for a
sample of the moves the seat to act may make, the questions and answers of Castle
Danger, a resignation and moves that must be refused (out of turn, malformed,
off the board)."""

from __future__ import annotations

import copy
import random

import pytest

from referee.autoplay import random_game
from referee.games.base import RefereeError

GAMES = [
    ("castle-danger", 2, {"turn_limit": 6}),
    ("castle-danger", 2, {"turn_limit": 6, "variant": "hidden-danger"}),
    ("king-of-danger", 2, {}),
    ("king-of-the-castle", 3, {}),
    ("king-of-the-castle", 4, {"reactions": "one-per-card", "react_to_own_card": True}),
    ("kings-keys", 3, {}),
    ("kings-keys", 4, {"wild_cards": True, "match": "optional"}),
]

ODD_MOVES = [{"type": "offer-draw"}, {"type": "take-back"}, {"type": "accept"}, {"type": "decline"},
             {"type": "move", "from": "z9", "to": "a1"}, {"type": "nonsense"}, {"type": 3}, "end",
             {"type": "end", "extra": 1}, {"type": "resign", "why": "no"}]


def _written_otherwise(move):
    """The same move written as a player may write it (a card code in small letters
    or padded, a field too many, a card that is no string): King's Keys reads the
    common shape of a play without normalize's checks, and these must still go
    through them."""
    if not isinstance(move, dict) or not isinstance(move.get("card"), str):
        return []
    card = move["card"]
    return [{**move, "card": card.lower()}, {**move, "card": f" {card}"}, {**move, "extra": 1},
            {**move, "card": [card]}, {"card": card, "type": "play"}]


def _outcome(call):
    try:
        return "ok", call()
    except RefereeError as err:
        return "refused", (type(err), err.code, err.detail, err.extra)


def _same_as_decide_then_evolve(engine, state, seat, move):
    want = _outcome(lambda: engine.decide(copy.deepcopy(state), seat, copy.deepcopy(move)))
    got = _outcome(lambda: engine.play(copy.deepcopy(state), seat, copy.deepcopy(move)))
    assert got[0] == want[0], (move, got, want)
    if want[0] == "refused":
        assert got[1] == want[1], move
        return
    after, drafts = got[1]
    assert [(d.type, d.payload) for d in drafts] == [(d.type, d.payload) for d in want[1]], move
    evolved = copy.deepcopy(state)
    for draft in want[1]:
        evolved = engine.evolve(evolved, copy.deepcopy(draft))
    assert after == evolved, move


@pytest.mark.parametrize(("game", "players", "options"), GAMES, ids=lambda v: str(v))
def test_play_is_decide_then_evolve(game, players, options):
    rnd = random.Random(f"play-{game}-{options}")
    checked = {"ok": 0}

    def on_step(table, _log):
        if table.over or table.due() is not None:
            return
        engine, state = table.engine, table.state
        acting = table.to_act()
        for seat in range(players):
            moves = engine.legal(state, seat) if seat in acting else []
            sample = rnd.sample(moves, min(4, len(moves))) + rnd.sample(ODD_MOVES, 2)
            sample += [odd for move in sample[:1] for odd in _written_otherwise(move)]
            if seat not in acting and acting:  # another seat's move, out of turn
                sample += engine.legal(state, acting[0])[:1]
            for move in sample:
                _same_as_decide_then_evolve(engine, state, seat, move)
                checked["ok"] += 1

    random_game(game, players, options, seed=f"play-{game}", rnd=rnd, on_step=on_step)
    assert checked["ok"] > 50
