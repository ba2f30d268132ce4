"""A shot at one's own King, and the house rules for the readings the two texts
leave open (docs/games/castle-danger.md, R2 and R5): scripted games worked out
by hand, each played under both readings where the reading changes the game."""

import json

import pytest

from referee.audit import audit
from referee.autoplay import new_table, play
from referee.bots import candidates
from referee.games.base import IllegalMove
from tests.games.castle_danger_helpers import act, board_of, position, refused, table, types
from tests.test_audit import reseal


def fires(t, seat=0) -> list[str]:
    return [f"{m['from']}-{m['at']}" for m in t.engine.legal(t.state, seat) if m["type"] == "fire"]


# ---- a shot at one's own King ---------------------------------------------------------

@pytest.mark.parametrize("edition", ["10th", "3rd"])
def test_a_shot_at_ones_own_king_loses_the_game(edition):
    t = table({"edition": edition})
    # Seat 0, turn 1 (6 moves): a Cannon in, the King to b2, the Cannon behind it on b1.
    assert act(t, 0, "add C")[0].payload["cost"] == 2  # equal material: 2 moves
    act(t, 0, "c1-b1; b1-b2; d1-c1")
    ev = act(t, 0, "c1-b1")  # the sixth move: the turn passes
    assert types(ev) == ["piece-moved", "turn-ended", "turn-begun"]
    assert board_of(t) == {"b2": "0K", "b1": "0C", "e1": "0Z", "c9": "1K", "e9": "1Z"}
    act(t, 1, "end")
    # Seat 0, turn 2: b2 lies in front of the Cannon on b1, toward the opponent's edge.
    assert "b1-b2" in fires(t)
    ev = act(t, 0, "fire b1 b2")  # one square, one move
    assert types(ev) == ["cannon-fired", "game-won", "seed-revealed"]
    assert ev[0].payload["hit"] == {"kind": "K", "owner": 0, "hidden": False}
    # Both texts: a player whose King is hit loses. The King goes, the Cannon and
    # the Wizard stay: 2 pieces each.
    assert t.state.result == {"winners": [1], "scores": [2, 2],
                              "reason": "seat 0's Cannon on b1 hit its own King on b2: seat 0 loses"}
    assert t.status == "finished" and t.to_act() == []


def test_a_game_lost_to_ones_own_cannon_exports_and_audits_valid():
    t, log = new_table("castle-danger", 2, {}, "own-king")
    for seat, text in [(0, "add C; c1-b1; b1-b2; d1-c1; c1-b1"), (1, "end"), (0, "fire b1 b2")]:
        play(t, seat, t.engine.parse(text), "own-king", log)
    assert [e.type for e in log[-3:]] == ["cannon-fired", "game-won", "seed-revealed"]
    report = audit("".join(e.to_json() + "\n" for e in log))
    assert report["valid"] and report["seed"] == "verified", report
    assert report["result"]["winners"] == [1]
    # a log claiming the shooter won is caught
    lines = [json.loads(e.to_json()) for e in log]
    lines[-2]["payload"]["result"]["winners"] = [0]
    report = audit(reseal(lines))
    assert not report["valid"] and report["first_error"]["seq"] == len(lines) - 1


def test_a_cannonball_still_flies_over_its_own_king_and_no_bot_aims_at_it():
    t = position({"c1": "0C", "c3": "0K", "e1": "0Z", "c9": "1K", "e9": "1Z"})
    legal = t.engine.legal(t.state, 0)
    shot = {"type": "fire", "from": "c1", "at": "c3"}
    assert shot in legal and t.engine.self_defeating(t.state, 0, shot)
    # A bot never throws the game away, as it never resigns.
    assert shot not in candidates(t.engine, t.state, 0)
    assert candidates(t.engine, t.state, 0) == [
        m for m in legal if m != shot and m["type"] not in ("resign", "offer-draw")]
    ev = act(t, 0, "fire c1 c4")  # over the King: c2 c3 c4, 3 moves
    assert ev[0].payload["cost"] == 3 and t.state.fire == {"c4": 0} and t.state.result is None


def test_the_second_player_hitting_its_own_king_loses_too():
    t = position({"c1": "0K", "e1": "0Z", "f9": "1C", "f7": "1K", "e9": "1Z"}, turn=1)
    ev = act(t, 1, "fire f9 f7")  # f8 f7: 2 moves
    assert ev[0].payload["cost"] == 2
    assert t.state.result["winners"] == [0]
    assert t.state.result["reason"] == "seat 1's Cannon on f9 hit its own King on f7: seat 1 loses"


# ---- fire_blocks_building -------------------------------------------------------------

def fire_beside_a_builder(options: dict):
    """Seat 0 brings a Builder to c3; seat 1 shoots d3, next to it, leaving fire."""
    t = table(options)
    act(t, 0, "add B; d1-d2; d2-d3; d3-c3; end")  # 2 + 3 moves, 1 unused
    assert act(t, 1, "add C")[0].payload["cost"] == 0  # 1 piece against 2: free
    ev = act(t, 1, "d9-d8; d8-d7; fire d7 d3")  # d6 d5 d4 d3: the last 4 moves
    assert types(ev)[-3:] == ["cannon-fired", "turn-ended", "turn-begun"]
    assert ev[-3].payload["hit"] is None and t.state.fire == {"d3": 1}
    return t


def test_by_default_fire_blocks_building():
    t = fire_beside_a_builder({})
    assert "House rules" not in t.engine.render(t.state, None)
    assert refused(t, 0, "build d3", IllegalMove).rule == "fire"
    assert {"type": "build", "at": "d3"} not in t.engine.legal(t.state, 0)
    act(t, 0, "build b3")  # beside it, where nothing burns


def test_with_the_house_rule_a_wall_may_be_built_on_fire():
    t = fire_beside_a_builder({"fire_blocks_building": False})
    assert {"type": "build", "at": "d3"} in t.engine.legal(t.state, 0)
    act(t, 0, "build d3")
    assert t.state.walls == ["c2", "c8", "d3", "e2", "e8"] and t.state.fire == {"d3": 1}
    assert t.state.moves_left == 5 and t.state.wall_pile == 15
    # Pieces still never enter fire (nor a wall).
    assert refused(t, 0, "c3-c4; c4-d4; d4-d3", IllegalMove).rule == "occupied"
    text = t.engine.render(t.state, None)
    assert "#*r" in text  # the wall, and seat 1's (red) fire
    assert "House rules: walls may be built on fire\n" in text
    act(t, 0, "end")
    # The fire goes out as seat 1's turn begins; the wall stays.
    assert t.state.fire == {} and "d3" in t.state.walls


def test_the_house_rule_changes_building_only():
    t = position({"c1": "0K", "e1": "0Z", "b3": "0B", "c9": "1K", "e9": "1Z"}, fire={"c3": 1, "a3": 1},
                 options={"fire_blocks_building": False})
    assert refused(t, 0, "b3-c3", IllegalMove).rule == "fire"
    assert refused(t, 0, "b3-a3", IllegalMove).rule == "fire"
    assert refused(t, 0, "build b4", IllegalMove).rule == "sand"
    builds = [m["at"] for m in t.engine.legal(t.state, 0) if m["type"] == "build"]
    assert builds == ["a3", "b2", "c3"]


# ---- own_side_shots -------------------------------------------------------------------

def cannon_behind_its_wall(options: dict):
    """Seat 0 puts a Cannon on c1, behind its own starting wall on c2."""
    t = table(options)
    act(t, 0, "add C; c1-b1; d1-c1")  # 2 + 2 moves: 2 left
    return t


def test_by_default_a_cannon_may_shoot_its_own_side():
    t = cannon_behind_its_wall({})
    assert fires(t) == ["c1-c2"]  # the wall on c2 is as far as it may shoot
    ev = act(t, 0, "fire c1 c2")
    assert ev[0].payload["hit"] == {"kind": "W", "owner": None, "hidden": False}
    assert "c2" not in t.state.walls and t.state.fire == {"c2": 0}


def test_with_the_house_rule_no_shot_lands_on_its_own_side():
    t = cannon_behind_its_wall({"own_side_shots": False})
    assert fires(t) == []  # its own wall stops the ball before the river
    assert refused(t, 0, "fire c1 c2", IllegalMove).rule == "own-side"
    assert refused(t, 0, "fire c1 c3", IllegalMove).rule == "wall-in-the-way"


@pytest.mark.parametrize("own_side,targets", [
    (True, ["b4", "b5", "b6", "b7", "b8", "b9"]),
    (False, ["b5", "b6", "b7", "b8", "b9"]),  # the river is nobody's side
])
def test_targets_in_front_of_a_cannon_by_the_house_rule(own_side, targets):
    t = position({"c1": "0K", "e1": "0Z", "b3": "0C", "c9": "1K", "e9": "1Z"},
                 options={"own_side_shots": own_side})
    assert fires(t) == [f"b3-{sq}" for sq in targets]
    assert t.engine.view(t.state, None)["own_side_shots"] is own_side
    if not own_side:
        assert refused(t, 0, "fire b3 b4", IllegalMove).rule == "own-side"
        act(t, 0, "fire b3 b5")  # the river: one of seat 0's 2 moves
        assert t.state.moves_left == 4


def test_with_the_house_rule_no_king_can_be_shot_by_its_own_side():
    t = position({"c1": "0C", "c3": "0K", "e1": "0Z", "c9": "1K", "e9": "1Z"},
                 options={"own_side_shots": False})
    assert refused(t, 0, "fire c1 c3", IllegalMove).rule == "own-side"
    assert fires(t) == ["c1-c5", "c1-c6", "c1-c7"]  # over its own King: 4 to 6 of its 6 moves
