"""King of the Castle: options, the move notation, and every refusal's rule."""

import pytest

from referee.autoplay import new_table
from referee.games import engine
from referee.games.base import BadOptions, IllegalMove, MalformedMove, NotYourTurn
from referee.games.king_of_the_castle.cards import CARD_LETTERS, CATALOGUE, EVENT_CARDS, LETTERS
from tests.games.king_of_the_castle_helpers import GAME, SEED, move, prepared

ENG = engine(GAME)


# ---- the decks -------------------------------------------------------------------------

def test_the_decks_hold_the_stated_cards():
    assert len(CATALOGUE) == 78 and len(LETTERS) == 26
    quantities = dict(EVENT_CARDS)
    assert quantities["death-by-misadventure"] == 6 and quantities["lucky-escape"] == 4
    assert quantities["mysterious-vanishings"] == 2 and quantities["incompetent-lord"] == 1
    assert len(quantities) == 32  # 32 titles, nine of them castle attribute cards
    assert sum(quantities.values()) == 78


def test_each_letter_is_on_three_event_cards():
    counts = {}
    for letters in CARD_LETTERS.values():
        for letter in letters:
            counts[letter] = counts.get(letter, 0) + 1
    assert counts == {letter: 3 for letter in LETTERS}
    assert CARD_LETTERS["peaceful-death"] == ["A", "B", "C", "D"]
    assert CARD_LETTERS["recycle"] == ["Y", "Z"]


# ---- options --------------------------------------------------------------------------

def test_defaults_are_filled_in():
    assert ENG.setup({}, 4) == {"squires": "random", "personality_order": "shuffled", "first_player": 0,
                                "first_dealer": 0, "personality_deck": None, "event_deck": None,
                                "reactions": "one-per-seat", "react_to_own_card": False,
                                "bonus_ties": "leftmost", "on_resign": "play-on"}
    rules = {"reactions": "one-per-card", "react_to_own_card": True, "bonus_ties": "none", "on_resign": "end"}
    assert ENG.setup(rules, 4) == {**ENG.setup({}, 4), **rules}


@pytest.mark.parametrize("options,players,field", [
    ({"colour": "red"}, 2, "colour"),
    ({"squires": "dice"}, 2, "squires"),
    ({"squires": "letters"}, 7, "squires"),
    ({"personality_order": "reverse"}, 2, "personality_order"),
    ({"first_player": 2}, 2, "first_player"),
    ({"first_player": True}, 2, "first_player"),
    ({"first_dealer": -1}, 2, "first_dealer"),
    ({"personality_deck": list("ABC")}, 2, "personality_deck"),
    ({"personality_deck": list(LETTERS), "personality_order": "alphabetical"}, 2, "personality_deck"),
    ({"event_deck": CATALOGUE[:-1] + ["plague"]}, 2, "event_deck"),
    ({"event_deck": [list(CATALOGUE), list(CATALOGUE)]}, 2, "event_deck"),
    ({"reactions": "two"}, 2, "options.reactions"),
    ({"reactions": None}, 2, "options.reactions"),
    ({"react_to_own_card": "yes"}, 2, "options.react_to_own_card"),
    ({"react_to_own_card": 1}, 2, "options.react_to_own_card"),
    ({"bonus_ties": "rightmost"}, 2, "options.bonus_ties"),
])
def test_bad_options_are_refused_naming_the_field(options, players, field):
    with pytest.raises(BadOptions) as err:
        ENG.setup(options, players)
    assert err.value.extra["field"] == field


def test_letters_work_up_to_six_and_the_others_up_to_eight():
    assert ENG.setup({"squires": "letters"}, 6)["squires"] == "letters"
    assert ENG.setup({"squires": "choose"}, 8)["squires"] == "choose"
    assert ENG.max_players == 8 and ENG.min_players == 2


# ---- notation -------------------------------------------------------------------------

@pytest.mark.parametrize("text,move_", [
    ("play plague 2 lord master", {"type": "play", "card": "plague", "castle": 2, "targets": ["lord", "master"]}),
    ("play plague 2 master lord", {"type": "play", "card": "plague", "castle": 2, "targets": ["lord", "master"]}),
    ("plague 1 seneschal master", {"type": "play", "card": "plague", "castle": 1,
                                    "targets": ["seneschal", "master"]}),
    ("play death-by-misadventure king", {"type": "play", "card": "death-by-misadventure", "targets": ["king"]}),
    ("play death-by-misadventure q", {"type": "play", "card": "death-by-misadventure", "targets": ["Q"]}),
    ("play state-of-disrepair 3 prestige", {"type": "play", "card": "state-of-disrepair", "castle": 3,
                                            "attribute": "prestige"}),
    ("play timely-repairs 1 take walls", {"type": "play", "card": "timely-repairs", "castle": 1, "take": "walls"}),
    ("play targeted-theft seat 3", {"type": "play", "card": "targeted-theft", "seat": 3}),
    ("play towers 2", {"type": "play", "card": "towers", "castle": 2}),
    ("pass", {"type": "pass"}),
    ("discard walls keep", {"type": "discard", "cards": ["keep", "walls"]}),
    ("react lucky-escape", {"type": "react", "card": "lucky-escape"}),
    ("react lucky-escape b", {"type": "react", "card": "lucky-escape", "save": "B"}),
    ("react not-that-bad town", {"type": "react", "card": "not-that-bad", "save": "town"}),
    ("choose q a m", {"type": "choose", "squires": ["A", "M", "Q"]}),
    ("standing pass", {"type": "standing", "answer": "pass"}),
])
def test_notation_reads_and_round_trips(text, move_):
    assert ENG.parse(text) == [move_]
    assert ENG.parse(ENG.format(move_)) == [move_]
    assert ENG.normalize(dict(move_)) == move_


@pytest.mark.parametrize("bad", [
    {"type": "shout"},
    {"type": "play", "card": "dragon"},
    {"type": "play", "card": "plague", "castle": 2},
    {"type": "play", "card": "plague", "castle": 4, "targets": ["lord", "master"]},
    {"type": "play", "card": "plague", "castle": 1, "targets": ["lord"]},
    {"type": "play", "card": "plague", "castle": 1, "targets": ["lord", "lord"]},
    {"type": "play", "card": "plague", "castle": 1, "targets": ["king", "lord"]},
    {"type": "play", "card": "death-by-misadventure", "targets": ["lord"]},
    {"type": "play", "card": "death-by-misadventure", "castle": 1, "targets": ["king"]},
    {"type": "play", "card": "village", "castle": 1, "attribute": "domain"},
    {"type": "play", "card": "state-of-disrepair", "castle": 1, "attribute": "moat"},
    {"type": "play", "card": "recycle", "take": "dragon"},
    {"type": "play", "card": "unexpected-loss", "seat": "one"},
    {"type": "pass", "now": True},
    {"type": "discard", "cards": []},
    {"type": "react", "card": "plague"},
    {"type": "react", "card": "lucky-escape", "save": "town"},
    {"type": "react", "card": "not-that-bad", "save": "B"},
    {"type": "choose", "squires": ["A", "A", "B"]},
    {"type": "choose", "squires": ["A", "B"]},
    {"type": "standing", "answer": "sometimes"},
])
def test_malformed_moves(bad):
    with pytest.raises(MalformedMove):
        ENG.normalize(bad)


@pytest.mark.parametrize("text", ["play", "play plague 2 lord dragon", "react", "hello", "standing",
                                  "play recycle take"])
def test_unreadable_text(text):
    with pytest.raises(MalformedMove):
        ENG.parse(text)


# ---- refusals ------------------------------------------------------------------------

def four(card):
    return [[card, "village", "village", "village"], ["keep", "keep", "keep"]]


@pytest.mark.parametrize("setup,text,rule", [
    ({"king": None}, "play peaceful-death", "no-king"),
    ({"king": None, "card": "beneficial-assassination"}, "play beneficial-assassination 1", "no-king"),
    ({"castles": (("B", "C", None), ("E", "F", "G"), ("H", "I", "J")), "card": "marauding-barbarians"},
     "play marauding-barbarians 1", "no-such-man"),
    ({"castles": ((None, None, None), ("E", "F", "G"), ("H", "I", "J")), "card": "beneficial-assassination"},
     "play beneficial-assassination 1", "no-such-man"),
    ({"card": "death-by-misadventure"}, "play death-by-misadventure Z", "no-such-man"),
    ({"card": "plague"}, "play plague 1 lord H", "same-castle"),
    ({"card": "plague"}, "play plague 1 lord A", "same-castle"),
    ({"card": "plague"}, "play plague 1 lord B", "no-such-man"),
    ({"card": "unexpected-loss"}, "play unexpected-loss seat 5", "no-such-seat"),
    ({"card": "targeted-theft", "empty": True}, "play targeted-theft seat 1", "empty-hand"),
    ({"card": "targeted-theft"}, "play targeted-theft seat 0", "other-player"),
    ({"card": "keep"}, "play city 1", "not-in-hand"),
])
def test_refusals_name_the_rule(setup, text, rule):
    card = setup.get("card", "peaceful-death")
    hands = four(card)
    if setup.get("empty"):
        hands[1] = []
    kwargs = {k: setup[k] for k in ("king", "castles") if k in setup}
    t = prepared(hands=hands, **kwargs)
    with pytest.raises(IllegalMove) as err:
        move(t, 0, text)
    assert err.value.rule == rule


def test_moves_out_of_turn():
    t = prepared(hands=four("keep"))
    for text in ("play keep 1", "pass", "discard keep"):
        with pytest.raises(NotYourTurn):
            move(t, 1, text)


def test_no_move_while_the_referee_must_act():
    table, _ = new_table(GAME, 2, {}, seed=SEED)
    table.state.stage = "scoring"
    with pytest.raises(IllegalMove) as err:
        ENG.decide(table.state, 0, {"type": "pass"})
    assert err.value.rule == "referee-step-due"
