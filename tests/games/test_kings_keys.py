"""King's Keys: scripted hands from stacked decks, set positions and refusals.

The expected outcomes are worked out from the rule text (and the rulings in
docs/games/kings-keys.md), card by card, not read off the engine.
"""

import pytest

from referee.autoplay import new_table
from referee.events import Event
from referee.games import engine as engine_by_name
from referee.games.base import BadOptions, GameOver, IllegalMove, MalformedMove, NotYourTurn
from referee.games.kings_keys.cards import NATURALS
from referee.games.kings_keys.engine import final_result
from referee.rng import Rng
from tests.games.kings_keys_helpers import SEED, move, stack, table_with

KK = engine_by_name("kings-keys")

# Eight field cards of eight different colour-and-item kinds.
QUIET_FIELD = ["R1A", "G2S", "B3C", "Y4K", "R2S", "G3C", "B4K", "Y1A"]


def refused(table, seat, m, rule):
    with pytest.raises(IllegalMove) as err:
        table.propose(seat, [m])
    assert err.value.rule == rule
    return err.value


# ---- options --------------------------------------------------------------------------


def test_options_defaults_and_refusals():
    assert KK.setup({}, 4) == {"wild_cards": False, "first_dealer": 0, "wild_stands_for": "any",
                               "match": "compulsory", "on_resign": "play-on"}
    rules = {"wild_cards": True, "first_dealer": 2, "wild_stands_for": "not-held", "match": "optional",
             "on_resign": "end"}
    assert KK.setup(rules, 3) == rules
    for opts, fld in [({"colour": 1}, "colour"), ({"wild_cards": "yes"}, "wild_cards"),
                      ({"first_dealer": 3}, "first_dealer"), ({"first_dealer": True}, "first_dealer"),
                      ({"deck": NATURALS[:-1]}, "deck"), ({"deck": NATURALS, "wild_cards": True}, "deck"),
                      ({"deck": "R1A"}, "deck"), ({"deck": [NATURALS, ["R1A"]]}, "deck[1]"),
                      ({"wild_stands_for": "held"}, "options.wild_stands_for"),
                      ({"wild_stands_for": True}, "options.wild_stands_for"),
                      ({"match": "sometimes"}, "options.match")]:
        with pytest.raises(BadOptions) as err:
            KK.setup(opts, 3)
        assert err.value.extra["field"] == fld
    # a list of decks, one per hand, is taken as it is
    assert KK.setup({"deck": [NATURALS, NATURALS[::-1]]}, 4)["deck"] == [NATURALS, NATURALS[::-1]]


def test_three_or_four_players_only():
    from referee.table import Table

    for n in (2, 5):
        with pytest.raises(BadOptions):
            Table.created_event("kings-keys", "g", [f"p{i}" for i in range(n)], {}, "s", False)


# ---- the deal ---------------------------------------------------------------------------


def test_deal_four_players_one_card_at_a_time_from_the_dealers_left():
    # deck in code order R1A R1S R1C R1K R2A ...; dealer 0, so seat 1 gets cards
    # 1, 5, 9, ... (every axes card of red and green 1-3), seat 2 the shields, seat 3
    # the coins, seat 0 (dealing to itself last) the keys; then 8 field cards.
    table, log = new_table("kings-keys", 4, {"deck": NATURALS}, seed=SEED)
    s = table.state
    assert s.hands[1] == ["R1A", "R2A", "R3A", "R4A", "G1A", "G2A", "G3A"]
    assert s.hands[2] == ["R1S", "R2S", "R3S", "R4S", "G1S", "G2S", "G3S"]
    assert s.hands[3] == ["R1C", "R2C", "R3C", "R4C", "G1C", "G2C", "G3C"]
    assert s.hands[0] == ["R1K", "R2K", "R3K", "R4K", "G1K", "G2K", "G3K"]
    assert s.field == [["G4A"], ["G4S"], ["G4C"], ["G4K"], ["B1A"], ["B1S"], ["B1C"], ["B1K"]]
    assert s.pile[0] == "B2A" and len(s.pile) == 28
    assert table.to_act() == [1]
    assert [e.type for e in log] == ["game-created", "dealt"]


def test_deal_three_players_dealer_two():
    # 9 cards each, seat 0 first: cards 1, 4, 7, ... of the deck in code order
    table, _ = new_table("kings-keys", 3, {"deck": NATURALS, "first_dealer": 2}, seed=SEED)
    s = table.state
    assert s.hands[0] == ["R1A", "R1K", "R2C", "R3S", "R4A", "R4K", "G1C", "G2S", "G3A"]
    assert [p[0] for p in s.field] == ["G3K", "G4A", "G4S", "G4C", "G4K",
                                       "B1A", "B1S", "B1C", "B1K", "B2A"]
    assert s.pile[0] == "B2S" and len(s.pile) == 27
    assert table.to_act() == [0]


def test_deal_with_wild_cards_one_more_card_each():
    four, _ = new_table("kings-keys", 4, {"wild_cards": True}, seed=SEED)
    assert [len(h) for h in four.state.hands] == [8, 8, 8, 8]
    assert len(four.state.field) == 8 and len(four.state.pile) == 72 - 32 - 8
    three, _ = new_table("kings-keys", 3, {"wild_cards": True}, seed=SEED)
    assert [len(h) for h in three.state.hands] == [10, 10, 10]
    assert sum(len(p) for p in three.state.field) == 10 and len(three.state.pile) == 72 - 30 - 10


def test_three_of_a_kind_in_the_field_are_grouped():
    field = ["G2S", "R1A", "B3C", "R3A", "Y4K", "R2A", "B4K", "Y1C"]
    table, _ = table_with(4, [[], ["R4A"], [], []], field)
    assert table.state.field == [["G2S"], ["R1A", "R3A", "R2A"], ["B3C"], ["Y4K"], ["B4K"],
                                 ["Y1C"]]


# ---- a turn ---------------------------------------------------------------------------


def test_a_turn_takes_matches_and_plays_the_drawn_card():
    table, log = table_with(4, [[], ["R3A"], ["R4C"], ["B2K"]], QUIET_FIELD,
                            pile=["G1S", "Y3S", "R1C"])
    # seat 1: R3A takes R1A (red axes); the pile's G1S takes G2S (green shields)
    events = move(table, 1, {"type": "play", "card": "R3A"})
    assert [(e.type, e.payload["card"], e.payload["took"]) for e in events] == [
        ("played", "R3A", ["R1A"]), ("drawn", "G1S", ["G2S"])]
    assert table.state.collected[1] == ["R3A", "R1A", "G1S", "G2S"]
    # seat 2: R4C matches nothing (R2S is shields), nor does Y3S: both stay
    move(table, 2, {"type": "play", "card": "R4C"})
    assert table.state.collected[2] == []
    assert [p[0] for p in table.state.field] == ["B3C", "Y4K", "R2S", "G3C", "B4K", "Y1A",
                                                 "R4C", "Y3S"]
    # seat 3: B2K takes B4K; the pile's R1C takes the R4C seat 2 left
    move(table, 3, {"type": "play", "card": "B2K"})
    assert table.state.collected[3] == ["B2K", "B4K", "R1C", "R4C"]
    assert table.to_act() == [0]
    assert len(table.state.hands[1]) == 6 and len(table.state.pile) == 28 - 3


def test_several_matches_the_player_chooses():
    field = ["R1A", "G2S", "B3C", "Y4K", "R2A", "G3C", "B4K", "Y1C"]
    hand = ["R3A", "G1K", "G2K", "G3K", "G4K", "B1A", "B2A"]
    table, _ = table_with(4, [[], hand, [], []], field, pile=["B1S"])
    legal = KK.legal(table.state, 1)
    assert {"type": "play", "card": "R3A", "take": "R1A"} in legal
    assert {"type": "play", "card": "R3A", "take": "R2A"} in legal
    assert {"type": "play", "card": "R3A"} not in legal
    assert {"type": "play", "card": "G1K"} in legal  # one choice: no take
    err = refused(table, 1, {"type": "play", "card": "R3A"}, "take-needed")
    assert err.extra["options"] == ["R1A", "R2A"]
    move(table, 1, {"type": "play", "card": "R3A", "take": "R2A"})
    assert table.state.collected[1] == ["R3A", "R2A"]
    assert ["R1A"] in table.state.field and ["R2A"] not in table.state.field


def test_the_fourth_card_takes_a_group_whole():
    field = ["G2S", "R1A", "B3C", "R3A", "Y4K", "R2A", "B4K", "Y1C"]
    table, _ = table_with(4, [[], ["R4A"], [], []], field, pile=["B1S"])
    assert {"type": "play", "card": "R4A"} in KK.legal(table.state, 1)
    events = move(table, 1, {"type": "play", "card": "R4A"})
    assert events[0].payload["took"] == ["R1A", "R3A", "R2A"]
    assert sorted(table.state.collected[1]) == ["R1A", "R2A", "R3A", "R4A"]
    assert all("R" + "A" != p[0][0] + p[0][2] for p in table.state.field)


def test_the_drawn_card_may_need_a_choice():
    field = ["G1S", "R1A", "B3C", "G2S", "Y4K", "R2C", "B4K", "Y1C"]
    table, log = table_with(4, [[], ["Y2K"], ["G4S"], []], field, pile=["G3S", "B1S"])
    # Y2K takes Y4K; the pile's G3S could take G1S or G2S: the player owes a choice
    events = move(table, 1, {"type": "play", "card": "Y2K"})
    assert events[-1].type == "drawn" and events[-1].payload["choices"] == [["G1S"], ["G2S"]]
    assert table.state.stage == "choose" and table.to_act() == [1]
    assert KK.legal(table.state, 1) == [{"type": "choose", "take": "G1S"},
                                        {"type": "choose", "take": "G2S"}, {"type": "resign"}]
    refused(table, 1, {"type": "play", "card": "R1C"}, "choose-first")
    refused(table, 1, {"type": "choose", "take": "R2C"}, "cannot-take")
    refused(table, 1, {"type": "choose", "take": "Y4K"}, "not-in-field")
    with pytest.raises(NotYourTurn):
        table.propose(2, [{"type": "play", "card": "G4S"}])
    move(table, 1, {"type": "choose", "take": "G2S"})
    assert table.state.collected[1] == ["Y2K", "Y4K", "G3S", "G2S"]
    assert ["G1S"] in table.state.field and table.to_act() == [2]
    refused(table, 2, {"type": "choose", "take": "G1S"}, "nothing-to-choose")


def test_a_match_must_be_taken_and_an_unneeded_take_is_accepted():
    table, _ = table_with(4, [[], ["R3A"], [], []], QUIET_FIELD, pile=["B1S"])
    # R3A matches only R1A: every listed play of R3A takes it
    plays = [m for m in KK.legal(table.state, 1) if m.get("card") == "R3A"]
    assert plays == [{"type": "play", "card": "R3A"}]
    events = move(table, 1, {"type": "play", "card": "R3A", "take": "R1A"})
    assert events[0].payload["took"] == ["R1A"]


def test_refusals_of_a_play():
    table, _ = table_with(4, [["R4C"], ["R3A"], [], []], QUIET_FIELD, pile=["B1S"])
    with pytest.raises(NotYourTurn):
        table.propose(0, [{"type": "play", "card": "R4C"}])
    refused(table, 1, {"type": "play", "card": "R4C"}, "not-in-hand")
    refused(table, 1, {"type": "play", "card": "R3A", "take": "G2S"}, "cannot-take")
    refused(table, 1, {"type": "play", "card": "R3A", "take": "R4K"}, "not-in-field")
    refused(table, 1, {"type": "choose", "take": "R1A"}, "nothing-to-choose")
    for bad in [{"type": "pass"}, {"type": "play"}, {"type": "play", "card": "R5A"},
                {"type": "play", "card": "R3A", "to": "x"}, {"type": "choose"},
                {"type": "choose", "take": 3}, "play R3A"]:
        with pytest.raises(MalformedMove):
            table.propose(1, [bad])


def test_no_move_while_the_referee_owes_a_step():
    table, _ = table_with(4, [[], ["R3A"], [], []], QUIET_FIELD)
    table.state.stage = "score"
    with pytest.raises(IllegalMove) as err:
        KK.decide(table.state, 1, {"type": "play", "card": "R3A"})
    assert err.value.rule == "referee-step-due"


# ---- wild cards -------------------------------------------------------------------------


def test_a_natural_may_take_a_kingdom_card_or_a_joker():
    field = ["R*", "*S", "B3C", "Y4K", "G1A", "G3C", "B4K", "Y1C"]
    table, _ = table_with(4, [[], ["R2S"], [], []], field, pile=["B1S"], wild=True)
    # R2S matches the red Kingdom card (its colour) and the Joker of shields (its item)
    err = refused(table, 1, {"type": "play", "card": "R2S"}, "take-needed")
    assert err.extra["options"] == ["R*", "*S"]
    move(table, 1, {"type": "play", "card": "R2S", "take": "*S"})
    assert table.state.collected[1] == ["R2S", "*S"] and ["R*"] in table.state.field


def test_a_kingdom_card_takes_any_card_of_its_colour_a_group_whole():
    field = ["G1A", "B3C", "G2A", "G2S", "G3A", "Y4K", "R4K", "*C"]
    table, _ = table_with(4, [[], ["G*"], [], []], field, pile=["B1S"], wild=True)
    legal = [m for m in KK.legal(table.state, 1) if m.get("card") == "G*"]
    # the green axes group (any of its cards names it) or G2S; not the Joker of coins
    assert [m["take"] for m in legal] == ["G1A", "G2A", "G3A", "G2S"]
    events = move(table, 1, {"type": "play", "card": "G*", "take": "G3A"})
    assert events[0].payload["took"] == ["G1A", "G2A", "G3A"]
    assert table.state.collected[1] == ["G*", "G1A", "G2A", "G3A"]


def test_a_joker_takes_a_card_of_its_item_and_wild_cards_never_match_each_other():
    field = ["R*", "*S", "B3C", "Y4K", "G1A", "G3C", "B4K", "Y1S"]
    table, _ = table_with(4, [[], ["*A"], ["*C"], ["Y*"]], field,
                          pile=["G4K", "G2K"], wild=True)
    # *A takes G1A, the only axes; the drawn G4K matches nothing (not the red R*)
    move(table, 1, {"type": "play", "card": "*A"})
    assert table.state.collected[1] == ["*A", "G1A"]
    # *C: B3C and G3C are coins; R* and *S are wild, so no match with them
    err = refused(table, 2, {"type": "play", "card": "*C"}, "take-needed")
    assert err.extra["options"] == ["B3C", "G3C"]
    move(table, 2, {"type": "play", "card": "*C", "take": "G3C"})
    # Y*: yellow naturals Y4K and Y1S could be taken, the Kingdom card R* not
    err = refused(table, 3, {"type": "play", "card": "Y*"}, "take-needed")
    assert err.extra["options"] == ["Y4K", "Y1S"]
    refused(table, 3, {"type": "play", "card": "Y*", "take": "R*"}, "cannot-take")


def test_wild_cards_three_players_leave_two_cards_in_the_pile():
    # 3 x 10 hand cards, 10 in the field, 32 in the pile; 30 turns draw 30 of them
    table, _ = new_table("kings-keys", 3, {"wild_cards": True}, seed=SEED)
    seen = None
    for _ in range(30):
        seat = table.to_act()[0]
        legal = [m for m in KK.legal(table.state, seat) if m["type"] != "resign"]
        if table.state.stage == "play" and sum(map(len, table.state.hands)) == 1:
            seen = len(table.state.pile)
        events = move(table, seat, legal[0])
        while table.state.stage == "choose":
            move(table, seat, KK.legal(table.state, seat)[0])
        if events and table.state.hands_played == 1:
            break
    assert seen == 3  # before the last turn's draw
    last = table.state.last_hand
    assert last["hand"] == 1 and table.state.dealer == 1


# ---- forfeit, scoring, rotations -----------------------------------------------------------


FOUR_RED_AXES = ["R1A", "G2S", "R2A", "B3C", "R3A", "Y4K", "R4A", "B4K"]


def test_four_of_a_kind_in_the_field_forfeits_and_the_same_dealer_deals_again():
    first = stack(4, [[], [], [], []], FOUR_RED_AXES, dealer=2)
    second = stack(4, [[], [], [], []], QUIET_FIELD, dealer=2)
    table, log = new_table("kings-keys", 4, {"deck": [first, second], "first_dealer": 2},
                           seed=SEED)
    assert [e.type for e in log] == ["game-created", "dealt", "hand-forfeited", "dealt"]
    assert log[1].payload["field"][0] == ["R1A", "R2A", "R3A", "R4A"]
    assert log[2].payload["kinds"] == ["RA"]
    assert [log[1].payload["dealer"], log[3].payload["dealer"]] == [2, 2]
    assert [log[1].payload["hand"], log[3].payload["hand"]] == [1, 1]
    assert [log[1].payload["deal"], log[3].payload["deal"]] == [1, 2]
    assert table.state.dealt_by == [0, 0, 0, 0] and table.state.dealer == 2
    assert [p[0] for p in table.state.field] == QUIET_FIELD and table.to_act() == [3]


def test_scoring_a_hand_adds_the_points_and_passes_the_deal_left():
    table, _ = new_table("kings-keys", 3, {}, seed=SEED)
    s = table.state
    s.hands = [[], [], []]
    s.field = [["B1A"], ["G4C"]]
    s.totals = [5, 0, 7]
    s.collected = [["R1A", "R1S", "R1C", "R2S", "R3C"],  # Kingdom Three 10 + straight 5
                   ["R4A", "G4A", "B4A", "Y1A"],  # 13 axes: 2
                   []]
    s.stage = "score"
    assert table.due() == "score the hand" and table.to_act() == []
    (draft,) = KK.settle(s, Rng(SEED, 99))
    p = draft.payload
    assert draft.type == "hand-scored" and p["points"] == [15, 2, 0]
    assert p["totals"] == [20, 2, 7] and p["left_in_field"] == ["G4C", "B1A"]
    assert p["seats"][0]["kingdom"][0]["cards"] == ["R1A", "R1S", "R1C"]
    KK.evolve(s, Event(1, draft.type, "referee", "t", p))
    assert s.totals == [20, 2, 7] and s.dealer == 1 and s.dealt_by == [1, 0, 0]
    assert s.stage == "deal"


def test_the_hand_ends_when_the_dealer_has_played_the_last_card():
    # 3 players, dealer 0: the order is 1, 2, 0; seat 2 and then the dealer hold
    # one card each, seat 1 is already out.
    table, log = table_with(3, [[], [], []], QUIET_FIELD + ["G1C", "B2A"])
    s = table.state
    s.hands = [["R1S"], [], ["B2S"]]
    s.field = [["B4S"], ["R4S"], ["G3K"]]
    s.pile = ["Y1S", "Y2S"]
    s.collected = [["R1C", "R1K", "Y3C", "Y4C"], ["G4A", "B4A", "Y4A", "R2A"], []]
    s.turn = 2
    # seat 2: B2S takes B4S; Y1S turned up matches nothing and stays
    move(table, 2, {"type": "play", "card": "B2S"}, log)
    assert table.to_act() == [0] and table.state.field == [["R4S"], ["G3K"], ["Y1S"]]
    # the dealer: R1S takes R4S, Y2S takes Y1S; hands are empty: the hand is scored
    # seat 0: R1C R1K R1S is a Kingdom Three (10); no straight (Y1S Y2S Y3C and
    #   Y2S Y3C Y4C repeat an item); shields 1+4+2+1 = 8, coins 1+3+4 = 8: nothing
    # seat 1: axes 4+4+4+2 = 14: 3 points; seat 2: B2S B4S: nothing
    events = move(table, 0, {"type": "play", "card": "R1S"}, log)
    assert [e.type for e in events] == ["played", "drawn", "hand-scored", "dealt"]
    scored = events[2].payload
    assert scored["points"] == [10, 3, 0] and scored["totals"] == [10, 3, 0]
    assert scored["seats"][0]["collected"] == ["R1S", "R1C", "R1K", "R4S", "Y1S", "Y2S",
                                               "Y3C", "Y4C"]
    assert scored["left_in_field"] == ["G3K"] and scored["dealer"] == 0
    # the deal passes left: seat 1 deals hand 2, seat 2 plays first
    assert events[3].payload["dealer"] == 1 and events[3].payload["hand"] == 2
    assert table.to_act() == [2] and table.state.dealt_by == [1, 0, 0]


def test_the_game_ends_after_every_seat_dealt_three_times():
    import random

    from referee.autoplay import random_game

    forfeit = stack(3, [[], [], []], FOUR_RED_AXES + ["G1K", "B2S"], dealer=1)
    table, log = random_game("kings-keys", 3, {"deck": [forfeit], "first_dealer": 1},
                             seed="rotations", rnd=random.Random(7))
    dealers = [e.payload["dealer"] for e in log if e.type == "dealt"]
    assert dealers == [1, 1, 2, 0, 1, 2, 0, 1, 2, 0]
    scored = [e.payload for e in log if e.type == "hand-scored"]
    assert [p["hand"] for p in scored] == list(range(1, 10))
    assert [p["dealer"] for p in scored] == [1, 2, 0, 1, 2, 0, 1, 2, 0]
    totals = [sum(p["points"][s] for p in scored) for s in range(3)]
    assert table.state.result["scores"] == totals
    assert [e.type for e in log[-2:]] == ["game-ended", "seed-revealed"]
    best = max(totals)
    assert table.state.result["winners"] == [s for s in range(3) if totals[s] == best]
    with pytest.raises(GameOver):
        table.propose(0, [{"type": "play", "card": "R1A"}])


def test_the_highest_total_wins_and_a_tie_is_a_shared_draw():
    assert final_result([30, 41, 12])["winners"] == [1]
    tied = final_result([41, 41, 12, 40])
    assert tied["winners"] == [0, 1] and tied["reason"].startswith("draw")
    assert tied["scores"] == [41, 41, 12, 40]


# ---- notation ----------------------------------------------------------------------------


def test_notation_reads_and_writes_moves():
    assert KK.parse("play Y1K take Y4K") == [{"type": "play", "card": "Y1K", "take": "Y4K"}]
    assert KK.parse("y1k take y4k; choose *a\nplay R*") == [
        {"type": "play", "card": "Y1K", "take": "Y4K"}, {"type": "choose", "take": "*A"},
        {"type": "play", "card": "R*"}]
    assert KK.parse("PLAY G2S") == [{"type": "play", "card": "G2S"}]
    for move_ in ({"type": "play", "card": "B3C"}, {"type": "choose", "take": "Y3K"},
                  {"type": "play", "card": "*K", "take": "G1K"}):
        assert KK.parse(KK.format(move_)) == [move_]
    assert KK.normalize({"type": "play", "card": "r1a", "take": None}) == {"type": "play",
                                                                           "card": "R1A"}
    for bad in ["play", "play Y5K", "choose", "take Y1K", "play Y1K Y4K", "choose Y1K Y2K"]:
        with pytest.raises(MalformedMove):
            KK.parse(bad)


# ---- what each viewer sees ---------------------------------------------------------------


def test_views_show_own_hand_field_collections_and_pile_size_only():
    table, log = table_with(4, [[], ["R3A"], [], []], QUIET_FIELD, pile=["G1S"])
    move(table, 1, {"type": "play", "card": "R3A"}, log)
    s = table.state
    mine = KK.view(s, 2)
    assert mine["hand"] == sorted(s.hands[2], key=NATURALS.index) and "hands" not in mine
    assert "pile" not in mine and mine["pile_size"] == 28 - 1
    assert mine["collected"][1] == ["R1A", "R3A", "G1S", "G2S"]
    assert mine["hand_sizes"] == [7, 6, 7, 7] and mine["field"] == [[c] for c in QUIET_FIELD[2:]]
    spectator = KK.view(s, None)
    assert "hand" not in spectator and "hands" not in spectator and "pile" not in spectator
    admin = KK.view(s, "admin")
    assert admin["hands"] == s.hands and admin["pile"] == s.pile
    assert KK.legal_moves(s, 1) == [] and KK.legal_moves(s, 2)
    dealt = log[1]
    for viewer in (0, 3, None):
        red = KK.redact(dealt, viewer)
        assert "pile" not in red and red["pile_size"] == 28
        assert [h is not None for h in red["hands"]] == [v == viewer for v in range(4)]
    assert KK.redact(dealt, "admin") == dealt.payload
    text = KK.render(s, 2)
    assert "Your hand" in text and s.hands[1][0] not in text.split("Your hand")[1]
    assert KK.describe(log[-2]).startswith("seat 1: play R3A, taking R1A")
