"""Whole games and turns from stacked decks: the deal, the turn's phases, the
reshuffle, reaction windows in turn order, the end of the round and the
scoring table. Every expected value is worked out by hand from the rules."""

import pytest

from referee.autoplay import new_table
from referee.games.base import IllegalMove, NotYourTurn
from referee.table import Table
from tests.games.king_of_the_castle_helpers import (
    GAME,
    SEED,
    deck_from,
    kingdom,
    move,
    prepared,
    types,
)

# Two players, squires chosen, personalities in alphabetical order. Dealing
# starts at seat 1 (the dealer is seat 0): seat 1 gets cards 0, 2, 4, seat 0
# cards 1, 3, 5; then seat 0 draws 6, seat 1 draws 7, and so on.
SCRIPT_TOP = [
    "town", "city", "recognised", "famed", "walls", "towers",
    "mysterious-vanishings", "mysterious-vanishings", "plague", "plague", "plague", "keep",
    "peaceful-death", "unlucky-fall", "death-by-misadventure", "village", "known", "keep",
    "marauding-barbarians", "financial-scandal", "walls", "lazy-defence", "time-of-peace",
    "shrinking-domain",
]
SCRIPT_PLAYS = [
    "play mysterious-vanishings 3",        # H I J die; K L M
    "play mysterious-vanishings 2",        # E F G die; N O P
    "play plague 1 lord seneschal",        # B C die; D Lord, Q R
    "play plague 3 seneschal master",      # L M die; S T
    "play plague 2 lord master",           # N P die; O Lord, U V
    "play town 2",
    "play city 1",
    "play recognised 2",
    "play famed 1",                        # castle 1 is now level 6
    "play walls 3",
    "play peaceful-death",                 # A dies; D (Lord of castle 1, the largest) is King; W
    "play unlucky-fall 2",                 # O dies; U Lord, V Seneschal, X
    "play death-by-misadventure 3 master",  # T dies; Y
    "play keep 1",
    "play towers 3",
    "play financial-scandal 2",            # V dies, recognised discarded; X Seneschal, Z (the last)
    "play marauding-barbarians 3",         # Y dies, towers discarded; no one left: the end is near
    "play village 3",                      # seat 1 completes the round
]


def scripted_table():
    opts = {"squires": "choose", "personality_order": "alphabetical", "event_deck": deck_from(SCRIPT_TOP)}
    table, log = new_table(GAME, 2, opts, seed=SEED)
    return table, log


def test_scripted_game_to_the_end_and_its_scoring_table():
    table, log = scripted_table()
    # squires are chosen first, before the kingdom and the hands are dealt
    assert table.state.stage == "choose" and table.to_act() == [0, 1]
    assert table.state.hands == [[], []] and table.state.castles == [] and table.state.king is None
    log += move(table, 0, "choose Z D Q")
    assert table.state.stage == "choose" and table.to_act() == [1]
    log += move(table, 1, "choose R U Y")
    assert [e.type for e in log[-4:]] == ["squires-chosen", "dealt", "turn-began", "drew"]
    assert kingdom(table) == ["A", ["B", "C", "D"], ["E", "F", "G"], ["H", "I", "J"]]
    assert table.state.turn == 0 and table.state.hands[0] == ["city", "famed", "towers",
                                                              "mysterious-vanishings"]
    log += move(table, 0, "standing pass")
    log += move(table, 1, "standing pass")
    checkpoints = {
        5: ["A", ["D", "Q", "R"], ["O", "U", "V"], ["K", "S", "T"]],
        11: ["D", ["Q", "R", "W"], ["O", "U", "V"], ["K", "S", "T"]],
        12: ["D", ["Q", "R", "W"], ["U", "V", "X"], ["K", "S", "T"]],
        13: ["D", ["Q", "R", "W"], ["U", "V", "X"], ["K", "S", "Y"]],
        16: ["D", ["Q", "R", "W"], ["U", "X", "Z"], ["K", "S", "Y"]],
        17: ["D", ["Q", "R", "W"], ["U", "X", "Z"], ["K", "S", None]],
    }
    for i, text in enumerate(SCRIPT_PLAYS, start=1):
        seat = (i - 1) % 2
        assert table.to_act() == [seat], f"turn {i}"
        log += move(table, seat, text)
        if i in checkpoints:
            assert kingdom(table) == checkpoints[i], f"after turn {i}"
        if i == 16:
            assert table.state.personality_deck == [] and not table.state.ending
        if i == 17:
            # the post cannot be filled: the round goes on so seat 1 has its turn too
            assert table.state.ending and table.state.result is None and table.to_act() == [1]
    state = table.state
    assert state.turns_taken == [9, 9]
    assert [(c["domain"], c["prestige"], c["defence"]) for c in state.castles] == [
        (["city"], ["famed"], ["keep"]), (["town"], [], []), (["village"], [], ["walls"])]
    result = state.result
    assert result["table"] == [
        {"man": "D", "post": "king", "castle": None, "points": 14, "bonus": 2},
        {"man": "Q", "post": "lord", "castle": 1, "points": 9, "bonus": 3},
        {"man": "R", "post": "seneschal", "castle": 1, "points": 6, "bonus": 2},
        {"man": "W", "post": "master", "castle": 1, "points": 2, "bonus": 0},
        {"man": "U", "post": "lord", "castle": 2, "points": 6, "bonus": 0},
        {"man": "X", "post": "seneschal", "castle": 2, "points": 4, "bonus": 0},
        {"man": "Z", "post": "master", "castle": 2, "points": 2, "bonus": 0},
        {"man": "K", "post": "lord", "castle": 3, "points": 6, "bonus": 0},
        {"man": "S", "post": "seneschal", "castle": 3, "points": 4, "bonus": 0},
    ]
    assert result["scores"] == [25, 12] and result["winners"] == [0]
    assert result["squires"] == [["D", "Q", "Z"], ["R", "U", "Y"]]
    assert table.status == "finished" and log[-2].type == "game-ended"
    assert table.engine.scores(state) == [25, 12]
    # the scoring was a referee step, and the log replays to the same state
    assert log[-2].actor == "referee"
    assert Table.replay(log).state == state


def test_the_end_waits_for_the_round_to_finish():
    # three players, seat 1 kills a man the empty deck cannot replace: seat 2
    # still plays, then the game ends before seat 0 plays again.
    t = prepared(3, hands=[["keep"] * 3, ["unlucky-fall", "keep", "keep", "keep"], ["village"] * 3],
                 people="", turn=1, standing=["pass"] * 3)
    move(t, 1, "play unlucky-fall 1")
    assert t.state.ending and t.to_act() == [2]
    assert kingdom(t) == ["A", ["C", "D", None], ["E", "F", "G"], ["H", "I", "J"]]
    evs = move(t, 2, "play village 1")
    assert types(evs)[-3:] == ["turn-ended", "game-ended", "seed-revealed"] and t.state.result is not None


def test_the_end_on_the_last_seat_of_the_round_scores_at_once():
    t = prepared(2, hands=[["keep"] * 3, ["unlucky-fall", "keep", "keep", "keep"]],
                 people="", turn=1, standing=["pass"] * 2,
                 squires=[["B", "E", "H"], ["A", "C", "Z"]])
    evs = move(t, 1, "play unlucky-fall 2")
    assert types(evs)[-3:] == ["turn-ended", "game-ended", "seed-revealed"]
    # E died: castle 2 is F Lord, G Seneschal, no Master. All castles are level
    # 0: the leftmost, castle 1, is the largest (the text's tie rule), so its Lord
    # B earns +3; no castle has Prestige or Defences, so no other bonus.
    # Seat 0: Lord B 6 + 3, E dead 0, Lord H 6 = 15.
    # Seat 1: King A 12, Seneschal C 4, Z never in play 0 = 16.
    assert t.state.result["scores"] == [15, 16]
    assert t.state.result["winners"] == [1]


def test_a_tie_is_a_shared_win():
    t = prepared(2, hands=[["keep"] * 3, ["unlucky-fall", "keep", "keep", "keep"]],
                 people="", turn=1, standing=["pass"] * 2,
                 squires=[["E", "F", "Q"], ["H", "I", "R"]])
    move(t, 1, "play unlucky-fall 1")
    # seat 0: Lord E 6 + Seneschal F 4; seat 1: Lord H 6 + Seneschal I 4.
    assert t.state.result["scores"] == [10, 10]
    assert t.state.result["winners"] == [0, 1] and "draw" in t.state.result["reason"]


def test_scoring_bonuses_follow_the_levels():
    levels = {1: {"domain": ["city"], "prestige": ["famed"]},          # level 6
              2: {"domain": ["town"], "prestige": ["famed"], "defence": ["keep", "walls"]},  # 7
              3: {"defence": ["towers"], "prestige": ["recognised"], "domain": ["village"]}}  # 6
    t = prepared(2, hands=[["keep"] * 3, ["unlucky-fall", "keep", "keep", "keep"]], levels=levels,
                 people="", turn=1, standing=["pass"] * 2,
                 squires=[["A", "E", "B"], ["F", "J", "I"]])
    move(t, 1, "play unlucky-fall 3")
    # castle 3 lost its Lord H: I Lord, J Seneschal, no Master.
    # King A: 12 + 2*3. Largest castle 2 (7): Lord E 6+3. Lord B 6.
    # Most prestigious: castles 1 and 2 have famed; the leftmost, 1: Seneschal C.
    # Best defended: castle 3 (towers 3): its Master is gone.
    assert t.state.result["scores"] == [18 + 9 + 6, 4 + 4 + 6]


def test_turn_draws_to_four_pass_then_discard_to_three():
    t = prepared(hands=[["keep", "keep", "city"], ["walls", "walls", "walls"]], deck=["famed"] * 4)
    t.state.hands[0].append("village")  # its draw
    with pytest.raises(IllegalMove) as err:
        move(t, 0, "discard keep")
    assert err.value.rule == "not-discard-step"
    move(t, 0, "pass")
    assert t.to_act() == [0]
    for bad, rule in (("discard keep city", "discard-count"), ("discard towers", "not-in-hand"),
                      ("pass", "discard-step")):
        with pytest.raises(IllegalMove) as err:
            move(t, 0, bad)
        assert err.value.rule == rule
    evs = move(t, 0, "discard keep")
    assert types(evs) == ["discarded", "turn-ended", "turn-began", "drew"]
    assert evs[-1].payload == {"seat": 1, "count": 1, "cards": ["famed"], "purpose": "hand"}
    assert t.state.hands == [["keep", "city", "village"], ["walls", "walls", "walls", "famed"]]
    assert t.state.event_discard == ["keep"]


def test_the_empty_deck_is_reshuffled_from_the_discard_pile_as_a_referee_step():
    t = prepared(hands=[["keep", "keep", "city", "village"], ["walls", "walls"]], deck=[],
                 discard=["plague", "famed", "town"])
    events, fork = t.propose(0, [{"type": "play", "card": "city", "castle": 1}])
    assert types(events) == ["played", "turn-ended", "turn-began"]
    assert fork.due() == "reshuffle" and fork.to_act() == []
    t.commit(fork)
    evs = t.settle_all(SEED)
    assert types(evs) == ["reshuffled", "drew"]
    assert sorted(evs[0].payload["deck"]) == ["famed", "plague", "town"]
    assert evs[1].payload["count"] == 2 and t.state.event_discard == []
    assert t.state.event_deck == evs[0].payload["deck"][2:]
    assert len(t.state.hands[1]) == 4


def test_no_cards_anywhere_means_a_short_draw():
    t = prepared(hands=[["keep", "keep", "city", "village"], ["walls", "walls"]], deck=[], discard=[])
    evs = move(t, 0, "play city 1")
    assert evs[-1].type == "draw-short" and evs[-1].payload == {"seat": 1, "missing": 2}
    assert t.to_act() == [1] and t.state.hands[1] == ["walls", "walls"]


def test_sudden_changes_reshuffles_for_its_second_card():
    t = prepared(hands=[["sudden-changes", "keep", "keep", "keep"], ["walls"] * 3], deck=["village"],
                 discard=["town"])
    events, fork = t.propose(0, [{"type": "play", "card": "sudden-changes"}])
    assert fork.due() == "reshuffle"
    t.commit(fork)
    t.settle_all(SEED)
    # the discard pile held town and the Sudden Changes itself
    assert t.state.tasks[0]["kind"] == "sudden"
    assert sorted(t.state.tasks[0]["cards"]) in (["sudden-changes", "village"], ["town", "village"])


def test_windows_ask_the_other_seats_in_turn_order_and_skip_standing_passes():
    hands = [["lucky-escape", "keep", "keep"], ["unlucky-fall", "keep", "keep", "keep"],
             ["keep"] * 3, ["lucky-escape", "keep", "keep"]]
    t = prepared(4, hands=hands, turn=1, standing=["ask", "ask", "ask", "pass"])
    evs = move(t, 1, "play unlucky-fall 2")
    assert evs[-1].payload["queue"] == [2, 0] and t.to_act() == [2]
    with pytest.raises(NotYourTurn):
        move(t, 0, "react lucky-escape")
    with pytest.raises(NotYourTurn):
        move(t, 1, "pass")
    with pytest.raises(IllegalMove) as err:
        move(t, 2, "react lucky-escape")
    assert err.value.rule == "not-in-hand"
    with pytest.raises(IllegalMove) as err:
        move(t, 2, "play keep 1")
    assert err.value.rule == "answer-first"
    move(t, 2, "pass")
    assert t.to_act() == [0]
    move(t, 0, "react lucky-escape")
    assert kingdom(t)[2] == ["E", "F", "G"] and t.state.window is None
    assert t.state.turn == 2  # seat 1's turn ended with three cards


def test_everyone_passing_lets_the_death_happen():
    t = prepared(3, hands=[["unlucky-fall", "keep", "keep", "keep"], ["keep"] * 3, ["keep"] * 3])
    move(t, 0, "play unlucky-fall 3")
    move(t, 1, "pass")
    assert t.to_act() == [2] and kingdom(t)[3] == ["H", "I", "J"]
    move(t, 2, "pass")
    assert kingdom(t)[3] == ["I", "J", "K"]


def test_a_standing_pass_set_while_asked_answers_at_once():
    t = prepared(hands=[["unlucky-fall", "keep", "keep", "keep"], ["keep"] * 3])
    move(t, 0, "play unlucky-fall 3")
    evs = move(t, 1, "standing pass")
    assert types(evs)[:3] == ["standing-set", "declined", "died"]
    assert evs[1].payload == {"seat": 1, "standing": True}
    with pytest.raises(IllegalMove) as err:
        move(t, 1, "standing pass")
    assert err.value.rule == "standing-unchanged"
    move(t, 1, "standing ask")
    assert t.state.standing == ["ask", "ask"]


def test_react_without_a_window():
    t = prepared(hands=[["keep"] * 4, ["lucky-escape", "keep", "keep"]])
    with pytest.raises(IllegalMove) as err:
        move(t, 1, "react lucky-escape")
    assert err.value.rule == "no-window"


def test_letters_deal_sets_aside_three_distinct_letters_and_redeals():
    # Catalogue letters: peaceful-death A B C D, unlucky-fall A B C, city K L,
    # beneficial-assassination K L M, village F G H.
    top = ["peaceful-death", "unlucky-fall", "peaceful-death", "city", "peaceful-death",
           "beneficial-assassination", "village", "plague", "keep", "plague", "keep", "plague", "keep"]
    table, log = new_table(GAME, 2, {"squires": "letters", "event_deck": deck_from(top)}, seed=SEED)
    s = table.state
    assert s.squires == [["A", "F", "K"], ["A", "B", "C"]]
    assert s.set_aside == [["unlucky-fall", "city", "village"], ["peaceful-death"] * 3]
    # hands from what follows; the duplicate K goes to the bottom
    assert s.hands == [["keep", "keep", "keep", s.hands[0][3]], ["plague"] * 3]
    assert s.event_deck[-1] == "beneficial-assassination"
    assert len(s.event_deck) + 6 + 7 == 78


def test_random_squires_are_three_distinct_letters_per_seat():
    table, _ = new_table(GAME, 8, {}, seed="eight")
    for letters in table.state.squires:
        assert len(set(letters)) == 3 and letters == sorted(letters)


def test_choose_squires_before_play():
    table, _ = new_table(GAME, 3, {"squires": "choose"}, seed=SEED)
    assert table.to_act() == [0, 1, 2]
    with pytest.raises(IllegalMove) as err:
        move(table, 0, "pass")
    assert err.value.rule == "choose-squires-first"
    move(table, 1, "choose A B C")
    with pytest.raises(IllegalMove) as err:
        move(table, 1, "choose D E F")
    assert err.value.rule == "already-chosen"
    assert table.to_act() == [0, 2]
    move(table, 0, "choose A B C")
    move(table, 2, "choose X Y Z")
    assert table.state.stage == "play" and table.to_act() == [0]
    with pytest.raises(IllegalMove) as err:
        move(table, 0, "choose D E F")
    assert err.value.rule == "not-choosing"


def test_first_player_and_dealer_options():
    top = ["city", "town", "walls"]
    table, _ = new_table(GAME, 3, {"first_player": 2, "first_dealer": 1,
                                   "event_deck": deck_from(top)}, seed=SEED)
    # the dealer is seat 1: seat 2 gets the first card, then 0, then 1
    s = table.state
    assert (s.hands[2][0], s.hands[0][0], s.hands[1][0]) == ("city", "town", "walls")
    assert table.to_act() == [2] and len(s.hands[2]) == 4


def test_alphabetical_personalities_and_an_explicit_personality_deck():
    table, _ = new_table(GAME, 2, {"personality_order": "alphabetical"}, seed=SEED)
    assert kingdom(table) == ["A", ["B", "C", "D"], ["E", "F", "G"], ["H", "I", "J"]]
    assert table.engine.view(table.state, None)["personality_deck"][:2] == ["K", "L"]
    people = list("ZYXWVUTSRQPONMLKJIHGFEDCBA")
    table, _ = new_table(GAME, 2, {"personality_deck": people}, seed=SEED)
    assert kingdom(table) == ["Z", ["Y", "X", "W"], ["V", "U", "T"], ["S", "R", "Q"]]
    assert "personality_deck" not in table.engine.view(table.state, 0)


def test_an_empty_largest_castle_gives_no_king():
    # castle 1 (level 3) lost all its men to an earlier failed succession: the
    # throne goes to the largest castle that has a Lord, castle 2 (leftmost of 0s).
    t = prepared(hands=[["peaceful-death", "keep", "keep", "keep"], ["keep"] * 3], people="",
                 castles=((None, None, None), ("E", "F", "G"), ("H", "I", "J")),
                 levels={1: {"domain": ["city"]}}, standing=["pass"] * 2)
    t.state.ending = True
    move(t, 0, "play peaceful-death")
    assert kingdom(t) == ["E", [None, None, None], ["F", "G", None], ["H", "I", "J"]]


def test_scores_stay_hidden_until_the_end():
    t = prepared(hands=[["keep"] * 4, ["keep"] * 3], squires=[["A", "B", "C"], ["D", "E", "F"]])
    assert t.scores() == [0, 0]
    move(t, 1, "resign")
    # resigning ends the game: the others share the win on the hidden scores
    assert t.state.result["winners"] == [0]


def test_a_standing_answer_cannot_be_flipped_back_until_the_game_moves_on():
    """Changing the standing answer and changing it back, with nothing between,
    changes nothing: the second change is refused, so no seat can fill the log
    with flips. Once anything else happens it may change again."""
    table, log = new_table(GAME, 2, {"personality_order": "alphabetical"}, seed=SEED)
    turn = table.state.turn
    other = 1 - turn
    log += move(table, other, "standing pass")
    assert {"type": "standing", "answer": "ask"} not in table.engine.legal(table.state, other)
    with pytest.raises(IllegalMove) as refused:
        move(table, other, "standing ask")
    assert refused.value.rule == "standing-changed-already"
    # the other seat's own change is its own business, and does not free the first
    log += move(table, turn, "standing pass")
    with pytest.raises(IllegalMove):
        move(table, other, "standing ask")
    # the player on turn plays: the game moved on, and the answer may change again
    play = [m for m in table.engine.legal(table.state, turn) if m["type"] not in ("standing", "resign")][0]
    log += move(table, turn, table.engine.format(play))
    assert {"type": "standing", "answer": "ask"} in table.engine.legal(table.state, other)
    log += move(table, other, "standing ask")
    assert table.state.standing[other] == "ask"
    assert Table.replay(log).state.standing_fresh == table.state.standing_fresh


@pytest.mark.parametrize(("levels", "scores"), [
    # Only castle 2 has anything (a Domain of 1): its Lord E is Lord of the largest
    # castle (6 + 3); no castle has Prestige or Defences, so no Seneschal or Master
    # earns a bonus. Seat 0 backs castle 1's men B C D: 6 + 4 + 2 = 12; seat 1
    # castle 2's E F G: 9 + 4 + 2 = 15.
    ({2: {"domain": ["village"]}}, [12, 15]),
    # A bare kingdom: castle 1, the leftmost of three at level 0, is the largest
    # (its Lord B: 6 + 3); none is most prestigious or best defended.
    ({}, [15, 12]),
])
def test_a_bonus_needs_some_of_its_attribute(levels, scores):
    t = prepared(2, hands=[["keep"] * 3, ["unlucky-fall", "keep", "keep", "keep"]], levels=levels,
                 people="", turn=1, standing=["pass"] * 2,
                 squires=[["B", "C", "D"], ["E", "F", "G"]])
    move(t, 1, "play unlucky-fall 3")  # no one can fill castle 3's Master at Arms: the game ends
    assert t.state.result["scores"] == scores
    assert all(line["bonus"] == 0 for line in t.state.result["table"] if line["post"] in ("seneschal", "master"))
