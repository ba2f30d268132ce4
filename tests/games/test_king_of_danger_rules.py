"""Refusals, options, notation and single tricks of King of Danger."""

import pytest

from referee.games import engine
from referee.games.base import BadOptions, GameOver, IllegalMove, MalformedMove, NotYourTurn
from referee.games.king_of_danger.cards import DECK
from referee.games.king_of_danger.trick import trackers_after, winner
from referee.table import Settling
from tests.games.king_of_danger_helpers import GAME, play, play_trick, start
from tests.games.test_king_of_danger_hands import (
    THREE_DECK,
    THREE_TRICKS,
    TWO_DECK,
    TWO_TRICKS,
)

ANN, BOB, CY, DEE, EVE = range(5)
KOD = engine(GAME)


def refusal(table, seat, move):
    """The exception ``move`` by ``seat`` raises, checking it changed nothing."""
    before = (table.seq, table.state)
    with pytest.raises((IllegalMove, NotYourTurn, MalformedMove, GameOver, Settling)) as err:
        table.propose(seat, [move])
    assert (table.seq, table.state) == before
    return err.value


def illegal_rule(table, seat, move) -> str:
    err = refusal(table, seat, move)
    assert isinstance(err, IllegalMove), err
    return err.rule


# ---- options -----------------------------------------------------------------------


def test_options_defaults():
    assert KOD.setup({}, 3) == {"target": 31, "first_dealer": 0, "follow_suit": "hand", "trackers": "carry",
                                "on_resign": "play-on"}
    assert KOD.setup({"target": 50, "first_dealer": 4, "deck": list(DECK)}, 5) == {
        "target": 50, "first_dealer": 4, "deck": list(DECK), "follow_suit": "hand", "trackers": "carry",
        "on_resign": "play-on"}
    assert KOD.setup({"follow_suit": "hand-and-table"}, 2)["follow_suit"] == "hand-and-table"
    assert KOD.setup({"trackers": "reset"}, 4)["trackers"] == "reset"


@pytest.mark.parametrize("options, field", [
    ({"colour": "red"}, "colour"),
    ({"seed": "x"}, "seed"),
    ({"target": 0}, "target"),
    ({"target": "31"}, "target"),
    ({"target": True}, "target"),
    ({"target": 1001}, "target"),
    ({"first_dealer": 3}, "first_dealer"),
    ({"first_dealer": -1}, "first_dealer"),
    ({"deck": list(DECK)[:-1]}, "deck"),
    ({"deck": list(DECK)[:-1] + ["W1"]}, "deck"),
    ({"deck": [list(DECK), list(DECK)[1:]]}, "deck[1]"),
    ({"deck": "W1 W2"}, "deck"),
    ({"deck": []}, "deck"),
    ({"follow_suit": "table"}, "options.follow_suit"),
    ({"follow_suit": None}, "options.follow_suit"),
    ({"follow_suit": ["hand"]}, "options.follow_suit"),
    ({"trackers": "keep"}, "options.trackers"),
])
def test_bad_options_are_refused(options, field):
    with pytest.raises(BadOptions) as err:
        KOD.setup(options, 3)
    assert err.value.extra["field"] == field


@pytest.mark.parametrize("players", [1, 6])
def test_two_to_five_players(players):
    with pytest.raises(BadOptions):
        KOD.setup({}, players)


# ---- notation ------------------------------------------------------------------------


def test_long_and_short_notation_are_the_same_move():
    move = {"type": "play", "card": "Z5", "suit": "walls"}
    assert KOD.parse("play Z5 walls") == [move]
    assert KOD.parse("Z5 walls") == [move]
    assert KOD.parse("  z5   WALLS ") == [move]
    assert KOD.parse("play KD; W3\nresign") == [
        {"type": "play", "card": "KD"}, {"type": "play", "card": "W3"}, {"type": "resign"}]
    assert KOD.format(move) == "play Z5 walls"
    assert KOD.format({"type": "play", "card": "C7"}) == "play C7"


@pytest.mark.parametrize("card", DECK)
def test_every_card_round_trips(card):
    for move in [{"type": "play", "card": card}] + (
            [{"type": "play", "card": card, "suit": s} for s in ("walls", "cannons")]
            if card[0] == "Z" else []):
        assert KOD.parse(KOD.format(move)) == [move]
        assert KOD.normalize(dict(move)) == move


@pytest.mark.parametrize("text", ["play", "play X9", "W8", "Z9 walls", "Z5 swords",
                                  "W3 walls", "KD cannons", "play Z5 walls now", "C0"])
def test_unreadable_text_is_malformed(text):
    with pytest.raises(MalformedMove):
        KOD.parse(text)


@pytest.mark.parametrize("text", ["ply W1", "lead Z5 walls", "take W1 walls"])
def test_a_word_for_the_verb_is_refused_as_one_not_as_a_card(text):
    """"ply W1" is a verb misspelt: the answer says so, and never that 'ply' is no card."""
    with pytest.raises(MalformedMove) as err:
        KOD.parse(text)
    assert err.value.extra["field"] == "text"
    assert f"{text.split()[0]!r} is no move here" in err.value.detail and "card code" not in err.value.detail


@pytest.mark.parametrize("move, field", [
    ({"type": "lead", "card": "W1"}, "type"),
    ({"type": "play"}, "card"),
    ({"type": "play", "card": 5}, "card"),
    ({"type": "play", "card": "W1", "from": "hand"}, "from"),
    ({"type": "play", "card": "W1", "suit": "walls"}, "suit"),
    ({"type": "play", "card": "Z1", "suit": "wizards"}, "suit"),
])
def test_malformed_moves(move, field):
    with pytest.raises(MalformedMove) as err:
        KOD.normalize(move)
    assert err.value.extra["field"] == field


def test_normal_form_uppercases_the_card_and_drops_a_null_suit():
    assert KOD.normalize({"type": "play", "card": "kd", "suit": None}) == {"type": "play",
                                                                            "card": "KD"}


# ---- refusals in play --------------------------------------------------------------


def test_not_your_turn():
    table, _ = start(3, THREE_DECK)
    err = refusal(table, ANN, {"type": "play", "card": "W2"})
    assert isinstance(err, NotYourTurn) and err.code == "not-your-turn"


def test_not_your_card_whatever_the_card_is():
    table, _ = start(3, THREE_DECK)
    assert illegal_rule(table, BOB, {"type": "play", "card": "W1"}) == "not-your-card"  # Cy's
    assert illegal_rule(table, BOB, {"type": "play", "card": "Z2"}) == "not-your-card"  # left over
    play(table, BOB, "W7")
    play(table, CY, "W1")
    play(table, ANN, "W2")
    assert illegal_rule(table, BOB, {"type": "play", "card": "W7"}) == "not-your-card"  # played


def test_own_face_down_card_is_refused_like_any_other_card():
    table, _ = start(2, TWO_DECK)
    under = refusal(table, BOB, {"type": "play", "card": "C5"})  # Bob's, face down
    elsewhere = refusal(table, BOB, {"type": "play", "card": "KC"})  # in Ann's hand
    assert under.rule == elsewhere.rule == "not-your-card"
    assert under.detail.replace("C5", "") == elsewhere.detail.replace("KC", "")


def test_follow_suit_with_walls_in_hand():
    table, _ = start(3, THREE_DECK)
    play(table, BOB, "W7")
    # Cy holds W1 W3 W4: neither a Wizard nor a King may be played instead
    assert illegal_rule(table, CY, {"type": "play", "card": "Z1"}) == "follow-suit"
    assert illegal_rule(table, CY, {"type": "play", "card": "KC"}) == "follow-suit"
    assert illegal_rule(table, CY, {"type": "play", "card": "C3"}) == "follow-suit"
    assert KOD.legal_moves(table.state, CY) == [
        {"type": "play", "card": c} for c in ("W1", "W3", "W4")]


def test_follow_suit_named_by_a_wizard():
    table, _ = start(3, THREE_DECK)
    play_trick(table, THREE_TRICKS[0][0] + THREE_TRICKS[1][0] + THREE_TRICKS[2][0])
    play(table, BOB, "KW")
    play(table, CY, "Z1 cannons")
    # Ann holds C2: the Cannons named by Cy's Wizard bind her
    assert illegal_rule(table, ANN, {"type": "play", "card": "KD"}) == "follow-suit"
    assert KOD.legal_moves(table.state, ANN) == [{"type": "play", "card": "C2"}]


def test_by_default_only_the_hand_obliges_with_two_players():
    table, _ = start(2, TWO_DECK)
    play(table, BOB, "W7")
    # Ann's only Walls card, W1, is face up on the table, not in her hand (KC KD
    # Z4 Z5 Z2): she has no Walls "in her hand", so she may play any card.
    assert [m["card"] for m in KOD.legal_moves(table.state, ANN)] == [
        "W1", "C1", "C2", "C3", "Z2", "Z4", "Z5", "KD", "KC"]
    events = play(table, ANN, "KD")
    # The King of Danger takes the Walls trick: Ann gains 1 (two players).
    won = next(e.payload for e in events if e.type == "trick-won")
    assert (won["winner"], won["by"], won["trackers"]) == (ANN, "king-of-danger", [4, 3])


def test_with_the_house_rule_face_up_cards_oblige_too():
    table, _ = start(2, TWO_DECK, follow_suit="hand-and-table")
    play(table, BOB, "W7")
    # Ann's only Walls card is face up on the table: she must play it
    assert illegal_rule(table, ANN, {"type": "play", "card": "KD"}) == "follow-suit"
    assert illegal_rule(table, ANN, {"type": "play", "card": "KC"}) == "follow-suit"
    assert KOD.legal_moves(table.state, ANN) == [{"type": "play", "card": "W1"}]
    events = play(table, ANN, "W1")
    won = next(e.payload for e in events if e.type == "trick-won")
    assert (won["winner"], won["by"], won["trackers"]) == (BOB, "highest", [3, 4])


def test_by_default_a_card_of_the_suit_in_hand_still_obliges():
    table, _ = start(2, TWO_DECK)
    play(table, BOB, "W7")
    play(table, ANN, "KD")  # Ann takes the trick and leads
    play(table, ANN, "C1")  # from her table: a Cannons trick
    # Bob holds C4 in his hand: he must play a Cannons card, from his hand or his
    # table (C5, turned up by his W7, C7 and C6), and nothing else.
    assert [m["card"] for m in KOD.legal_moves(table.state, BOB)] == ["C4", "C5", "C6", "C7"]
    assert illegal_rule(table, BOB, {"type": "play", "card": "KW"}) == "follow-suit"


def test_a_game_created_before_the_house_rule_keeps_face_up_cards_obliging():
    from referee.events import Event
    from referee.table import Table

    created = Table.created_event(GAME, "g-old", ["Ann", "Bob"], {"deck": TWO_DECK}, "s", True)
    d = created.to_dict()
    d["payload"]["engine_version"] = 1
    del d["payload"]["options"]["follow_suit"]
    old = Table.from_created(Event.from_dict({**d, "hash": ""}).sealed())
    old.settle_all("s")
    play(old, BOB, "W7")
    assert old.state.options["follow_suit"] == "hand-and-table"
    assert KOD.legal_moves(old.state, ANN) == [{"type": "play", "card": "W1"}]


def test_face_down_cards_do_not_bind_a_follower():
    table, _ = start(2, TWO_DECK)
    # set position: Ann's face-up W1 and her face-down Z8 trade places, so her
    # only Walls cards (W1 W2 W4) all lie face down
    table.state.face_up[ANN][0], table.state.face_down[ANN][1] = "Z8", "W1"
    play(table, BOB, "W7")
    legal = KOD.legal_moves(table.state, ANN)
    assert [m["card"] for m in legal] == ["C1", "C2", "C3", "Z2", "Z4", "Z5", "Z8", "KD", "KC"]


def test_a_wizard_leading_must_name_the_suit():
    table, _ = start(3, THREE_DECK)
    for seat, text in [p for plays, *_ in THREE_TRICKS[:4] for p in plays]:
        play(table, seat, text)
    assert illegal_rule(table, ANN, {"type": "play", "card": "Z8"}) == "name-the-suit"
    legal = KOD.legal_moves(table.state, ANN)
    assert {"type": "play", "card": "Z8", "suit": "walls"} in legal
    assert {"type": "play", "card": "Z8", "suit": "cannons"} in legal
    assert {"type": "play", "card": "Z8"} not in legal


def test_a_wizard_after_a_king_lead_names_the_suit():
    table, _ = start(3, THREE_DECK)
    for seat, text in [p for plays, *_ in THREE_TRICKS[:3] for p in plays]:
        play(table, seat, text)
    play(table, BOB, "KW")
    assert illegal_rule(table, CY, {"type": "play", "card": "Z1"}) == "name-the-suit"
    # before the suit is known, any card may follow the King
    assert KOD.legal_moves(table.state, CY) == [
        {"type": "play", "card": "C3"}, {"type": "play", "card": "C4"},
        {"type": "play", "card": "Z1", "suit": "walls"},
        {"type": "play", "card": "Z1", "suit": "cannons"},
        {"type": "play", "card": "Z7", "suit": "walls"},
        {"type": "play", "card": "Z7", "suit": "cannons"},
        {"type": "play", "card": "KC"}]


def test_a_wizard_cannot_name_a_suit_already_set():
    table, _ = start(3, THREE_DECK)
    play(table, BOB, "W7")
    play(table, CY, "W1")
    play(table, ANN, "W2")
    play(table, BOB, "W6")
    play(table, CY, "W3")
    assert illegal_rule(table, ANN, {"type": "play", "card": "Z6", "suit": "walls"}) == \
        "suit-already-named"


def test_no_card_while_the_referee_must_score_the_hand():
    table, _ = start(3, THREE_DECK)
    for seat, text in [p for plays, *_ in THREE_TRICKS for p in plays][:-1]:
        play(table, seat, text)
    # complete the hand without letting the referee step run
    events, fork = table.propose(ANN, [{"type": "play", "card": "Z3"}])
    assert fork.due() == "score-hand" and fork.to_act() == []
    with pytest.raises(IllegalMove) as err:
        KOD.decide(fork.state, BOB, {"type": "play", "card": "W1"})
    assert err.value.rule == "referee-step-due"
    assert isinstance(refusal(fork, BOB, {"type": "play", "card": "W1"}), Settling)


def test_no_move_after_the_game_is_over():
    table, _ = start(3, THREE_DECK, target=6)
    for seat, text in [p for plays, *_ in THREE_TRICKS for p in plays]:
        play(table, seat, text)
    assert isinstance(refusal(table, BOB, {"type": "play", "card": "W1"}), GameOver)
    assert KOD.legal(table.state, BOB) == []


def test_resign_ends_the_game_for_the_others_under_on_resign_end():
    table, log = start(3, THREE_DECK, on_resign="end")
    play_trick(table, THREE_TRICKS[0][0], log)
    play(table, CY, "resign", log)
    # the highest score among the others wins; trackers are not scores, all are 0
    assert table.state.result["winners"] == [ANN, BOB]
    assert table.state.result["reason"] == "seat 2 resigned"


# ---- single tricks, beyond the scripted hands ------------------------------------------


def test_king_of_danger_beats_kings_whose_conditions_hold():
    cards = [[0, "W1"], [1, "KW"], [2, "KD"], [3, "C2"], [4, "KC"]]
    assert winner(cards, "walls") == (2, "king-of-danger")


def test_last_king_meeting_its_condition_wins_over_an_earlier_one():
    cards = [[0, "C1"], [1, "KC"], [2, "Z3"], [3, "KZ"]]
    assert winner(cards, "cannons") == (3, "king-condition")
    # the later King fails (no Walls): the earlier one that holds wins
    cards = [[0, "C1"], [1, "KC"], [2, "Z3"], [3, "KW"]]
    assert winner(cards, "cannons") == (1, "king-condition")


def test_a_kings_condition_counts_off_suit_cards_too():
    # a Cannons card thrown on a Walls trick still wakes the King of Cannons
    assert winner([[0, "W5"], [1, "C1"], [2, "KC"]], "walls") == (2, "king-condition")
    assert winner([[0, "C5"], [1, "W1"], [2, "KW"]], "cannons") == (2, "king-condition")


def test_off_suit_cards_never_win():
    assert winner([[0, "Z2"], [1, "C7"], [2, "W7"]], "walls") == (2, "highest")
    assert winner([[0, "Z2"], [1, "W7"], [2, "C1"]], "cannons") == (0, "highest")


def test_tracker_limits():
    assert trackers_after([8, 8, 8], [[0, "W1"], [1, "W2"], [2, "C1"]], "walls", 1) == [8, 8, 8]
    assert trackers_after([1, 1, 2], [[0, "C1"], [1, "C2"], [2, "C3"]], "cannons", 2) == [1, 1, 2]
    assert trackers_after([7, 7], [[0, "W1"], [1, "W2"]], "walls", 1) == [7, 8]
    assert trackers_after([2, 2], [[0, "C1"], [1, "C2"]], "cannons", 1) == [1, 2]


def test_two_player_hand_of_the_whole_script_is_legal_move_by_move():
    table, _ = start(2, TWO_DECK)
    for plays, *_ in TWO_TRICKS:
        for seat, text in plays:
            assert KOD.parse(text)[0] in KOD.legal_moves(table.state, seat)
            play(table, seat, text)
