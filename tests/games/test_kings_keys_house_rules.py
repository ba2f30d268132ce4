"""The house rule wild_stands_for (docs/games/kings-keys.md, ruling R8): the last
turn of a hand played under each reading, its scoring worked out by hand."""

import pytest

from referee.autoplay import new_table
from tests.games.kings_keys_helpers import SEED, move, stack

FIELD = ["R1A", "G2S", "B3C", "Y4K", "R2S", "G3C", "B4K", "Y1A", "G1C", "B2A"]


def last_turn(rule: str) -> dict:
    """Three players with wild cards, dealer 0 (turn order 1, 2, 0): seats 1 and 2
    are out; the dealer holds the Joker of axes and has collected the four axes 4s.
    Its Joker takes the red 3 of axes, the green 1 of keys turned up stays in the
    field, and the hand is scored."""
    deck = stack(3, [[], [], []], FIELD, wild=True)
    table, _ = new_table("kings-keys", 3, {"deck": deck, "wild_cards": True, "wild_stands_for": rule},
                         seed=SEED)
    s = table.state
    s.hands = [["*A"], [], []]
    s.field = [["R3A"], ["B1S"]]
    s.pile = ["G1K", "Y2S"]
    s.collected = [["R4A", "G4A", "B4A", "Y4A"], [], []]
    s.turn = 0
    events = move(table, 0, {"type": "play", "card": "*A"})
    assert [e.type for e in events] == ["played", "drawn", "hand-scored", "dealt"]
    assert events[0].payload["took"] == ["R3A"] and events[1].payload["took"] == []
    return events[2].payload


def test_by_default_a_wild_card_may_stand_for_a_card_held():
    scored = last_turn("any")
    # Axes: 4 + 4 + 4 + 4 + 3 = 19, and the Joker as a fifth 4: 23, so 12 points.
    joker = scored["seats"][0]["joker"]
    assert joker == [{"set": "joker-set", "item": "A", "count": 23, "points": 12,
                      "cards": ["R3A", "R4A", "G4A", "B4A", "Y4A", "*A"],
                      "stands_for": {"*A": "R4A"}}]
    assert scored["points"] == [12, 0, 0]


def test_with_the_house_rule_a_wild_card_stands_only_for_a_card_not_held():
    scored = last_turn("not-held")
    # Every axes 4 is held: the Joker stands for the highest axes card left, a 3
    # (yellow, the last colour): 19 + 3 = 22, so 11 points.
    joker = scored["seats"][0]["joker"]
    assert joker[0]["count"] == 22 and joker[0]["stands_for"] == {"*A": "Y3A"}
    assert scored["points"] == [11, 0, 0]


@pytest.mark.parametrize("rule", ["any", "not-held"])
def test_the_view_says_which_reading_is_played(rule):
    table, _ = new_table("kings-keys", 3, {"wild_cards": True, "wild_stands_for": rule}, seed=SEED)
    assert table.engine.view(table.state, None)["wild_stands_for"] == rule
