"""Whole random games: the invariants of the board hold at every step, games end,
and a hidden piece's kind never reaches the opponent or a spectator."""

import copy
import dataclasses

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.autoplay import random_game
from referee.games.base import IllegalMove
from referee.games.castle_danger import board

CONFIGS = [
    {},
    {"edition": "3rd"},
    {"variant": "hidden-danger"},
    {"edition": "3rd", "variant": "hidden-danger"},
    {"turn_limit": 6},
    {"edition": "3rd", "variant": "hidden-danger", "turn_limit": 12},
    {"fire_blocks_building": False, "own_side_shots": False},
    {"variant": "hidden-danger", "fire_blocks_building": False, "turn_limit": 20},
]
# Random play need not end a game without a turn limit (two random players may
# shuffle pieces for thousands of moves): the invariants are checked over this
# many moves of each game, ended or not.
MOVES = 600


def since_turn_began(log):
    """The events of the turn now being played."""
    out = []
    for ev in reversed(log):
        if ev.type == "turn-begun":
            break
        out.append(ev)
    return out[::-1]


def check_invariants(table, log):
    s = table.state
    assert s.moves_left >= 0
    if s.result is None:
        assert s.moves_left > 0, "a turn with no moves left must have passed"
    pieces, walls, fire = set(s.pieces), set(s.walls), set(s.fire)
    assert len(walls) == len(s.walls) and s.walls == sorted(s.walls)
    assert not pieces & walls and not pieces & fire, "two things on a square"
    if s.options["fire_blocks_building"]:
        assert not walls & fire, "a wall on fire"
    for sq, p in s.pieces.items():
        assert board.side(sq) == p["owner"], f"{sq} is not on its owner's half"
        assert not p["fired"] or p["kind"] == "C"
        assert not (p["hidden"] and (p["fired"] or p["kind"] == "K"))
    assert all(board.terrain(w) == "grass" for w in walls)
    assert not fire & set(board.PORTALS)
    if s.options["edition"] == "3rd":
        assert all(board.terrain(f) != "river" for f in fire)
    for seat in (0, 1):
        mine = [p["kind"] for p in s.pieces.values() if p["owner"] == seat]
        for kind, total in board.SUPPLY.items():
            assert s.supply[seat][kind] >= 0
            assert s.supply[seat][kind] + mine.count(kind) == total, "supplies must add up"
        king_hit = s.result is not None and " King on " in s.result["reason"]
        assert mine.count("K") == (0 if king_hit and seat not in s.result["winners"] else 1)
    assert s.wall_pile >= 0 and s.wall_pile + len(s.walls) == board.WALLS
    if s.result is None:
        # Fire of the seat to move was all lit this turn: the rest went out as it began.
        lit = {e.payload["at"] for e in since_turn_began(log)
               if e.type == "cannon-fired" and e.payload["fire"]}
        assert all(sq in lit for sq, owner in s.fire.items() if owner == s.turn)
        assert s.turn == table.to_act()[0]


def check_no_leak(table, log):
    """Whatever kind a hidden piece had, its opponent and spectators would be shown
    exactly the same: views, renderings, legal lists and the new events."""
    eng, s = table.engine, table.state
    if s.result is not None:
        return  # the game is over: everything is shown
    for sq, p in s.pieces.items():
        if not p["hidden"]:
            continue
        owner = p["owner"]
        for other in board.ADDABLE:
            if other == p["kind"]:
                continue
            alt = copy.deepcopy(s)
            alt.pieces[sq]["kind"] = other
            alt.supply[owner][p["kind"]] += 1
            alt.supply[owner][other] -= 1
            for viewer in (1 - owner, None):
                assert eng.view(alt, viewer) == eng.view(s, viewer), f"view leaks {sq}"
                assert eng.render(alt, viewer) == eng.render(s, viewer), f"render leaks {sq}"
            assert eng.legal(alt, 1 - owner) == eng.legal(s, 1 - owner)
    for ev in since_turn_began(log)[-6:]:
        p = ev.payload
        if ev.type == "piece-smuggled":
            owner = p["seat"]

            def swap(k, p=p):
                return {**p, "piece": k, "move": {**p["move"], "piece": k}}
        elif ev.type == "cannon-fired" and p["hit"] and p["hit"]["hidden"]:
            owner = p["hit"]["owner"]

            def swap(k, p=p):
                return {**p, "hit": {**p["hit"], "kind": k}}
        else:
            continue
        for other in board.ADDABLE:
            alt = copy.copy(ev)
            alt.payload = swap(other)
            for viewer in (1 - owner, None):
                assert eng.redact(alt, viewer) == eng.redact(ev, viewer), f"{ev.type} leaks"
                assert eng.describe(dataclasses.replace(ev, payload=eng.redact(ev, viewer))) \
                    == eng.describe(dataclasses.replace(alt, payload=eng.redact(alt, viewer)))


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**9), config=st.sampled_from(CONFIGS))
def test_random_games_keep_the_invariants(seed, config):
    table, log = random_game("castle-danger", 2, config, seed=f"cd-{seed}", check=True,
                             on_step=check_invariants, max_moves=MOVES, must_end=False)
    assert len(log) > 1
    if table.over:
        reason = table.state.result["reason"]
        assert "King" in reason or reason.startswith("draw")
        assert log[-1].type == "seed-revealed"
    else:
        assert table.state.result is None and table.to_act() == [table.state.turn]


@pytest.mark.parametrize("config", [c for c in CONFIGS if c.get("variant") == "hidden-danger"])
@pytest.mark.parametrize("seed", range(3))
def test_hidden_kinds_never_leak(config, seed):
    smuggles = []

    def on_step(table, log):
        check_no_leak(table, log)
        smuggles.extend(e for e in since_turn_began(log) if e.type == "piece-smuggled")

    table, log = random_game("castle-danger", 2, config, seed=f"leak-{seed}", on_step=on_step)
    assert smuggles, "the game smuggled nothing: the test would prove nothing"


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(map(str, c.values())) or "default")
def test_every_configuration_finishes(config):
    for seed in range(4):
        table, _ = random_game("castle-danger", 2, config, seed=f"end-{seed}")
        result = table.state.result
        assert result is not None
        if config.get("turn_limit") and result["reason"].startswith("draw"):
            assert table.state.turns == [config["turn_limit"]] * 2


def every_conceivable_action(variant: str):
    """Every action of the notation on the board, whatever the position: steps to
    each neighbouring square, shots along each file, builds, demolitions, adds."""
    squares = board.all_squares()
    out = [{"type": "add", "piece": k} for k in board.KINDS]
    if variant == "hidden-danger":
        out += [{"type": "smuggle", "piece": k} for k in board.KINDS]
        out += [{"type": "reveal", "at": sq} for sq in squares]
    for sq in squares:
        out += [{"type": "move", "from": sq, "to": n} for n in board.neighbours(sq)]
        out += [{"type": "fire", "from": sq, "at": f"{sq[0]}{r}"} for r in board.RANKS]
        out += [{"type": "build", "at": sq}, {"type": "demolish", "at": sq}]
    return out + [{"type": t} for t in ("end", "offer-draw", "take-back", "accept", "decline")]


@pytest.mark.parametrize("config", [{"turn_limit": 30}, {"variant": "hidden-danger", "turn_limit": 30},
                                    {"turn_limit": 30, "fire_blocks_building": False,
                                     "own_side_shots": False}])
def test_the_legal_list_is_exactly_what_the_referee_accepts(config):
    variant = config.get("variant", "standard")
    conceivable = every_conceivable_action(variant)
    seen = set()

    def exact(table, seat):
        eng = table.engine
        accepted = []
        before = copy.deepcopy(table.state)
        for move in conceivable:
            try:
                eng.decide(table.state, seat, move)
            except IllegalMove:
                continue
            accepted.append(move)
        # deciding looks ahead at the position after an action, on a copy of its own
        assert table.state == before, "deciding a move changed the state"
        legal = [m for m in eng.legal(table.state, seat) if m["type"] != "resign"]
        assert sorted(map(str, accepted)) == sorted(map(str, legal))
        seen.update(m["type"] for m in legal)

    def on_step(table, log):
        if table.over or len(log) % 2:
            return
        seat = table.to_act()[0]
        exact(table, seat)
        if len(log) % 10 == 0:
            # the same with a draw offer pending: the asker may do nothing, the
            # opponent only answer
            _, fork = table.propose(seat, [{"type": "offer-draw"}], seed="exact")
            exact(fork, seat)
            exact(fork, 1 - seat)

    random_game("castle-danger", 2, config, seed="exact-legal-3", on_step=on_step)
    expected = {"add", "move", "build", "demolish", "fire", "end", "offer-draw", "accept", "decline"}
    assert seen == expected | ({"smuggle", "reveal"} if variant == "hidden-danger" else {"take-back"})
