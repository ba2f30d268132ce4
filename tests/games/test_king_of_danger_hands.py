"""Whole hands from stacked decks, every outcome worked out by hand from the rules.

Each script lists, trick by trick, the cards in play order, then the trick suit,
the winner, why it won, and every seat's Castle Tracker after the trick.
"""

from referee.games.king_of_danger.cards import DECK
from tests.games.king_of_danger_helpers import check_tricks, event, play, start

ANN, BOB, CY, DEE, EVE = range(5)

# ---- the deal ------------------------------------------------------------------------


def test_three_player_deal_starts_left_of_dealer_and_reveals_two_leftovers():
    table, log = start(3, list(DECK))
    dealt = log[1].payload
    assert log[1].type == "hand-dealt" and dealt["dealer"] == ANN and dealt["hand"] == 1
    # one card at a time: Bob (left of the dealer), Cy, Ann, Bob, ...
    assert dealt["hands"] == [
        ["W3", "W6", "C2", "C5", "Z1", "Z4", "Z7", "KW"],
        ["W1", "W4", "W7", "C3", "C6", "Z2", "Z5", "Z8"],
        ["W2", "W5", "C1", "C4", "C7", "Z3", "Z6", "KD"],
    ]
    assert dealt["leftovers"] == ["KC", "KZ"]
    assert table.engine.view(table.state, None)["leftovers"] == ["KC", "KZ"]
    assert table.to_act() == [BOB]


def test_four_player_deal_with_another_first_dealer():
    deck = ["KW", "KD", "KC", "KZ"] + [c for c in DECK if c[0] != "K"]
    table, log = start(4, deck, first_dealer=DEE)
    dealt = log[1].payload
    assert dealt["dealer"] == DEE
    assert dealt["hands"] == [
        ["KW", "W1", "W5", "C2", "C6", "Z3"],
        ["KD", "W2", "W6", "C3", "C7", "Z4"],
        ["KC", "W3", "W7", "C4", "Z1", "Z5"],
        ["KZ", "W4", "C1", "C5", "Z2", "Z6"],
    ]
    assert dealt["leftovers"] == ["Z7", "Z8"]
    assert table.to_act() == [ANN]


def test_five_player_deal_leaves_one_card():
    table, log = start(5, list(DECK), first_dealer=CY)
    dealt = log[1].payload
    # Dee first: Dee W1, Eve W2, Ann W3, Bob W4, Cy W5, Dee W6, ...
    assert dealt["hands"][DEE] == ["W1", "W6", "C4", "Z2", "Z7"]
    assert dealt["hands"][CY] == ["W5", "C3", "Z1", "Z6", "KC"]
    assert dealt["leftovers"] == ["KZ"]
    assert [len(h) for h in dealt["hands"]] == [5] * 5
    assert table.to_act() == [DEE]


def test_two_player_deal_face_down_then_face_up_then_hand():
    table, log = start(2, list(DECK), first_dealer=BOB)
    dealt = log[1].payload
    # Ann is left of the dealer Bob, so she gets the first card of each round.
    assert dealt["face_down"] == [["W1", "W3", "W5", "W7"], ["W2", "W4", "W6", "C1"]]
    assert dealt["face_up"] == [["C2", "C4", "C6", "Z1"], ["C3", "C5", "C7", "Z2"]]
    assert dealt["hands"] == [["Z3", "Z5", "Z7", "KD", "KC"], ["Z4", "Z6", "Z8", "KW", "KZ"]]
    assert dealt["leftovers"] == []
    assert table.to_act() == [ANN]


def test_a_list_of_decks_gives_one_deck_per_hand():
    second = list(reversed(DECK))
    table, log = start(3, [THREE_DECK, second], target=100)
    assert log[1].payload["hands"][BOB][:2] == ["W7", "W6"]
    for seat, text in _three_player_plays():
        play(table, seat, text, log)
    dealt = [e.payload for e in log if e.type == "hand-dealt"]
    # hand 2 dealt by Bob from the reversed deck: Cy first, then Ann, then Bob
    assert dealt[1]["dealer"] == BOB
    assert dealt[1]["hands"][CY][:3] == ["KZ", "KD", "Z6"]
    assert dealt[1]["hands"][ANN][:3] == ["KC", "Z8", "Z5"]
    assert dealt[1]["leftovers"] == ["W2", "W1"]


# ---- three players: every King's condition, the tie, the 8 limit ------------------

# Bob: W7 W6 W5 KW KZ C7 C6 C5; Cy: W1 W3 W4 Z1 KC C3 C4 Z7;
# Ann: W2 Z6 C1 C2 Z8 KD Z5 Z3; Z2 and Z4 left over. Dealt by Ann: Bob, Cy, Ann, ...
THREE_DECK = ["W7", "W1", "W2", "W6", "W3", "Z6", "W5", "W4", "C1", "KW", "Z1", "C2",
              "KZ", "KC", "Z8", "C7", "C3", "KD", "C6", "C4", "Z5", "C5", "Z7", "Z3",
              "Z2", "Z4"]

THREE_TRICKS = [
    # Walls trick: winner +2, every other seat that played a Walls card +1.
    ([(BOB, "W7"), (CY, "W1"), (ANN, "W2")], "walls", BOB, "highest", [4, 5, 4]),
    # W6 and the Wizard 6 tie: the trick-suit card wins. Ann's Wizard earns nothing.
    ([(BOB, "W6"), (CY, "W3"), (ANN, "Z6")], "walls", BOB, "highest", [4, 7, 5]),
    # Bob would reach 9: held at 8. Ann, out of Walls, may throw a Cannons card.
    ([(BOB, "W5"), (CY, "W4"), (ANN, "C1")], "walls", BOB, "highest", [4, 8, 6]),
    # A King leads; the first non-King is a Wizard whose player names Cannons.
    # No Walls card in the trick, so the King of Walls does not win: C2 beats Z1.
    ([(BOB, "KW"), (CY, "Z1 cannons"), (ANN, "C2")], "cannons", ANN, "highest", [4, 7, 5]),
    # King of Wizards: a Wizard is in the trick. King of Cannons: no Cannons card.
    ([(ANN, "Z8 walls"), (BOB, "KZ"), (CY, "KC")], "walls", BOB, "king-condition", [4, 8, 5]),
    # The King of Danger wins over the higher Cannons.
    ([(BOB, "C7"), (CY, "C3"), (ANN, "KD")], "cannons", ANN, "king-of-danger", [4, 7, 4]),
    ([(ANN, "Z5 cannons"), (BOB, "C6"), (CY, "C4")], "cannons", BOB, "highest", [3, 7, 3]),
    # A Wizard out-numbers the trick suit's card.
    ([(BOB, "C5"), (CY, "Z7"), (ANN, "Z3")], "cannons", CY, "highest", [2, 6, 3]),
]


def _three_player_plays():
    return [p for plays, *_ in THREE_TRICKS for p in plays]


def test_three_player_hand():
    table, log = start(3, THREE_DECK)
    events = check_tricks(table, THREE_TRICKS, log)
    scored = event(events, "hand-scored")
    assert scored == {"hand": 1, "trackers": [2, 6, 3], "scores": [2, 6, 3]}
    # the deal passes left and the trackers are kept into the next hand
    dealt = event(events, "hand-dealt")
    assert dealt["dealer"] == BOB and dealt["hand"] == 2
    assert table.state.trackers == [2, 6, 3] and table.scores() == [2, 6, 3]
    assert table.to_act() == [CY]
    assert table.state.result is None
    # one explicit deck covers the first hand only: the second is shuffled
    second = sorted(c for h in dealt["hands"] for c in h) + dealt["leftovers"]
    assert sorted(second) == sorted(DECK) and dealt["hands"][BOB] != THREE_DECK[3:27:3]


def test_game_ends_at_the_target_with_the_highest_score():
    table, log = start(3, THREE_DECK, target=6)
    events = check_tricks(table, THREE_TRICKS, log)
    assert [e.type for e in events][-3:] == ["hand-scored", "game-ended", "seed-revealed"]
    result = table.state.result
    assert result["winners"] == [BOB] and result["scores"] == [2, 6, 3]
    assert table.status == "finished"


# Hand 2 of the tie game, dealt by Bob: Cy first, then Ann, then Bob.
# Cy: W7 W6 W5 W4 W3 W2 W1 Z8; Ann: Z7 Z5 Z3 Z1 C2 C4 C6 KZ;
# Bob: Z6 Z4 Z2 C1 C3 C5 C7 KC; KD and KW left over.
TIE_SECOND_DECK = ["W7", "Z7", "Z6", "W6", "Z5", "Z4", "W5", "Z3", "Z2", "W4", "Z1", "C1",
                   "W3", "C2", "C3", "W2", "C4", "C5", "W1", "C6", "C7", "Z8", "KZ", "KC",
                   "KD", "KW"]

TIE_SECOND_TRICKS = [  # trackers carried over from hand 1: [2, 6, 3]
    ([(CY, "W7"), (ANN, "Z7"), (BOB, "Z6")], "walls", CY, "highest", [2, 6, 5]),
    ([(CY, "W6"), (ANN, "Z5"), (BOB, "Z4")], "walls", CY, "highest", [2, 6, 7]),
    ([(CY, "W5"), (ANN, "Z3"), (BOB, "Z2")], "walls", CY, "highest", [2, 6, 8]),
    ([(CY, "W4"), (ANN, "Z1"), (BOB, "C1")], "walls", CY, "highest", [2, 6, 8]),
    ([(CY, "W3"), (ANN, "C2"), (BOB, "C3")], "walls", CY, "highest", [2, 6, 8]),
    ([(CY, "W2"), (ANN, "C4"), (BOB, "C5")], "walls", CY, "highest", [2, 6, 8]),
    ([(CY, "W1"), (ANN, "C6"), (BOB, "C7")], "walls", CY, "highest", [2, 6, 8]),
    ([(CY, "Z8 walls"), (ANN, "KZ"), (BOB, "KC")], "walls", ANN, "king-condition", [4, 6, 8]),
]


def test_a_tie_for_the_highest_score_plays_another_hand():
    table, log = start(3, [THREE_DECK, TIE_SECOND_DECK], target=6)
    table.state.scores = [4, 0, 3]  # set position: the scores before this hand
    events = check_tricks(table, THREE_TRICKS, log)
    assert event(events, "hand-scored")["scores"] == [6, 6, 6]
    # all three reached the target and tie for the highest: no winner yet
    assert "game-ended" not in [e.type for e in events]
    assert table.state.result is None and event(events, "hand-dealt")["dealer"] == BOB
    events = check_tricks(table, TIE_SECOND_TRICKS, log)
    assert event(events, "hand-scored") == {"hand": 2, "trackers": [4, 6, 8],
                                            "scores": [10, 12, 14]}
    assert table.state.result["winners"] == [CY]
    assert table.state.result["scores"] == [10, 12, 14]


def test_tie_below_the_top_does_not_stop_the_game_ending():
    table, log = start(3, THREE_DECK, target=6)
    table.state.scores = [4, 0, 4]  # set position: Ann ends level with Bob, Cy above both
    events = check_tricks(table, THREE_TRICKS, log)
    assert event(events, "hand-scored")["scores"] == [6, 6, 7]
    assert table.state.result["winners"] == [CY]


# ---- five players: two Kings whose conditions both hold, the 1 limit --------------

# Dealt by Ann: Bob, Cy, Dee, Eve, Ann, ... W1 left over.
FIVE_DECK = ["W3", "KW", "Z2", "KZ", "W7",
             "C2", "KC", "C3", "C7", "C1",
             "Z8", "Z6", "C5", "KD", "C6",
             "W6", "Z1", "C4", "Z7", "W2",
             "W5", "Z4", "Z3", "Z5", "W4",
             "W1"]

FIVE_TRICKS = [
    # King of Walls and King of Wizards both see their kind: the later one wins.
    # Bob and Ann played Walls cards (+1); Cy's King of Walls is not a Walls card.
    ([(BOB, "W3"), (CY, "KW"), (DEE, "Z2"), (EVE, "KZ"), (ANN, "W7")],
     "walls", EVE, "king-condition", [4, 4, 3, 3, 5]),
    ([(EVE, "C7"), (ANN, "C1"), (BOB, "C2"), (CY, "KC"), (DEE, "C3")],
     "cannons", CY, "king-condition", [3, 3, 3, 2, 4]),
    ([(CY, "Z6 cannons"), (DEE, "C5"), (EVE, "KD"), (ANN, "C6"), (BOB, "Z8")],
     "cannons", EVE, "king-of-danger", [2, 2, 2, 1, 4]),
    ([(EVE, "Z7 walls"), (ANN, "W2"), (BOB, "W6"), (CY, "Z1"), (DEE, "C4")],
     "walls", EVE, "highest", [3, 3, 2, 1, 6]),
    # Dee is at 1 already and stays there; Bob's W5 is off-suit and cannot tie Z5.
    ([(EVE, "Z5 cannons"), (ANN, "W4"), (BOB, "W5"), (CY, "Z4"), (DEE, "Z3")],
     "cannons", EVE, "highest", [2, 2, 1, 1, 6]),
]


def test_five_player_hand():
    table, log = start(5, FIVE_DECK)
    assert log[1].payload["leftovers"] == ["W1"]
    events = check_tricks(table, FIVE_TRICKS, log)
    assert event(events, "hand-scored")["scores"] == [2, 2, 1, 1, 6]
    assert event(events, "hand-dealt")["dealer"] == BOB


# ---- four players: a trick of Kings only -------------------------------------------


def test_trick_of_kings_only_is_set_aside_even_with_the_king_of_danger():
    deck = ["KW", "KD", "KC", "KZ"] + [c for c in DECK if c[0] != "K"]
    table, log = start(4, deck, first_dealer=DEE)
    check_tricks(table, [
        ([(ANN, "KW"), (BOB, "KD"), (CY, "KC"), (DEE, "KZ")], None, ANN, "set-aside",
         [3, 3, 3, 3]),
        # Ann leads again; everyone holds Walls and must play them.
        ([(ANN, "W5"), (BOB, "W6"), (CY, "W7"), (DEE, "W4")], "walls", CY, "highest",
         [4, 4, 5, 4]),
    ], log)
    assert [t["winner"] for t in table.state.tricks] == [None, CY]


# ---- two players: table cards, the reduced Walls gain --------------------------------

# Dealt by Ann, so Bob gets the first card of each round.
# Face down  Bob: C5 W5 KZ Z7      Ann: W2 Z8 W4 Z6
# Face up    Bob: W7 C7 C6 Z1      Ann: W1 C1 C2 C3   (stack k on face-down k)
# Hand       Bob: KW C4 W3 W6 Z3   Ann: KC KD Z4 Z5 Z2
TWO_DECK = ["C5", "W2", "W5", "Z8", "KZ", "W4", "Z7", "Z6",
            "W7", "W1", "C7", "C1", "C6", "C2", "Z1", "C3",
            "KW", "KC", "C4", "KD", "W3", "Z4", "W6", "Z5", "Z3", "Z2"]

TWO_TRICKS = [
    # Walls trick with two players: the winner gains 1, Ann's Walls card nothing.
    ([(BOB, "W7"), (ANN, "W1")], "walls", BOB, "highest", [3, 4]),
    ([(BOB, "KW"), (ANN, "KC")], None, BOB, "set-aside", [3, 4]),
    ([(BOB, "C7"), (ANN, "C1")], "cannons", BOB, "highest", [2, 4]),
    ([(BOB, "C6"), (ANN, "C2")], "cannons", BOB, "highest", [1, 4]),
    ([(BOB, "C5"), (ANN, "C3")], "cannons", BOB, "highest", [1, 4]),
    ([(BOB, "Z1 walls"), (ANN, "W2")], "walls", ANN, "highest", [2, 4]),
    ([(ANN, "Z8 cannons"), (BOB, "C4")], "cannons", ANN, "highest", [2, 3]),
    ([(ANN, "KD"), (BOB, "W3")], "walls", ANN, "king-of-danger", [3, 3]),
    ([(ANN, "Z4 walls"), (BOB, "W5")], "walls", BOB, "highest", [3, 4]),
    # King of Wizards with no Wizard in the trick loses to a Walls 4.
    ([(BOB, "KZ"), (ANN, "W4")], "walls", ANN, "highest", [4, 4]),
    ([(ANN, "Z6 walls"), (BOB, "W6")], "walls", BOB, "highest", [4, 5]),
    ([(BOB, "Z7 cannons"), (ANN, "Z5")], "cannons", BOB, "highest", [3, 5]),
    ([(BOB, "Z3 walls"), (ANN, "Z2")], "walls", BOB, "highest", [3, 6]),
]


def test_two_player_hand():
    table, log = start(2, TWO_DECK)
    events = check_tricks(table, TWO_TRICKS, log)
    assert event(events, "hand-scored") == {"hand": 1, "trackers": [3, 6], "scores": [3, 6]}
    assert event(events, "hand-dealt")["dealer"] == BOB
    assert table.to_act() == [ANN]


def test_two_player_table_cards_turn_up_the_card_beneath():
    table, log = start(2, TWO_DECK)
    first = play(table, BOB, "W7", log)[0].payload
    assert first["from"] == "table" and first["revealed"] == "C5"
    assert table.state.face_up[BOB] == ["C5", "C7", "C6", "Z1"]
    assert table.state.face_down[BOB] == [None, "W5", "KZ", "Z7"]
    view = table.engine.view(table.state, ANN)
    assert view["face_up"][BOB] == ["C5", "C7", "C6", "Z1"]
    assert view["covered"][BOB] == [False, True, True, True]
    assert play(table, ANN, "W1", log)[0].payload["revealed"] == "W2"
    # Bob leads again (won the trick) from his hand: nothing turned up
    second = play(table, BOB, "KW", log)[0].payload
    assert second["from"] == "hand" and "revealed" not in second
    play(table, ANN, "KC", log)
    play(table, BOB, "C7", log)
    play(table, ANN, "C1", log)
    play(table, BOB, "C6", log)
    play(table, ANN, "C2", log)
    # the C5 turned up by the first trick is now playable from the table,
    # and its stack is then empty
    fifth = play(table, BOB, "C5", log)[0].payload
    assert fifth["from"] == "table" and "revealed" not in fifth
    assert table.state.face_up[BOB][0] is None
