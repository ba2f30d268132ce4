"""Options, the move notation, the text diagram and event descriptions."""

import pytest

from referee.games import engine
from referee.games.base import BadOptions, MalformedMove
from referee.table import Table
from tests.games.castle_danger_helpers import act, position, table, types

CD = engine("castle-danger")


# ---- options --------------------------------------------------------------------------

def test_options_defaults_and_values():
    rules = {"fire_blocks_building": True, "own_side_shots": True}
    assert CD.setup({}, 2) == {"edition": "10th", "variant": "standard", "turn_limit": None, **rules}
    assert CD.setup({"edition": "3rd", "variant": "hidden-danger", "turn_limit": 25}, 2) == {
        "edition": "3rd", "variant": "hidden-danger", "turn_limit": 25, **rules}
    assert CD.setup({"turn_limit": None}, 2)["turn_limit"] is None
    assert CD.setup({"fire_blocks_building": False, "own_side_shots": False}, 2) == {
        "edition": "10th", "variant": "standard", "turn_limit": None,
        "fire_blocks_building": False, "own_side_shots": False}


@pytest.mark.parametrize("options,field", [
    ({"edition": "5th"}, "edition"),
    ({"variant": "hidden"}, "variant"),
    ({"turn_limit": 0}, "turn_limit"),
    ({"turn_limit": -3}, "turn_limit"),
    ({"turn_limit": True}, "turn_limit"),
    ({"turn_limit": "30"}, "turn_limit"),
    ({"turn_limit": 2.5}, "turn_limit"),
    ({"deck": ["x"]}, "deck"),
    ({"first_dealer": 0}, "first_dealer"),
    ({"colour": "blue"}, "colour"),
    ({"fire_blocks_building": 0}, "options.fire_blocks_building"),
    ({"fire_blocks_building": "false"}, "options.fire_blocks_building"),
    ({"fire_blocks_building": None}, "options.fire_blocks_building"),
    ({"own_side_shots": 1}, "options.own_side_shots"),
    ({"own_side_shots": "no"}, "options.own_side_shots"),
])
def test_bad_options_are_refused(options, field):
    with pytest.raises(BadOptions) as err:
        CD.setup(options, 2)
    assert err.value.extra["field"] == field


def test_two_players_only():
    with pytest.raises(BadOptions):
        Table.created_event("castle-danger", "g", ["a", "b", "c"], {}, "s", False)


# ---- notation -------------------------------------------------------------------------

def test_the_contract_example_parses():
    assert CD.parse("add B; c1-b1; build b2; demolish c2; fire c3 c7; end") == [
        {"type": "add", "piece": "B"},
        {"type": "move", "from": "c1", "to": "b1"},
        {"type": "build", "at": "b2"},
        {"type": "demolish", "at": "c2"},
        {"type": "fire", "from": "c3", "at": "c7"},
        {"type": "end"},
    ]
    assert CD.parse("smuggle C\nreveal d2") == [{"type": "smuggle", "piece": "C"},
                                               {"type": "reveal", "at": "d2"}]


@pytest.mark.parametrize("text,move", [
    ("add b", {"type": "add", "piece": "B"}),
    ("C1-B1", {"type": "move", "from": "c1", "to": "b1"}),
    ("move c1 b1", {"type": "move", "from": "c1", "to": "b1"}),
    ("c1 b1", {"type": "move", "from": "c1", "to": "b1"}),
    ("fire c3-c7", {"type": "fire", "from": "c3", "at": "c7"}),
    ("  END ", {"type": "end"}),
    ("Reveal D2", {"type": "reveal", "at": "d2"}),
])
def test_lenient_reading_canonical_writing(text, move):
    assert CD.parse(text) == [move]
    assert CD.parse(CD.format(move)) == [move]


def test_json_moves_are_normalised():
    assert CD.normalize({"type": "move", "from": "C1", "to": " b1"}) == {
        "type": "move", "from": "c1", "to": "b1"}
    assert CD.normalize({"type": "smuggle", "piece": "z"}) == {"type": "smuggle", "piece": "Z"}


@pytest.mark.parametrize("move,field", [
    ({"type": "jump"}, "type"),
    ({"type": "move", "from": "c1"}, "to"),
    ({"type": "move", "from": "c1", "to": "h1"}, "to"),
    ({"type": "move", "from": "c0", "to": "c1"}, "from"),
    ({"type": "build", "at": 12}, "at"),
    ({"type": "add", "piece": "Q"}, "piece"),
    ({"type": "end", "at": "c1"}, "at"),
    ({"type": "fire", "from": "c3", "at": "c7", "piece": "C"}, "piece"),
    ({"type": "move", "from": "c1", "piece": "C"}, "piece"),  # as many fields, one of them wrong
    ({"type": "move", "from": ["c1"], "to": "c2"}, "from"),
    ({"type": "build", "at": {"square": "c1"}}, "at"),
    ({"type": "move", "from": "c1", "to": "c\u00b2"}, "to"),  # a digit, but not a rank: no 500
    ({"type": "fire", "from": "c\u0663", "at": "c7"}, "from"),
])
def test_malformed_moves(move, field):
    with pytest.raises(MalformedMove) as err:
        CD.normalize(move)
    assert err.value.extra["field"] == field


@pytest.mark.parametrize("text", ["jump c1", "c1-h1", "add", "fire c3", "build", "end now", "c1--c2"])
def test_malformed_text(text):
    with pytest.raises(MalformedMove):
        CD.parse(text)


def test_a_malformed_move_in_a_batch_refuses_the_batch():
    t = table()
    with pytest.raises(MalformedMove):
        t.propose(0, [{"type": "end"}, {"type": "fly"}])
    assert t.state.turn == 0 and t.seq == 1


# ---- the diagram ----------------------------------------------------------------------

LEGEND = ("K King  Z Wizard  B Builder  C Cannon  ' fired  ? hidden  # wall  "
          "* fire  o portal  ~ river  : sand  . grass")


def mid_game():
    """Seat 0 (Blue) in its 3rd turn: its Cannon on d3 has shot over Red's fire on d4
    and Red's Cannon on d6 to d7 (4 of its 6 moves); a Builder hides on a2."""
    t = position({"c1": "0K", "e1": "0Z", "d3": "0C'", "a2": "0?B",
                  "c9": "1K", "e9": "1Z", "d6": "1C"},
                 walls=["c2", "e2", "c8", "e8"], fire={"d4": 1, "d7": 0}, moves=2,
                 options={"variant": "hidden-danger"})
    t.state.turns = [2, 2]
    return t


def test_render_for_the_first_player():
    assert CD.render(mid_game().state, 0) == "\n".join([
        "Castle Danger, 10th Anniversary edition, Hidden Danger",
        "Turn 3 of Blue (seat 0, p0): 2 moves left",
        "",
        "    a   b   c   d   e   f   g",
        "9   .   .   rK  o   rZ  .   .   9",
        "8   .   .   #   .   #   .   .   8",
        "7   .   .   .   *b  .   .   .   7",
        "6   :   :   :   rC  :   :   :   6",
        "5   ~   ~   ~   ~   ~   ~   ~   5",
        "4   :   :   :   *r  :   :   :   4",
        "3   .   .   .   bC' .   .   .   3",
        "2   b?B .   #   .   #   .   .   2",
        "1   .   .   bK  o   bZ  .   .   1",
        "    a   b   c   d   e   f   g",
        "",
        "Supply  Blue: Z 7  B 2  C 4 (and 1 hidden on the board)   Red: Z 7  B 3  C 4   Walls: 16",
        LEGEND,
        "",
    ])


def test_render_for_the_second_player_turns_the_board_round():
    assert CD.render(mid_game().state, 1) == "\n".join([
        "Castle Danger, 10th Anniversary edition, Hidden Danger",
        "Turn 3 of Blue (seat 0, p0): 2 moves left",
        "",
        "    g   f   e   d   c   b   a",
        "1   .   .   bZ  o   bK  .   .   1",
        "2   .   .   #   .   #   .   b?  2",
        "3   .   .   .   bC' .   .   .   3",
        "4   :   :   :   *r  :   :   :   4",
        "5   ~   ~   ~   ~   ~   ~   ~   5",
        "6   :   :   :   rC  :   :   :   6",
        "7   .   .   .   *b  .   .   .   7",
        "8   .   .   #   .   #   .   .   8",
        "9   .   .   rZ  o   rK  .   .   9",
        "    g   f   e   d   c   b   a",
        "",
        "Supply  Blue: Z 7  B 3  C 4 (less 1 hidden on the board)   Red: Z 7  B 3  C 4   Walls: 16",
        LEGEND,
        "",
    ])


def test_render_for_spectators_and_the_admin():
    t = mid_game()
    spectator = CD.render(t.state, None).splitlines()
    assert spectator[11] == "2   b?  .   #   .   #   .   .   2"
    assert "(less 1 hidden on the board)" in spectator[15]
    admin = CD.render(t.state, "admin").splitlines()
    assert admin == CD.render(t.state, 0).splitlines()


def test_render_third_edition_and_game_over():
    t = position({"c1": "0K", "e1": "0Z", "b3": "0C", "b8": "1K"}, options={"edition": "3rd"})
    lines = CD.render(t.state, 1).splitlines()
    assert lines[:2] == ["Castle Danger, 3rd edition", "Turn 1 of Red (seat 0, p0): 6 moves left"]
    act(t, 0, "fire b3 b8")
    assert CD.render(t.state, 1).splitlines()[1] == \
        "Game over: p0's Cannon on b3 hit p1's King on b8"


def test_turn_limit_shown():
    t = table({"turn_limit": 30})
    assert CD.render(t.state, 0).splitlines()[1] == "Turn 1 of 30 of Blue (seat 0, p0): 6 moves left"


def test_describe_each_event():
    t = table({"variant": "hidden-danger"})
    log = act(t, 0, "add C; d1-d2; d2-d3; fire d3 d4; end")
    log += act(t, 1, "smuggle B; d9-d8; d8-d7; reveal d7; c9-b9; b9-a9; a9-a8")
    lines = [CD.describe(e) for e in log]
    assert lines == [
        "seat 0 adds a Cannon on d1 (2 moves)",
        "seat 0 moves d1-d2",
        "seat 0 moves d2-d3",
        "seat 0 fires d3 at d4 (1 move), hitting nothing",
        "seat 0 ends turn 1 (1 move unused)",
        "seat 1 begins turn 1 with 6 moves",
        "seat 1 smuggles a Builder on d9 (0 moves)",
        "seat 1 moves d9-d8",
        "seat 1 moves d8-d7",
        "seat 1 reveals seat 1's Builder on d7 (1 move)",
        "seat 1 moves c9-b9",
        "seat 1 moves b9-a9",
        "seat 1 moves a9-a8",
        "seat 1 ends turn 1 (0 moves unused)",
        "seat 0 begins turn 2 with 6 moves",
    ]
    assert types(log).count("turn-begun") == 2
