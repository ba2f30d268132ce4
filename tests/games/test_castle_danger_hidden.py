"""The Hidden Danger variant: smuggled pieces, reveals, and what each viewer sees."""

import dataclasses
import json

import pytest

from referee.games.base import IllegalMove
from tests.games.castle_danger_helpers import act, board_of, position, refused, table

HD = {"variant": "hidden-danger"}


def seen(t, viewer):
    """Everything ``viewer`` is shown: view, legal list (for a seat) and the log."""
    out = {"view": t.engine.view(t.state, viewer)}
    if isinstance(viewer, int):
        out["legal"] = t.engine.legal(t.state, viewer)
    return out


@pytest.mark.parametrize("edition", ["10th", "3rd"])
def test_smuggle_hides_the_kind_from_the_opponent_and_spectators(edition):
    t = table({**HD, "edition": edition})
    ev = act(t, 0, "smuggle C")
    smuggled = ev[0]
    assert smuggled.type == "piece-smuggled"
    assert smuggled.payload == {"move": {"type": "smuggle", "piece": "C"}, "seat": 0, "at": "d1",
                                "piece": "C", "cost": 2}
    for viewer in (1, None):
        assert t.engine.redact(smuggled, viewer) == {"move": {"type": "smuggle"}, "seat": 0,
                                                     "at": "d1", "cost": 2}
        view = t.engine.view(t.state, viewer)
        assert view["pieces"]["d1"] == {"owner": 0, "kind": "?", "hidden": True, "fired": False}
        assert view["supply"][0] == {"Z": 7, "B": 3, "C": 5, "hidden_on_board": 1, "exact": False}
        assert "seat 0 smuggles a hidden piece on d1" in t.engine.describe(
            dataclasses.replace(smuggled, payload=t.engine.redact(smuggled, viewer)))
    for viewer in (0, "admin"):
        assert t.engine.redact(smuggled, viewer) == smuggled.payload
        view = t.engine.view(t.state, viewer)
        assert view["pieces"]["d1"] == {"owner": 0, "kind": "C", "hidden": True, "fired": False}
        assert view["supply"][0] == {"Z": 7, "B": 3, "C": 4, "hidden_on_board": 1, "exact": True}


def test_a_hidden_piece_counts_as_material_and_may_move_but_not_act():
    t = table(HD)
    act(t, 0, "smuggle C")
    assert refused(t, 0, "fire d1 d2", IllegalMove).rule == "hidden-piece"
    assert not [m for m in t.engine.legal(t.state, 0) if m["type"] == "fire"]
    act(t, 0, "d1-d2; d2-d3; end")
    # Seat 1 has fewer pieces (1 against 2, the hidden one counted): a free add.
    assert act(t, 1, "add Z")[0].payload["cost"] == 0
    act(t, 1, "end")
    # Revealing its own piece costs 1; then the Cannon fires like any other.
    ev = act(t, 0, "reveal d3")
    assert ev[0].payload == {"move": {"type": "reveal", "at": "d3"}, "seat": 0, "at": "d3",
                             "owner": 0, "piece": "C", "cost": 1}
    assert t.state.moves_left == 5
    act(t, 0, "fire d3 d4")
    assert t.engine.view(t.state, 1)["pieces"]["d3"]["kind"] == "C"


def test_a_hidden_wizard_adds_no_moves_until_revealed():
    t = table(HD)
    act(t, 0, "smuggle Z; end")
    act(t, 1, "end")
    assert t.state.moves_left == 6  # 3 + 3 x 1 revealed Wizard
    act(t, 0, "reveal d1")
    assert t.state.moves_left == 5  # counted at the turn's start
    act(t, 0, "end")
    act(t, 1, "end")
    assert t.state.moves_left == 9


def test_a_hidden_builder_cannot_build():
    t = position({"c1": "0K", "e1": "0Z", "b3": "0?B", "c9": "1K", "e9": "1Z"}, walls=["a3"],
                 options=HD)
    assert refused(t, 0, "build b2", IllegalMove).rule == "no-builder"
    assert refused(t, 0, "demolish a3", IllegalMove).rule == "no-builder"
    act(t, 0, "reveal b3; build b2; demolish a3")


def test_the_opponent_reveals_for_3_once_per_wizard():
    pieces = {"c1": "0K", "b2": "0?C", "f2": "0?Z", "a3": "0?B", "c9": "1K", "e9": "1Z"}
    t = position(pieces, walls=["c2", "e2", "c8", "e8"], options=HD, turn=1)
    assert t.state.moves_left == 6
    legal = t.engine.legal(t.state, 1)
    assert [m["at"] for m in legal if m["type"] == "reveal"] == ["a3", "b2", "f2"]
    ev = act(t, 1, "reveal f2")
    assert ev[0].payload == {"move": {"type": "reveal", "at": "f2"}, "seat": 1, "at": "f2",
                             "owner": 0, "piece": "Z", "cost": 3}
    assert t.state.moves_left == 3 and board_of(t)["f2"] == "0Z"
    assert refused(t, 1, "reveal b2", IllegalMove).rule == "reveal-limit"
    assert not [m for m in t.engine.legal(t.state, 1) if m["type"] == "reveal"]
    assert refused(t, 1, "reveal f2", IllegalMove).rule == "not-hidden"
    assert refused(t, 1, "reveal d5", IllegalMove).rule == "not-hidden"


def test_two_wizards_two_opposing_reveals():
    pieces = {"c1": "0K", "b2": "0?C", "f2": "0?Z", "c9": "1K", "e9": "1Z", "a9": "1Z"}
    t = position(pieces, options=HD, turn=1)
    assert t.state.moves_left == 9
    act(t, 1, "reveal b2; reveal f2")
    assert t.state.moves_left == 3 and t.state.reveals == 2


def test_an_opposing_reveal_needs_a_revealed_wizard_and_3_moves():
    pieces = {"c1": "0K", "b2": "0?C", "c9": "1K", "e9": "1?Z"}
    t = position(pieces, options=HD, turn=1)
    assert refused(t, 1, "reveal b2", IllegalMove).rule == "no-wizard"
    assert [m["at"] for m in t.engine.legal(t.state, 1) if m["type"] == "reveal"] == ["e9"]
    t = position({**pieces, "e9": "1Z"}, options=HD, turn=1, moves=2)
    assert refused(t, 1, "reveal b2", IllegalMove).rule == "too-few-moves"
    assert not [m for m in t.engine.legal(t.state, 1) if m["type"] == "reveal"]


def test_own_reveals_are_not_limited_by_wizards():
    pieces = {"c1": "0K", "b2": "0?C", "f2": "0?B", "a3": "0?Z", "c9": "1K", "e9": "1Z"}
    t = position(pieces, options=HD)
    assert t.state.moves_left == 3
    ev = act(t, 0, "reveal b2; reveal f2; reveal a3")
    assert ev[-1].type == "turn-begun"  # the three moves spent


def test_reveals_reset_each_turn():
    pieces = {"c1": "0K", "b2": "0?C", "f2": "0?Z", "c9": "1K", "e9": "1Z"}
    t = position(pieces, options=HD, turn=1)
    act(t, 1, "reveal b2; end")
    act(t, 0, "end")
    act(t, 1, "reveal f2")


def test_a_hidden_piece_shot_goes_back_unseen():
    pieces = {"c1": "0K", "e1": "0Z", "b7": "1?B", "c9": "1K", "e9": "1Z", "b3": "0C"}
    t = position(pieces, options=HD)
    ev = act(t, 0, "fire b3 b7")
    fired = ev[0]
    assert fired.payload["hit"] == {"kind": "B", "owner": 1, "hidden": True}
    for viewer in (0, None):
        assert t.engine.redact(fired, viewer)["hit"] == {"kind": "?", "owner": 1, "hidden": True}
        assert "hitting seat 1's hidden piece" in t.engine.describe(
            dataclasses.replace(fired, payload=t.engine.redact(fired, viewer)))
    assert t.engine.redact(fired, 1) == fired.payload
    assert t.state.supply[1] == {"Z": 7, "B": 3, "C": 5}
    assert t.engine.view(t.state, 0)["supply"][1] == {"Z": 7, "B": 3, "C": 5, "hidden_on_board": 0,
                                                      "exact": False}


def test_smuggle_follows_the_add_rules():
    t = table(HD)
    assert refused(t, 0, "smuggle C; add Z", IllegalMove).rule == "add-first"
    assert refused(t, 0, "add C; smuggle Z", IllegalMove).rule == "add-first"
    assert refused(t, 0, "smuggle K", IllegalMove).rule == "not-addable"
    t.state.supply[0]["B"] = 0
    assert refused(t, 0, "smuggle B", IllegalMove).rule == "supply-exhausted"
    t = position({"c1": "0K", "d1": "0Z", "c9": "1K", "e9": "1Z"}, options=HD)
    assert refused(t, 0, "smuggle Z", IllegalMove).rule == "portal-occupied"


def test_the_opponents_lists_name_hidden_pieces_by_square_only():
    t = table(HD)
    act(t, 0, "smuggle B; end")
    for viewer in (1, None):
        text = json.dumps(seen(t, viewer))
        assert '"kind": "B"' not in text
    assert {"type": "reveal", "at": "d1"} in t.engine.legal(t.state, 1)
    assert "b?" in t.engine.render(t.state, 1) and "b?B" not in t.engine.render(t.state, 1)
    assert "b?B" in t.engine.render(t.state, 0)


def test_the_reveal_limit_counts_the_wizards_there_now():
    pieces = {"c1": "0K", "b2": "0?C", "f2": "0?Z", "c9": "1K", "e9": "1Z", "a8": "1Z", "a9": "1C"}
    t = position(pieces, options=HD, turn=1)
    assert t.state.moves_left == 9
    act(t, 1, "reveal b2; fire a9 a8")  # 3 + 1: its own Cannon takes one of its 2 Wizards
    assert t.state.moves_left == 5
    assert refused(t, 1, "reveal f2", IllegalMove).rule == "reveal-limit"


def test_hidden_pieces_are_shown_when_the_game_is_over():
    t = position({"c1": "0K", "e1": "0Z", "b3": "0C", "b8": "1K", "a7": "1?C"}, options=HD)
    assert t.engine.view(t.state, 0)["pieces"]["a7"]["kind"] == "?"
    act(t, 0, "fire b3 b8")
    for viewer in (0, None):
        view = t.engine.view(t.state, viewer)
        assert view["pieces"]["a7"]["kind"] == "C" and view["supply"][1]["exact"] is True


def test_the_owner_reveals_only_in_its_own_turn():
    t = table(HD)
    act(t, 0, "smuggle C; end")
    err = refused(t, 0, "reveal d1")
    assert type(err).__name__ == "NotYourTurn"
