"""Castle Danger rules, checked on scripted games worked out by hand from the two
rule texts (expected boards, costs and supplies are written out, not computed)."""

import pytest

from referee.games.base import GameOver, IllegalMove, NotYourTurn
from tests.games.castle_danger_helpers import act, board_of, position, refused, table, types


@pytest.mark.parametrize("edition,first,second", [("10th", "blue", "red"), ("3rd", "red", "blue")])
def test_opening_worked_by_hand(edition, first, second):
    t = table({"edition": edition})
    view = t.engine.view(t.state, None)
    assert view["colours"] == [first, second]
    assert t.to_act() == [0] and t.state.moves_left == 6  # 3 + 3 x 1 Wizard
    assert board_of(t) == {"c1": "0K", "e1": "0Z", "c9": "1K", "e9": "1Z"}
    assert t.state.walls == ["c2", "c8", "e2", "e8"] and t.state.wall_pile == 16

    # Seat 0, turn 1: equal material (1 Wizard each), so the add costs 2.
    ev = act(t, 0, "add C")
    assert ev[0].payload["cost"] == 2 and t.state.moves_left == 4
    act(t, 0, "d1-d2; d2-d3; d3-d4")  # sand is walked on like grass
    assert t.state.moves_left == 1 and t.state.supply[0] == {"Z": 7, "B": 3, "C": 4}
    ev = act(t, 0, "end")
    assert types(ev) == ["turn-ended", "turn-begun"]
    assert ev[0].payload == {"move": {"type": "end"}, "seat": 0, "turn": 1, "unused": 1}
    assert ev[1].payload == {"seat": 1, "turn": 1, "moves": 6, "fire_out": []}

    # Seat 1: fewer pieces (1 against 2), so the add is free.
    assert act(t, 1, "add C")[0].payload["cost"] == 0 and t.state.moves_left == 6
    act(t, 1, "d9-d8; d8-d7; d7-d6")
    ev = act(t, 1, "fire d6 d4")  # d5 (river) and d4: 2 squares, 2 moves
    assert ev[0].payload["cost"] == 2 and ev[0].payload["hit"] == {"kind": "C", "owner": 0, "hidden": False}
    assert t.state.moves_left == 1 and t.state.fire == {"d4": 1}
    assert "d4" not in t.state.pieces and t.state.supply[0]["C"] == 5
    act(t, 1, "end")

    # Seat 0, turn 2: seat 1's fire on d4 lasts through this turn.
    assert t.state.moves_left == 6 and t.state.fire == {"d4": 1}
    assert act(t, 0, "add C")[0].payload["cost"] == 0  # 1 piece against 2
    act(t, 0, "d1-d2; d2-d3")
    assert refused(t, 0, "d3-d4", IllegalMove).rule == "fire"
    ev = act(t, 0, "fire d3 d6")  # d4, d5, d6: 3 moves; flies over the fire
    assert ev[0].payload["cost"] == 3 and t.state.moves_left == 1
    assert t.state.fire == {"d4": 1, "d6": 0} and t.state.supply[1]["C"] == 5
    assert refused(t, 0, "fire d3 d7", IllegalMove).rule == "already-fired"
    ev = act(t, 0, "c1-b1")  # the last move: the turn passes with it
    assert types(ev) == ["piece-moved", "turn-ended", "turn-begun"]
    assert ev[1].payload == {"seat": 0, "turn": 2, "unused": 0}
    assert ev[2].payload == {"seat": 1, "turn": 2, "moves": 6, "fire_out": ["d4"]}

    # Seat 1, turn 2: its own fire is gone, seat 0's stays.
    assert t.state.fire == {"d6": 0}
    act(t, 1, "add B; d9-d8; d8-d7")
    assert refused(t, 1, "d7-d6", IllegalMove).rule == "fire"
    ev = act(t, 1, "end")
    assert ev[1].payload == {"seat": 0, "turn": 3, "moves": 6, "fire_out": ["d6"]}
    assert t.state.fire == {}
    assert board_of(t) == {"b1": "0K", "e1": "0Z", "d3": "0C", "c9": "1K", "e9": "1Z", "d7": "1B"}
    # Seat 0's Cannon may fire again in its new turn.
    assert act(t, 0, "fire d3 d4")[0].payload["cost"] == 1


def test_a_cannon_hitting_the_king_wins():
    t = position({"c1": "0K", "e1": "0Z", "b3": "0C", "b8": "1K", "e9": "1Z"})
    assert t.state.moves_left == 6
    ev = act(t, 0, "fire b3 b8")  # b4 b5 b6 b7 b8: 5 moves
    assert types(ev) == ["cannon-fired", "game-won", "seed-revealed"]
    assert t.state.result == {"winners": [0], "reason": "seat 0's Cannon on b3 hit seat 1's King on b8",
                              "scores": [3, 1]}
    assert t.status == "finished" and t.to_act() == []
    with pytest.raises(GameOver):
        t.propose(1, [{"type": "end"}])


def test_the_second_player_shoots_toward_rank_1_and_can_win():
    t = position({"c1": "0K", "f2": "0K", "c9": "1Z", "e9": "1Z", "f8": "1C", "a9": "1K"}, turn=1)
    assert t.state.moves_left == 9
    assert refused(t, 1, "fire f8 f9", IllegalMove).rule == "not-in-line"
    ev = act(t, 1, "fire f8 f2")  # f7 f6 f5 f4 f3 f2: 6 moves
    assert ev[0].payload["cost"] == 6 and t.state.result["winners"] == [1]


def test_too_few_moves_to_reach_the_king():
    t = position({"c1": "0K", "e1": "0Z", "b3": "0C", "b8": "1K", "e9": "1Z"}, moves=4)
    assert refused(t, 0, "fire b3 b8", IllegalMove).rule == "too-few-moves"
    assert refused(t, 0, "fire b3 b9", IllegalMove).rule == "too-few-moves"
    ev = act(t, 0, "fire b3 b7")  # exactly the 4 moves left: the turn passes
    assert types(ev) == ["cannon-fired", "turn-ended", "turn-begun"]


def test_the_first_wall_stops_the_cannonball():
    t = position({"c1": "0K", "e1": "0Z", "b3": "0C", "b9": "1K", "e9": "1Z"}, walls=["b7", "b8"])
    assert refused(t, 0, "fire b3 b8", IllegalMove).rule == "wall-in-the-way"
    assert refused(t, 0, "fire b3 b9", IllegalMove).rule == "wall-in-the-way"
    ev = act(t, 0, "fire b3 b7")
    assert ev[0].payload["hit"] == {"kind": "W", "owner": None, "hidden": False}
    assert t.state.walls == ["b8"] and t.state.wall_pile == 19 and t.state.fire == {"b7": 0}
    assert t.state.moves_left == 2


def test_cannonballs_fly_over_pieces_of_both_sides():
    t = position({"c1": "0K", "e1": "0Z", "b2": "0C", "b3": "0Z", "b7": "1Z", "b9": "1K", "e9": "1Z"},
                 moves=7)
    ev = act(t, 0, "fire b2 b9")  # over b3 (own Wizard) and b7 (opposing Wizard)
    assert ev[0].payload["cost"] == 7 and t.state.result["winners"] == [0]


def test_a_cannon_may_hit_its_own_side_and_own_pieces():
    t = position({"c1": "0C", "c2": "0Z", "a1": "0K", "c9": "1K", "e9": "1Z"})
    ev = act(t, 0, "fire c1 c2")
    assert ev[0].payload["hit"] == {"kind": "Z", "owner": 0, "hidden": False}
    assert t.state.supply[0]["Z"] == 8 and t.state.fire == {"c2": 0}
    # The Wizard is gone, but this turn's moves were counted at its start.
    assert t.state.moves_left == 5
    assert refused(t, 0, "c1-c2", IllegalMove).rule == "fire"
    act(t, 0, "end")
    assert act(t, 1, "end")[1].payload == {"seat": 0, "turn": 2, "moves": 3, "fire_out": ["c2"]}


def test_a_cannon_may_move_after_firing_and_fired_cannons_reset():
    t = position({"c1": "0K", "e1": "0Z", "b3": "0C", "c9": "1K", "e9": "1Z"})
    act(t, 0, "fire b3 b4; b3-a3")
    assert board_of(t)["a3"] == "0C'"
    assert refused(t, 0, "fire a3 a4", IllegalMove).rule == "already-fired"
    act(t, 0, "end")
    act(t, 1, "end")
    assert board_of(t)["a3"] == "0C"
    act(t, 0, "fire a3 a4")


@pytest.mark.parametrize("edition,fire", [("10th", {"b5": 0}), ("3rd", {})])
def test_fire_on_the_river_follows_the_edition(edition, fire):
    t = position({"c1": "0K", "e1": "0Z", "b3": "0C", "c9": "1K", "e9": "1Z"},
                 options={"edition": edition})
    ev = act(t, 0, "fire b3 b5")  # b4, b5: 2 moves, the river square counted
    assert ev[0].payload["cost"] == 2 and ev[0].payload["fire"] == bool(fire)
    assert t.state.fire == fire


def test_portals_never_hold_fire():
    t = position({"c1": "0K", "d1": "0Z", "e1": "0Z", "d7": "1C", "c9": "1K", "e9": "1Z"}, turn=1)
    assert t.state.moves_left == 6
    ev = act(t, 1, "fire d7 d1")  # d6 d5 d4 d3 d2 d1: 6 moves, a Wizard on the portal
    assert ev[0].payload["hit"] == {"kind": "Z", "owner": 0, "hidden": False}
    assert ev[0].payload["fire"] is False and t.state.fire == {} and "d1" not in t.state.pieces
    assert t.state.supply[0]["Z"] == 7


def test_a_shot_on_a_burning_square_leaves_the_shooters_fire():
    t = position({"c1": "0K", "e1": "0Z", "c9": "1K", "e9": "1Z", "d7": "1C"}, turn=1,
                 fire={"d6": 0, "d4": 0})
    act(t, 1, "fire d7 d6")
    assert t.state.fire == {"d6": 1, "d4": 0}
    ev = act(t, 1, "end")
    assert ev[1].payload["fire_out"] == ["d4"] and t.state.fire == {"d6": 1}


def test_turn_limit_makes_a_draw():
    t = table({"turn_limit": 2})
    act(t, 0, "end")
    act(t, 1, "end")
    act(t, 0, "end")
    assert t.state.result is None
    ev = act(t, 1, "end")
    assert types(ev) == ["turn-ended", "game-drawn", "seed-revealed"]
    assert t.state.result == {"winners": [0, 1], "scores": [2, 2],
                              "reason": "draw: both players have played the turn limit of 2 turns"}


def test_the_turn_limit_counts_the_last_turn_through():
    # Seat 1's last turn under a limit of 1: a hit before its moves run out still
    # wins; spending the last move without a hit draws.
    pieces = {"c1": "0K", "e1": "0Z", "b8": "1C", "c9": "1K", "b1": "0Z"}
    t = position(pieces, turn=1, options={"turn_limit": 1}, moves=7)
    t.state.turns = [1, 0]
    act(t, 1, "fire b8 b2")  # b7..b2: 6 moves, 1 left
    assert t.state.result is None and t.state.moves_left == 1
    act(t, 1, "b8-a8")
    assert t.state.result["reason"].startswith("draw")
    t = position({**pieces, "c2": "0K", "c1": "0Z"}, turn=1, options={"turn_limit": 1}, moves=7)
    t.state.turns = [1, 0]
    act(t, 1, "b8-c8; c9-d9")  # 5 moves left
    assert refused(t, 1, "fire c8 c2", IllegalMove).rule == "too-few-moves"  # 6 squares
    act(t, 1, "fire c8 c3")  # the last 5 moves: the turn and the game end
    assert t.state.result["winners"] == [0, 1]


def test_moves_are_counted_at_the_start_of_the_turn():
    t = table()
    act(t, 0, "add Z")  # 2 moves: 4 left, no more for the new Wizard
    assert t.state.moves_left == 4
    ev = act(t, 0, "end")
    assert ev[0].payload["unused"] == 4
    act(t, 1, "end")
    assert t.state.moves_left == 9  # 3 + 3 x 2 Wizards


def test_unused_moves_are_lost():
    t = table()
    act(t, 0, "c1-b1; end")
    act(t, 1, "end")
    assert t.state.moves_left == 6


def test_tenth_edition_add_cost_example():
    # At the start both have as many pieces: the first player pays 2; the second,
    # now one piece short, pays nothing.
    t = table()
    assert act(t, 0, "add B")[0].payload["cost"] == 2
    act(t, 0, "d1-d2; end")  # the portal must be empty for the next add
    assert act(t, 1, "add B")[0].payload["cost"] == 0
    act(t, 1, "end")
    assert act(t, 0, "add Z")[0].payload["cost"] == 2  # 2 against 2 again


def test_the_king_does_not_change_the_add_cost_in_either_edition():
    for edition in ("10th", "3rd"):
        # 1 Builder against 1 Cannon: equal, whatever the Kings.
        t = position({"c1": "0K", "a1": "0B", "c9": "1K", "a9": "1C"}, options={"edition": edition})
        assert act(t, 0, "add C")[0].payload["cost"] == 2
        t = position({"c1": "0K", "c9": "1K", "a9": "1C"}, options={"edition": edition})
        assert act(t, 0, "add C")[0].payload["cost"] == 0


def test_a_whole_turn_at_once_is_all_or_nothing():
    t = table()
    ev = act(t, 0, "add C; d1-d2; d2-d3; d3-d4; end")
    assert types(ev)[-2:] == ["turn-ended", "turn-begun"] and ev[-2].payload["unused"] == 1
    before = board_of(t)
    err = refused(t, 1, "add C; d9-d8; d8-d7; d7-d6; d6-d5", IllegalMove)
    assert err.rule == "river" and err.extra["index"] == 4
    assert board_of(t) == before and t.state.moves_left == 6
    err = refused(t, 1, "e9-f9; f9-g9; g9-g8; g8-g7; g7-g6; g6-f6; f6-f7")
    assert isinstance(err, NotYourTurn) and err.extra["index"] == 6


def test_wrong_seat():
    t = table()
    assert isinstance(refused(t, 1, "e9-f9"), NotYourTurn)
    assert isinstance(refused(t, 1, "end"), NotYourTurn)
    assert t.engine.legal(t.state, 1) == [{"type": "resign"}]


def test_resign():
    t = table()
    act(t, 1, "resign")
    assert t.state.result["winners"] == [0]


# ---- moving ---------------------------------------------------------------------------

def test_move_refusals():
    t = position({"c1": "0K", "e1": "0Z", "b4": "0B", "c4": "0C", "c9": "1K", "e9": "1Z"},
                 walls=["c2"], fire={"a4": 1})
    cases = {
        "b4-b5": "river",
        "c4-c5": "river",
        "c1-c2": "occupied",  # a wall
        "b4-c4": "occupied",  # a piece
        "b4-a4": "fire",
        "c1-d2": "not-adjacent",
        "c1-c3": "not-adjacent",
        "c1-c1": "not-adjacent",
        "d1-d2": "not-your-piece",
        "c9-b9": "not-your-piece",
        "c2-c3": "not-your-piece",  # walls do not walk
    }
    for text, rule in cases.items():
        assert refused(t, 0, text, IllegalMove).rule == rule, text
    act(t, 0, "b4-b3; c1-d1; d1-d2")  # back to the grass, onto the portal and off it


# ---- building -------------------------------------------------------------------------

def test_building_and_demolishing():
    t = position({"c1": "0K", "e1": "0Z", "b3": "0B", "c9": "1K", "e9": "1Z"}, walls=["a3"])
    ev = act(t, 0, "build b2; build c3; demolish a3")
    assert types(ev) == ["wall-built", "wall-built", "wall-demolished"]
    assert t.state.walls == ["b2", "c3"] and t.state.wall_pile == 18 and t.state.moves_left == 3


def test_build_refusals():
    t = position({"c1": "0K", "e1": "0Z", "b3": "0B", "f4": "0B", "b2": "0C", "c9": "1K", "e9": "1Z"},
                 walls=["a1"], fire={"c3": 1})
    cases = {
        "build b4": "sand",
        "build f5": "river",
        "build b2": "occupied",
        "build c3": "fire",
        "build d2": "no-builder",  # next to no Builder
        "build c2": "no-builder",  # diagonal from b3
        "demolish a1": "no-builder",
        "demolish a3": "no-wall",
    }
    for text, rule in cases.items():
        assert refused(t, 0, text, IllegalMove).rule == rule, text


def test_all_twenty_walls_in_use():
    walls = [f"{f}{r}" for f in "abcdefg" for r in (2, 8)] + ["a3", "g3", "a7", "g7", "f3", "f7"]
    t = position({"c1": "0K", "e1": "0Z", "b3": "0B", "c9": "1K", "e9": "1Z"}, walls=walls)
    assert len(walls) == 20 and t.state.wall_pile == 0
    assert refused(t, 0, "build c3", IllegalMove).rule == "supply-exhausted"
    assert not [m for m in t.engine.legal(t.state, 0) if m["type"] == "build"]
    act(t, 0, "demolish b2; build c3")


def test_a_wall_may_stand_on_the_portal_and_blocks_adds():
    t = position({"c1": "0K", "e1": "0Z", "d2": "0B", "c9": "1K", "e9": "1Z"})
    act(t, 0, "build d1; end")
    act(t, 1, "end")
    assert refused(t, 0, "add Z", IllegalMove).rule == "portal-occupied"
    assert not [m for m in t.engine.legal(t.state, 0) if m["type"] == "add"]


def test_a_wall_on_the_portal_is_shot_away_without_fire():
    t = position({"c1": "0K", "e1": "0Z", "d6": "1C", "c9": "1K", "e9": "1Z"}, walls=["d1"], turn=1)
    ev = act(t, 1, "fire d6 d1")  # d5 d4 d3 d2 d1: 5 moves
    assert ev[0].payload["hit"]["kind"] == "W" and t.state.walls == [] and t.state.fire == {}


# ---- adding ---------------------------------------------------------------------------

def test_add_refusals():
    t = position({"c1": "0K", "e1": "0Z", "a1": "0B", "a2": "0B", "a3": "0B", "c9": "1K", "e9": "1Z"})
    assert refused(t, 0, "add B", IllegalMove).rule == "supply-exhausted"
    assert refused(t, 0, "add K", IllegalMove).rule == "not-addable"
    assert refused(t, 0, "smuggle C", IllegalMove).rule == "hidden-danger-only"
    assert refused(t, 0, "reveal a1", IllegalMove).rule == "hidden-danger-only"
    assert refused(t, 0, "add C; add Z", IllegalMove).rule == "add-first"
    assert refused(t, 0, "c1-b1; add Z", IllegalMove).rule == "add-first"
    t = position({"c1": "0K", "d1": "0Z", "c9": "1K", "e9": "1Z"})
    assert refused(t, 0, "add Z", IllegalMove).rule == "portal-occupied"


def test_every_supply_runs_out():
    t = table()
    t.state.supply[0] = {"Z": 0, "B": 0, "C": 1}
    assert [m for m in t.engine.legal(t.state, 0) if m["type"] == "add"] == [{"type": "add", "piece": "C"}]
    assert refused(t, 0, "add Z", IllegalMove).rule == "supply-exhausted"


# ---- firing ---------------------------------------------------------------------------

def test_fire_refusals():
    t = position({"c1": "0K", "e1": "0Z", "b3": "0C", "d3": "0B", "c9": "1K", "e9": "1Z"})
    cases = {
        "fire b3 b2": "not-in-line",  # behind the Cannon
        "fire b3 c4": "not-in-line",  # another column
        "fire b3 b3": "not-in-line",
        "fire d3 d4": "not-a-cannon",
        "fire a3 a4": "not-your-piece",
        "fire e9 e8": "not-your-piece",
    }
    for text, rule in cases.items():
        assert refused(t, 0, text, IllegalMove).rule == rule, text


def test_legal_list_at_the_start():
    t = table()
    legal = t.engine.legal(t.state, 0)
    assert legal == [
        {"type": "add", "piece": "Z"}, {"type": "add", "piece": "B"}, {"type": "add", "piece": "C"},
        {"type": "move", "from": "c1", "to": "d1"}, {"type": "move", "from": "c1", "to": "b1"},
        {"type": "move", "from": "e1", "to": "f1"}, {"type": "move", "from": "e1", "to": "d1"},
        {"type": "end"}, {"type": "offer-draw"}, {"type": "resign"},
    ]


def test_legal_fire_targets_stop_at_the_first_wall_and_the_moves_left():
    t = position({"c1": "0K", "e1": "0Z", "b3": "0C", "f3": "0C", "c9": "1K", "e9": "1Z"},
                 walls=["f6"], moves=4)
    fire = [m["at"] for m in t.engine.legal(t.state, 0) if m["type"] == "fire"]
    assert fire == ["b4", "b5", "b6", "b7", "f4", "f5", "f6"]


def test_legal_builds_and_demolitions():
    t = position({"c1": "0K", "e1": "0Z", "b3": "0B", "c9": "1K", "e9": "1Z"}, walls=["c3"],
                 fire={"a3": 1})
    legal = t.engine.legal(t.state, 0)
    assert [m for m in legal if m["type"] in ("build", "demolish")] == [
        {"type": "build", "at": "b2"}, {"type": "demolish", "at": "c3"}]
