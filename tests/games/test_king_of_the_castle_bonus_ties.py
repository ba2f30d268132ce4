"""The house rule bonus_ties (docs/games/king-of-the-castle.md, ruling 3): one game
from stacked decks played to its scoring under each reading, the scoring table
worked out by hand from the rule text."""

import json

import pytest

from referee.audit import audit
from referee.autoplay import new_table
from referee.events import Event
from referee.table import Table
from tests.games.king_of_the_castle_helpers import GAME, SEED, deck_from, kingdom, move, prepared
from tests.test_audit import reseal

# Two players, squires chosen, personalities alphabetical: King A, castles B C D,
# E F G, H I J, then K L M ... Z to fill posts. Seat 0 deals, so the six reaction
# cards on top make the hands (never played: both seats stand on pass); then each
# turn's player draws the card it plays (seat 0 the 7th, seat 1 the 8th, ...).
TOP = ["lucky-escape"] * 4 + ["not-that-bad"] * 2 + [
    "mysterious-vanishings", "mysterious-vanishings", "plague", "plague", "plague",
    "known", "known", "keep", "keep", "village", "village",
    "peaceful-death", "unlucky-fall", "death-by-misadventure", "financial-scandal",
    "marauding-barbarians",
]
# The plagues strike before any Domain is built, and Financial Scandal and
# Marauding Barbarians strike castles without Prestige or Defences: no level card
# is ever lost. Each castle ends at level 2: castles 1 and 2 tie for the most
# Prestige (1), castles 2 and 3 for the best Defences (1).
PLAYS = [
    ("play mysterious-vanishings 3", ["A", ["B", "C", "D"], ["E", "F", "G"], ["K", "L", "M"]]),
    ("play mysterious-vanishings 2", ["A", ["B", "C", "D"], ["N", "O", "P"], ["K", "L", "M"]]),
    ("play plague 1 lord seneschal", ["A", ["D", "Q", "R"], ["N", "O", "P"], ["K", "L", "M"]]),
    ("play plague 3 seneschal master", ["A", ["D", "Q", "R"], ["N", "O", "P"], ["K", "S", "T"]]),
    ("play plague 1 lord master", ["A", ["Q", "U", "V"], ["N", "O", "P"], ["K", "S", "T"]]),
    ("play known 1", None), ("play known 2", None), ("play keep 2", None), ("play keep 3", None),
    ("play village 3", None), ("play village 1", None),
    # The King dies: the three castles tie at level 2, so castle 1's Lord Q is
    # crowned, its men move up and W fills its Master at Arms.
    ("play peaceful-death", ["Q", ["U", "V", "W"], ["N", "O", "P"], ["K", "S", "T"]]),
    ("play unlucky-fall 2", ["Q", ["U", "V", "W"], ["O", "P", "X"], ["K", "S", "T"]]),
    ("play death-by-misadventure 3 master", ["Q", ["U", "V", "W"], ["O", "P", "X"], ["K", "S", "Y"]]),
    ("play financial-scandal 3", ["Q", ["U", "V", "W"], ["O", "P", "X"], ["K", "Y", "Z"]]),
    # W dies and the personality deck is empty: the post stays empty, and seat 1's
    # turn completes the round, so the game is scored at once.
    ("play marauding-barbarians 1", ["Q", ["U", "V", None], ["O", "P", "X"], ["K", "Y", "Z"]]),
]
SQUIRES = ["U V X", "P Q Z"]


def options(**rules) -> dict:
    return {"squires": "choose", "personality_order": "alphabetical", "event_deck": deck_from(TOP), **rules}


def play_out(table, log) -> dict:
    log += move(table, 0, f"choose {SQUIRES[0]}")
    log += move(table, 1, f"choose {SQUIRES[1]}")
    log += move(table, 0, "standing pass")
    log += move(table, 1, "standing pass")
    for i, (text, after) in enumerate(PLAYS):
        log += move(table, i % 2, text)
        if after is not None:
            assert kingdom(table) == after, text
    levels = [[len(c["domain"]), len(c["prestige"]), len(c["defence"])] for c in table.state.castles]
    assert levels == [[1, 1, 0], [0, 1, 1], [1, 0, 1]]
    return table.state.result


# King Q 12 (no castle of level 6). Lords: U of castle 1, the leftmost of three at
# level 2, 6 + 3 under every reading; O and K 6. Seneschals 4 (V, P, Y), Masters
# 2 (X, Z; castle 1 has none), and the bonuses the reading gives: +2 to V and/or
# P, +1 to X and/or Z. Seat 0 backs U V X, seat 1 P Q Z.
EXPECTED = {
    # the leftmost of each tie: V of castle 1 and X of castle 2
    "leftmost": ([("Q", 12), ("U", 9), ("V", 6), ("O", 6), ("P", 4), ("X", 3), ("K", 6), ("Y", 4), ("Z", 2)],
                 [9 + 6 + 3, 4 + 12 + 2], [0, 1]),
    # every tied castle's man: V and P, X and Z
    "all": ([("Q", 12), ("U", 9), ("V", 6), ("O", 6), ("P", 6), ("X", 3), ("K", 6), ("Y", 4), ("Z", 3)],
            [9 + 6 + 3, 6 + 12 + 3], [1]),
    # a tie earns nothing: only the Lord's bonus is paid
    "none": ([("Q", 12), ("U", 9), ("V", 4), ("O", 6), ("P", 4), ("X", 2), ("K", 6), ("Y", 4), ("Z", 2)],
             [9 + 4 + 2, 4 + 12 + 2], [1]),
}


def check(result, reading):
    lines, scores, winners = EXPECTED[reading]
    assert [(line["man"], line["points"]) for line in result["table"]] == lines
    assert result["scores"] == scores and result["winners"] == winners


def test_by_default_the_leftmost_of_a_tie_earns_the_bonus():
    table, log = new_table(GAME, 2, options(), seed=SEED)
    assert table.state.options["bonus_ties"] == "leftmost"
    check(play_out(table, log), "leftmost")


@pytest.mark.parametrize("reading", ["all", "none"])
def test_with_the_house_rule_a_tie_pays_every_tied_castle_or_none(reading):
    table, log = new_table(GAME, 2, options(bonus_ties=reading), seed=SEED)
    assert table.engine.view(table.state, 0)["bonus_ties"] == reading
    check(play_out(table, log), reading)
    # The export audits valid; claiming the default reading, its end diverges.
    text = "".join(e.to_json() + "\n" for e in log)
    report = audit(text)
    assert report["valid"] and report["seed"] == "verified", report
    lines = [json.loads(x) for x in text.splitlines()]
    lines[0]["payload"]["options"]["bonus_ties"] = "leftmost"
    report = audit(reseal(lines))
    assert report["first_error"]["code"] == "diverges"
    assert lines[report["first_error"]["seq"] - 1]["type"] == "game-ended"


def test_a_game_created_before_the_house_rule_scores_ties_as_it_did():
    created = Table.created_event(GAME, "g-old", ["p0", "p1"], options(), SEED, True).to_dict()
    created["payload"]["engine_version"] = 3
    del created["payload"]["options"]["bonus_ties"]
    first = Event.from_dict({**created, "hash": ""}).sealed()
    table = Table.from_created(first)
    log = [first] + table.settle_all(SEED)
    check(play_out(table, log), "leftmost")
    report = audit("".join(e.to_json() + "\n" for e in log))
    assert report["valid"] and report["seed"] == "verified", report


@pytest.mark.parametrize("reading", ["leftmost", "all", "none"])
def test_no_castle_with_the_attribute_means_no_bonus_under_any_reading(reading):
    # A bare kingdom: castle 1, the leftmost of three at level 0, is the largest
    # (its Lord B: 6 + 3), but no castle has Prestige or Defences, so no Seneschal
    # or Master at Arms earns a bonus, though all three castles tie (at nothing).
    t = prepared(2, hands=[["keep"] * 3, ["unlucky-fall", "keep", "keep", "keep"]],
                 people="", turn=1, standing=["pass"] * 2, squires=[["B", "C", "D"], ["E", "F", "G"]])
    t.state.options["bonus_ties"] = reading  # set position: the reading under test
    move(t, 1, "play unlucky-fall 3")  # no one can fill castle 3's Master at Arms: the game ends
    assert t.state.result["scores"] == [6 + 3 + 4 + 2, 6 + 4 + 2]
    assert [line["bonus"] for line in t.state.result["table"] if line["post"] != "lord"] == [0] * 6
