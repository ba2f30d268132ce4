"""The house rule trackers (docs/games/king-of-danger.md, R1): two hands from
stacked decks, played to the end of the game under each reading, every tracker
worked out by hand from the rule text."""

import json

from referee.audit import audit
from referee.events import Event
from referee.table import Table
from tests.games.king_of_danger_helpers import GAME, SEED, check_tricks, event, play_trick, start
from tests.games.test_king_of_danger_hands import (
    THREE_DECK,
    THREE_TRICKS,
    TIE_SECOND_DECK,
    TIE_SECOND_TRICKS,
)
from tests.test_audit import reseal

ANN, BOB, CY = range(3)

# Hand 2 of the same deal with every tracker back at 3. Cy wins every Walls trick
# but the last (+2 a trick, held at 8); nobody else plays a Walls card. The last
# trick: Cy's Wizard 8 names Walls, the King of Wizards sees it (the King of
# Cannons sees no Cannons card) and Ann's King takes it: Ann +2.
RESET_SECOND_TRICKS = [
    ([(CY, "W7"), (ANN, "Z7"), (BOB, "Z6")], "walls", CY, "highest", [3, 3, 5]),
    ([(CY, "W6"), (ANN, "Z5"), (BOB, "Z4")], "walls", CY, "highest", [3, 3, 7]),
    ([(CY, "W5"), (ANN, "Z3"), (BOB, "Z2")], "walls", CY, "highest", [3, 3, 8]),
    ([(CY, "W4"), (ANN, "Z1"), (BOB, "C1")], "walls", CY, "highest", [3, 3, 8]),
    ([(CY, "W3"), (ANN, "C2"), (BOB, "C3")], "walls", CY, "highest", [3, 3, 8]),
    ([(CY, "W2"), (ANN, "C4"), (BOB, "C5")], "walls", CY, "highest", [3, 3, 8]),
    ([(CY, "W1"), (ANN, "C6"), (BOB, "C7")], "walls", CY, "highest", [3, 3, 8]),
    ([(CY, "Z8 walls"), (ANN, "KZ"), (BOB, "KC")], "walls", ANN, "king-condition", [5, 3, 8]),
]


def first_hand(table, log):
    """Hand 1 (dealt by Ann) is the same under either reading: every tracker starts
    the game at 3; it ends at 2, 6, 3, and nobody has reached the target of 10."""
    check_tricks(table, THREE_TRICKS[:-1], log)
    plays, *_, trackers = THREE_TRICKS[-1]
    events = play_trick(table, plays, log)  # the trackers after it are the next hand's
    assert event(events, "trick-won")["trackers"] == trackers
    assert event(events, "hand-scored") == {"hand": 1, "trackers": [2, 6, 3], "scores": [2, 6, 3]}
    assert event(events, "hand-dealt")["dealer"] == BOB and table.state.result is None


def carried_game(table, log):
    first_hand(table, log)
    assert table.state.trackers == [2, 6, 3]  # hand 2 starts where hand 1 ended
    events = check_tricks(table, TIE_SECOND_TRICKS, log)
    # 2 + 4, 6 + 6, 3 + 8: Bob alone has the highest score, 12, past the target.
    assert event(events, "hand-scored") == {"hand": 2, "trackers": [4, 6, 8], "scores": [6, 12, 11]}
    assert table.state.result["winners"] == [BOB] and table.state.result["scores"] == [6, 12, 11]


def test_by_default_the_trackers_carry_over_into_the_next_hand():
    table, log = start(3, [THREE_DECK, TIE_SECOND_DECK], target=10)
    assert table.state.options["trackers"] == "carry"
    carried_game(table, log)


def test_with_the_house_rule_every_hand_starts_the_trackers_at_3():
    table, log = start(3, [THREE_DECK, TIE_SECOND_DECK], target=10, trackers="reset")
    first_hand(table, log)
    assert table.state.trackers == [3, 3, 3]
    view = table.engine.view(table.state, ANN)
    assert view["trackers"] == [3, 3, 3] and view["trackers_between_hands"] == "reset"
    assert "trackers back to 3 each hand" in table.engine.render(table.state, ANN)
    events = check_tricks(table, RESET_SECOND_TRICKS, log)
    # 2 + 5, 6 + 3, 3 + 8: Cy alone has the highest score, 11, past the target.
    assert event(events, "hand-scored") == {"hand": 2, "trackers": [5, 3, 8], "scores": [7, 9, 11]}
    assert table.state.result["winners"] == [CY] and table.state.result["scores"] == [7, 9, 11]
    # The export audits valid; the same moves claiming the default reading do not:
    # the replay's trackers differ from the first trick of hand 2 on.
    text = "".join(e.to_json() + "\n" for e in log)
    report = audit(text)
    assert report["valid"] and report["seed"] == "verified", report
    lines = [json.loads(x) for x in text.splitlines()]
    lines[0]["payload"]["options"]["trackers"] = "carry"
    report = audit(reseal(lines))
    second_deal = [d["seq"] for d in lines if d["type"] == "hand-dealt"][1]
    first_trick = next(d["seq"] for d in lines if d["type"] == "trick-won" and d["seq"] > second_deal)
    assert not report["valid"] and report["first_error"]["seq"] == first_trick


def test_a_game_created_before_the_house_rule_keeps_its_trackers_and_audits():
    created = Table.created_event(GAME, "g-old", ["Ann", "Bob", "Cy"],
                                  {"deck": [THREE_DECK, TIE_SECOND_DECK], "target": 10}, SEED, True)
    d = created.to_dict()
    d["payload"]["engine_version"] = 2
    del d["payload"]["options"]["trackers"]
    created = Event.from_dict({**d, "hash": ""}).sealed()
    table = Table.from_created(created)
    log = [created] + table.settle_all(SEED)
    assert table.state.options["trackers"] == "carry"
    carried_game(table, log)
    report = audit("".join(e.to_json() + "\n" for e in log))
    assert report["valid"] and report["seed"] == "verified", report

