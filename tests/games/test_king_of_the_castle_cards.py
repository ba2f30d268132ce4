"""Each event card on a prepared kingdom: the state after it, the promotions it
causes and the reaction window it opens. Expected values are worked out from
the rules by hand.

The prepared kingdom (unless a test says otherwise): King A; castle 1 Lord B,
Seneschal C, Master at Arms D; castle 2 E F G; castle 3 H I J; personality deck
K L M ... Z (K on top)."""

import pytest

from referee.games.base import IllegalMove
from tests.games.king_of_the_castle_helpers import kingdom, move, prepared, types

FOUR = ["village", "village", "village"]


def hands(card, other=FOUR, players=2):
    return [[card] + FOUR] + [list(other)] * (players - 1)


def test_peaceful_death_opens_a_window_then_the_largest_castles_lord_is_king():
    t = prepared(hands=hands("peaceful-death"), levels={2: {"domain": ["town"], "defence": ["keep"]},
                                                        1: {"domain": ["village"]}})
    evs = move(t, 0, "play peaceful-death")
    assert types(evs) == ["played", "window-opened"]
    assert evs[1].payload["queue"] == [1] and t.to_act() == [1]
    assert evs[1].payload["at_stake"] == [{"man": "A", "post": "king", "castle": None}]
    evs = move(t, 1, "pass")
    # castle 2 (level 3) is the largest: E is King, F Lord, G Seneschal, K Master.
    assert kingdom(t) == ["E", ["B", "C", "D"], ["F", "G", "K"], ["H", "I", "J"]]
    assert t.state.personality_discard == ["A"]
    assert t.state.personality_deck[0] == "L"
    assert types(evs)[:6] == ["declined", "died", "promoted", "promoted", "promoted", "appointed"]
    assert "turn-ended" in types(evs) and t.state.turn == 1


def test_a_tie_for_largest_castle_goes_to_the_leftmost():
    t = prepared(hands=hands("peaceful-death"), levels={2: {"domain": ["village"]},
                                                        3: {"defence": ["keep"]}})
    move(t, 0, "play peaceful-death")
    move(t, 1, "pass")
    assert kingdom(t) == ["E", ["B", "C", "D"], ["F", "G", "K"], ["H", "I", "J"]]
    t = prepared(hands=hands("peaceful-death"))
    move(t, 0, "play peaceful-death")
    move(t, 1, "pass")
    assert kingdom(t) == ["B", ["C", "D", "K"], ["E", "F", "G"], ["H", "I", "J"]]


def test_death_by_misadventure_of_a_seneschal_promotes_the_master():
    t = prepared(hands=hands("death-by-misadventure"))
    move(t, 0, "play death-by-misadventure 3 seneschal")
    move(t, 1, "pass")
    assert kingdom(t) == ["A", ["B", "C", "D"], ["E", "F", "G"], ["H", "J", "K"]]
    assert t.state.personality_discard == ["I"]


def test_death_by_misadventure_by_letter_and_of_the_king():
    t = prepared(hands=hands("death-by-misadventure"))
    move(t, 0, {"type": "play", "card": "death-by-misadventure", "targets": ["G"]})
    move(t, 1, "pass")
    assert kingdom(t) == ["A", ["B", "C", "D"], ["E", "F", "K"], ["H", "I", "J"]]
    t = prepared(hands=hands("death-by-misadventure"))
    move(t, 0, "play death-by-misadventure king")
    move(t, 1, "pass")
    assert kingdom(t) == ["B", ["C", "D", "K"], ["E", "F", "G"], ["H", "I", "J"]]


def test_beneficial_assassination_crowns_the_chosen_lord_not_the_largest():
    t = prepared(hands=hands("beneficial-assassination"), levels={2: {"domain": ["city"]}})
    move(t, 0, "play beneficial-assassination 3")
    move(t, 1, "pass")
    assert kingdom(t) == ["H", ["B", "C", "D"], ["E", "F", "G"], ["I", "J", "K"]]


def test_marauding_barbarians_kill_the_master_and_take_the_top_defence():
    t = prepared(hands=hands("marauding-barbarians"), levels={2: {"defence": ["keep", "walls"]}})
    evs = move(t, 0, "play marauding-barbarians 2")
    assert evs[-1].type == "window-opened" and evs[-1].payload["kind"] == "death"
    evs = move(t, 1, "pass")
    assert kingdom(t) == ["A", ["B", "C", "D"], ["E", "F", "K"], ["H", "I", "J"]]
    # then a second window: the defence card may be saved by Not That Bad
    assert evs[-1].type == "window-opened" and evs[-1].payload["kind"] == "discard"
    assert evs[-1].payload["at_stake"] == [{"castle": 2, "attribute": "defence", "card": "walls"}]
    move(t, 1, "pass")
    assert t.state.castles[1]["defence"] == ["keep"]
    assert t.state.event_discard == ["marauding-barbarians", "walls"]


def test_marauding_barbarians_on_a_castle_without_defences_only_kill():
    t = prepared(hands=hands("marauding-barbarians"))
    move(t, 0, "play marauding-barbarians 1")
    evs = move(t, 1, "pass")
    assert "window-opened" not in types(evs)
    assert kingdom(t) == ["A", ["B", "C", "K"], ["E", "F", "G"], ["H", "I", "J"]]


def test_plague_kills_two_men_of_one_castle_and_its_top_domain():
    t = prepared(hands=hands("plague"), levels={1: {"domain": ["village", "town"]}})
    move(t, 0, "play plague 1 master lord")
    move(t, 1, "pass")
    # B and D die: C rises to Lord, K and L fill Seneschal and Master at Arms.
    assert kingdom(t) == ["A", ["C", "K", "L"], ["E", "F", "G"], ["H", "I", "J"]]
    assert t.state.personality_discard == ["B", "D"]
    move(t, 1, "pass")
    assert t.state.castles[0]["domain"] == ["village"]


def test_lucky_escape_saves_one_of_the_plague_dead():
    t = prepared(hands=hands("plague", other=["lucky-escape", "keep", "keep"]),
                 levels={1: {"domain": ["village", "town"]}})
    move(t, 0, "play plague 1 lord master")
    with pytest.raises(IllegalMove) as err:
        move(t, 1, "react lucky-escape")
    assert err.value.rule == "save-required"
    with pytest.raises(IllegalMove) as err:
        move(t, 1, "react lucky-escape C")
    assert err.value.rule == "not-at-stake"
    evs = move(t, 1, "react lucky-escape B")
    assert types(evs)[:2] == ["reacted", "died"]
    assert kingdom(t) == ["A", ["B", "C", "K"], ["E", "F", "G"], ["H", "I", "J"]]
    assert t.state.hands[1] == ["keep", "keep"]
    assert t.state.event_discard == ["plague", "lucky-escape"]
    # the domain card is still threatened: a second window
    assert t.state.window == {"kind": "discard", "queue": [1]}


def test_lucky_escape_on_a_single_death_needs_no_name():
    t = prepared(hands=hands("unlucky-fall", other=["lucky-escape", "keep", "keep"]))
    move(t, 0, "play unlucky-fall 2")
    evs = move(t, 1, "react lucky-escape")
    assert evs[0].payload["save"] == "E" and "died" not in types(evs)
    assert kingdom(t) == ["A", ["B", "C", "D"], ["E", "F", "G"], ["H", "I", "J"]]
    assert t.state.personality_deck[0] == "K"


def test_lucky_escape_for_the_king_stops_beneficial_assassination():
    t = prepared(hands=hands("beneficial-assassination", other=["lucky-escape", "keep", "keep"]))
    move(t, 0, "play beneficial-assassination 2")
    move(t, 1, "react lucky-escape A")
    assert kingdom(t) == ["A", ["B", "C", "D"], ["E", "F", "G"], ["H", "I", "J"]]


def test_financial_scandal_kills_the_seneschal_and_the_top_prestige():
    t = prepared(hands=hands("financial-scandal"), levels={3: {"prestige": ["known", "famed"]}})
    move(t, 0, "play financial-scandal 3")
    move(t, 1, "pass")
    assert kingdom(t) == ["A", ["B", "C", "D"], ["E", "F", "G"], ["H", "J", "K"]]
    move(t, 1, "pass")
    assert t.state.castles[2]["prestige"] == ["known"]


def test_unlucky_fall_kills_a_lord():
    t = prepared(hands=hands("unlucky-fall"))
    move(t, 0, "play unlucky-fall 1")
    move(t, 1, "pass")
    assert kingdom(t) == ["A", ["C", "D", "K"], ["E", "F", "G"], ["H", "I", "J"]]


def test_mysterious_vanishings_empty_a_castle_and_the_deck_refills_it():
    t = prepared(hands=hands("mysterious-vanishings"), levels={2: {"domain": ["city"]}})
    move(t, 0, "play mysterious-vanishings 2")
    assert t.state.window["kind"] == "death"
    move(t, 1, "pass")
    assert kingdom(t) == ["A", ["B", "C", "D"], ["K", "L", "M"], ["H", "I", "J"]]
    assert t.state.castles[1]["domain"] == ["city"]
    assert t.state.personality_discard == ["E", "F", "G"]


@pytest.mark.parametrize("card,attribute,level", [
    ("village", "domain", 1), ("town", "domain", 2), ("city", "domain", 3),
    ("known", "prestige", 1), ("recognised", "prestige", 2), ("famed", "prestige", 3),
    ("keep", "defence", 1), ("walls", "defence", 2), ("towers", "defence", 3),
])
def test_level_cards_go_over_lower_levels_of_their_own_row(card, attribute, level):
    t = prepared(hands=hands(card))
    evs = move(t, 0, f"play {card} 2")
    assert "window-opened" not in types(evs)
    assert t.state.castles[1][attribute] == [card]
    assert t.state.castles[0][attribute] == [] and t.state.castles[1]["domain" if attribute != "domain" else "prestige"] == []
    lower = {1: [], 2: ["village", "known", "keep"], 3: ["town", "recognised", "walls"]}[level]
    same = {"domain": ["village", "town", "city"], "prestige": ["known", "recognised", "famed"],
            "defence": ["keep", "walls", "towers"]}[attribute]
    # a card of the same or a higher level already there refuses it
    for blocker in same[level - 1:]:
        t = prepared(hands=hands(card), levels={1: {attribute: [blocker]}})
        with pytest.raises(IllegalMove) as err:
            move(t, 0, f"play {card} 1")
        assert err.value.rule == "level-too-low"
    for below in [c for c in same if c in lower]:
        t = prepared(hands=hands(card), levels={1: {attribute: [below]}})
        move(t, 0, f"play {card} 1")
        assert t.state.castles[0][attribute] == [below, card]


def test_a_level_three_card_may_skip_level_two():
    t = prepared(hands=hands("city"), levels={1: {"domain": ["village"]}})
    move(t, 0, "play city 1")
    assert t.state.castles[0]["domain"] == ["village", "city"]


@pytest.mark.parametrize("card,attribute", [
    ("protracted-siege", "domain"), ("weak-administration", "prestige"), ("time-of-peace", "defence"),
])
def test_removing_all_levels_of_an_attribute(card, attribute):
    cards = {"domain": ["village", "city"], "prestige": ["known", "famed"],
             "defence": ["keep", "walls"]}[attribute]
    t = prepared(hands=hands(card), levels={2: {attribute: cards, "domain" if attribute != "domain" else "defence": ["town"] if attribute != "domain" else ["walls"]}})
    evs = move(t, 0, f"play {card} 2")
    assert evs[-1].payload["kind"] == "discard"
    assert [d["card"] for d in evs[-1].payload["at_stake"]] == list(reversed(cards))
    move(t, 1, "pass")
    assert t.state.castles[1][attribute] == []
    assert t.state.event_discard == [card] + list(reversed(cards))
    other = "domain" if attribute != "domain" else "defence"
    assert t.state.castles[1][other] != []


def test_incompetent_lord_removes_the_top_of_each_attribute():
    t = prepared(hands=hands("incompetent-lord"),
                 levels={3: {"domain": ["village", "town"], "defence": ["walls"]}})
    move(t, 0, "play incompetent-lord 3")
    move(t, 1, "pass")
    c = t.state.castles[2]
    assert (c["domain"], c["prestige"], c["defence"]) == (["village"], [], [])


@pytest.mark.parametrize("card,attribute", [
    ("lazy-defence", "defence"), ("shrinking-domain", "domain"), ("losing-influence", "prestige"),
])
def test_removing_the_top_level_of_one_attribute(card, attribute):
    stack = {"domain": ["village", "town"], "prestige": ["known", "recognised"],
             "defence": ["keep", "walls"]}[attribute]
    t = prepared(hands=hands(card), levels={1: {attribute: stack}})
    move(t, 0, f"play {card} 1")
    move(t, 1, "pass")
    assert t.state.castles[0][attribute] == stack[:1]
    t = prepared(hands=hands(card))
    with pytest.raises(IllegalMove) as err:
        move(t, 0, f"play {card} 1")
    assert err.value.rule == "nothing-to-remove"


def test_state_of_disrepair_names_the_attribute():
    t = prepared(hands=hands("state-of-disrepair"), levels={2: {"prestige": ["known", "famed"],
                                                                "domain": ["city"]}})
    move(t, 0, "play state-of-disrepair 2 prestige")
    move(t, 1, "pass")
    assert t.state.castles[1]["prestige"] == ["known"] and t.state.castles[1]["domain"] == ["city"]


def test_not_that_bad_keeps_the_level_card():
    t = prepared(hands=hands("shrinking-domain", other=["not-that-bad", "keep", "keep"]),
                 levels={1: {"domain": ["village", "town"]}})
    move(t, 0, "play shrinking-domain 1")
    with pytest.raises(IllegalMove) as err:
        move(t, 1, "react lucky-escape")
    assert err.value.rule == "wrong-reaction"
    evs = move(t, 1, "react not-that-bad")
    assert evs[0].payload["save"] == "town" and "levels-discarded" not in types(evs)
    assert t.state.castles[0]["domain"] == ["village", "town"]
    assert t.state.event_discard == ["shrinking-domain", "not-that-bad"]


def test_not_that_bad_saves_one_card_of_a_siege():
    t = prepared(hands=hands("protracted-siege", other=["not-that-bad", "keep", "keep"]),
                 levels={1: {"domain": ["village", "city"]}})
    move(t, 0, "play protracted-siege 1")
    move(t, 1, "react not-that-bad village")
    assert t.state.castles[0]["domain"] == ["village"]
    assert t.state.event_discard == ["protracted-siege", "not-that-bad", "city"]


def test_timely_repairs_plays_a_discarded_level_card():
    t = prepared(hands=hands("timely-repairs"), discard=["walls", "plague"],
                 levels={1: {"defence": ["keep"]}})
    with pytest.raises(IllegalMove) as err:
        move(t, 0, "play timely-repairs 1 take plague")
    assert err.value.rule == "not-a-level-card"
    with pytest.raises(IllegalMove) as err:
        move(t, 0, "play timely-repairs 1 take towers")
    assert err.value.rule == "not-in-discard"
    move(t, 0, "play timely-repairs 1 take walls")
    assert t.state.castles[0]["defence"] == ["keep", "walls"]
    assert t.state.event_discard == ["plague", "timely-repairs"]


def test_recycle_swaps_itself_for_a_card_of_the_discard_pile():
    t = prepared(hands=hands("recycle"), discard=["plague", "city"])
    move(t, 0, "play recycle take plague")
    assert t.state.event_discard == ["city", "recycle"]
    assert sorted(t.state.hands[0]) == ["plague", "village", "village", "village"]
    assert t.to_act() == [0]  # four cards: the discard step
    move(t, 0, "discard plague")
    assert t.state.turn == 1
    t = prepared(hands=hands("recycle"), discard=["plague"])
    with pytest.raises(IllegalMove) as err:
        move(t, 0, "play recycle take recycle")
    assert err.value.rule == "not-in-discard"


def test_sudden_changes_draws_two_cards_played_at_once():
    t = prepared(hands=hands("sudden-changes"), deck=["village", "unlucky-fall", "keep", "keep"])
    evs = move(t, 0, "play sudden-changes")
    assert evs[-1].type == "drew" and evs[-1].payload["cards"] == ["village", "unlucky-fall"]
    assert t.state.tasks[0] == {"kind": "sudden", "cards": ["village", "unlucky-fall"]}
    for bad, rule in (("pass", "must-play-drawn"), ("play keep 1", "play-drawn-cards")):
        with pytest.raises(IllegalMove) as err:
            move(t, 0, bad)
        assert err.value.rule == rule
    move(t, 0, "play unlucky-fall 1")
    move(t, 1, "pass")
    assert kingdom(t) == ["A", ["C", "D", "K"], ["E", "F", "G"], ["H", "I", "J"]]
    assert t.state.turn == 0
    move(t, 0, "play village 3")
    assert t.state.castles[2]["domain"] == ["village"]
    assert t.state.hands[0] == FOUR and t.state.turn == 1


def test_sudden_changes_discards_what_cannot_be_played():
    t = prepared(hands=hands("sudden-changes"), deck=["lucky-escape", "not-that-bad", "keep"])
    evs = move(t, 0, "play sudden-changes")
    assert ("fizzled", {"seat": 0, "cards": ["lucky-escape", "not-that-bad"]}) in \
        [(e.type, e.payload) for e in evs]
    assert t.state.event_discard == ["sudden-changes", "lucky-escape", "not-that-bad"]
    assert t.state.turn == 1


def test_sudden_changes_within_sudden_changes():
    t = prepared(hands=hands("sudden-changes"),
                 deck=["sudden-changes", "keep", "village", "town", "keep"])
    move(t, 0, "play sudden-changes")
    move(t, 0, "play sudden-changes")
    assert [task["cards"] for task in t.state.tasks] == [["village", "town"], ["keep"]]
    move(t, 0, "play town 1")
    move(t, 0, "play village 2")
    move(t, 0, "play keep 3")
    assert [c["domain"] for c in t.state.castles] == [["town"], ["village"], []]
    assert t.state.castles[2]["defence"] == ["keep"] and t.state.turn == 1


def test_unexpected_loss_discards_a_random_card_of_the_player_picked():
    t = prepared(hands=hands("unexpected-loss", other=["famed", "famed", "famed"]))
    evs = move(t, 0, "play unexpected-loss seat 1")
    assert ("lost", {"seat": 1, "card": "famed"}) in [(e.type, e.payload) for e in evs]
    assert "window-opened" not in types(evs)  # Not That Bad guards castles, not hands
    # seat 1 is left with two cards, and draws two at the start of its turn
    assert ("drew", {"seat": 1, "count": 2, "cards": ["keep", "keep"], "purpose": "hand"}) in \
        [(e.type, e.payload) for e in evs]
    assert t.state.hands[1] == ["famed", "famed", "keep", "keep"]
    assert t.state.event_discard == ["unexpected-loss", "famed"]
    with pytest.raises(IllegalMove) as err:
        move(prepared(hands=hands("unexpected-loss")), 0, "play unexpected-loss seat 0")
    assert err.value.rule == "other-player"


def test_unexpected_loss_is_a_referee_step():
    t = prepared(hands=hands("unexpected-loss", other=["famed", "keep", "city"]))
    events, fork = t.propose(0, [{"type": "play", "card": "unexpected-loss", "seat": 1}])
    assert fork.due() == "random-discard" and fork.to_act() == []
    t.commit(fork)
    t.settle_all("kotc-test")
    lost = t.state.event_discard[-1]
    assert lost in ("famed", "keep", "city")
    kept = list(t.state.hands[1][:2])  # then seat 1's turn began with a draw of two keeps
    assert sorted(kept + [lost]) == ["city", "famed", "keep"] and t.state.hands[1][2:] == ["keep", "keep"]


def test_targeted_theft_takes_a_random_card_then_another_card_is_played():
    t = prepared(hands=hands("targeted-theft", other=["city", "city", "city"]))
    evs = move(t, 0, "play targeted-theft seat 1")
    assert ("stolen", {"from": 1, "to": 0, "card": "city"}) in [(e.type, e.payload) for e in evs]
    assert t.state.hands[1] == ["city", "city"] and t.to_act() == [0]
    assert t.state.tasks == [{"kind": "free"}]
    move(t, 0, "play city 2")
    assert t.state.castles[1]["domain"] == ["city"]
    assert t.state.turn == 1 and t.state.hands[0] == ["village"] * 3
    assert t.state.hands[1] == ["city", "city", "keep", "keep"]


def test_targeted_theft_the_second_play_may_be_passed():
    t = prepared(hands=hands("targeted-theft", other=["city", "city", "city"]))
    move(t, 0, "play targeted-theft seat 1")
    move(t, 0, "pass")
    assert sorted(t.state.hands[0]) == ["city", "village", "village", "village"]
    with pytest.raises(IllegalMove) as err:
        move(t, 0, "play city 1")
    assert err.value.rule == "discard-step"
    move(t, 0, "discard city")
    assert t.state.turn == 1


def test_reaction_cards_are_not_played_in_turn():
    for card in ("lucky-escape", "not-that-bad"):
        t = prepared(hands=hands(card))
        with pytest.raises(IllegalMove) as err:
            move(t, 0, f"play {card}")
        assert err.value.rule == "reaction-only"


def test_two_lucky_escapes_from_two_seats_save_two_of_the_plague_dead():
    """Ruling: each seat may answer a threat once, and the window stays open while
    men are still at stake, so a second seat's Lucky Escape saves a second man."""
    saver = ["lucky-escape", "keep", "keep"]
    t = prepared(3, hands=[["plague"] + FOUR, saver, saver])
    move(t, 0, "play plague 1 lord master")
    evs = move(t, 1, "react lucky-escape B")
    assert "died" not in types(evs)
    assert t.state.window == {"kind": "death", "queue": [2]}
    assert {"type": "react", "card": "lucky-escape"} in t.engine.legal(t.state, 2)  # only D at stake now
    evs = move(t, 2, "react lucky-escape")
    assert evs[0].payload["save"] == "D" and "died" not in types(evs)
    assert kingdom(t) == ["A", ["B", "C", "D"], ["E", "F", "G"], ["H", "I", "J"]]
    assert t.state.event_discard == ["plague", "lucky-escape", "lucky-escape"]


def test_mysterious_vanishings_one_saved_by_each_seat_the_third_dies():
    saver = ["lucky-escape", "keep", "keep"]
    t = prepared(4, hands=[["mysterious-vanishings"] + FOUR, saver, ["keep"] * 3, saver])
    move(t, 0, "play mysterious-vanishings 2")
    move(t, 1, "react lucky-escape E")
    assert t.state.window["queue"] == [2, 3]
    move(t, 2, "pass")
    evs = move(t, 3, "react lucky-escape G")
    # F alone dies: G moves up to Seneschal and K fills the Master at Arms
    assert [m["man"] for m in evs[[e.type for e in evs].index("died")].payload["men"]] == ["F"]
    assert kingdom(t) == ["A", ["B", "C", "D"], ["E", "G", "K"], ["H", "I", "J"]]


def test_a_seat_answers_a_threat_once():
    twice = ["lucky-escape", "lucky-escape", "keep"]
    t = prepared(2, hands=[["plague"] + FOUR, twice])
    move(t, 0, "play plague 1 lord master")
    evs = move(t, 1, "react lucky-escape B")
    assert t.state.window is None or t.state.window["kind"] != "death"
    assert [m["man"] for m in evs[[e.type for e in evs].index("died")].payload["men"]] == ["D"]
