"""Random legal games: they finish for every configuration, keep the game's
invariants at every step, and never show a seat or a spectator what is hidden."""

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.autoplay import random_game
from referee.games.base import ADMIN, json_copy
from referee.games.king_of_the_castle.cards import CARD_NAMES, LETTERS, LEVEL_CARDS
from referee.games.king_of_the_castle.evolve import APPLY
from referee.games.king_of_the_castle.flow import clone
from tests.games.king_of_the_castle_helpers import GAME


def cards_in_play(state) -> int:
    count = len(state.event_deck) + len(state.event_discard) + sum(len(h) for h in state.hands)
    count += sum(len(c[a]) for c in state.castles for a in ("domain", "prestige", "defence"))
    count += sum(len(t["cards"]) for t in state.tasks if t["kind"] == "sudden")
    count += len(state.owed["got"]) if state.owed else 0
    count += sum(len(s) for s in state.set_aside)
    return count


def men(state) -> list:
    return [state.king] + [c[p] for c in state.castles for p in ("lord", "seneschal", "master")]


def invariants(table, log):
    s = table.state
    if not s.castles:  # nothing dealt yet (with squires: choose, the choice comes first)
        return
    assert cards_in_play(s) == 78
    people = [m for m in men(s) if m is not None] + s.personality_deck + s.personality_discard
    assert sorted(people) == LETTERS
    if not s.ending:
        assert None not in men(s), "a post stands empty while the deck could fill it"
    for c in s.castles:
        for a in ("domain", "prestige", "defence"):
            levels = [LEVEL_CARDS[card] for card in c[a]]
            assert all(attr == a for attr, _ in levels)
            assert [lv for _, lv in levels] == sorted({lv for _, lv in levels}), "levels must rise"
    if table.to_act() and s.window is None and s.stage == "play" and not s.tasks:
        assert len(s.hands[s.turn]) > 3  # the discard step
    if s.stage == "play" and s.owed is None and s.window is None:
        # between turns no hand holds more than three; the player's own at most five
        assert all(len(h) <= 3 for i, h in enumerate(s.hands) if i != s.turn)
        assert len(s.hands[s.turn]) <= 5
    if s.result is None:
        assert table.due() or table.to_act()
        assert max(s.turns_taken) - min(s.turns_taken) <= 1


CONFIGS = [(n, sq, order) for n in (2, 4, 6) for sq in ("random", "choose", "letters")
           for order in ("shuffled", "alphabetical")]


BONUS_TIES = ("leftmost", "all", "none")


def check_bonuses(s):
    """The Seneschals' and Masters at Arms' bonuses in the scoring table: paid to
    the castles with the most of their attribute (some at all), a tie as
    ``bonus_ties`` says."""
    for post, attribute, bonus in (("seneschal", "prestige", 2), ("master", "defence", 1)):
        levels = [LEVEL_CARDS[c[attribute][-1]][1] if c[attribute] else 0 for c in s.castles]
        tied = [i + 1 for i, level in enumerate(levels) if level == max(levels) > 0]
        paid = {"leftmost": tied[:1], "all": tied, "none": tied if len(tied) == 1 else []}
        for line in s.result["table"]:
            if line["post"] == post:
                assert line["bonus"] == (bonus if line["castle"] in paid[s.options["bonus_ties"]] else 0)


@pytest.mark.parametrize("players,squires,order", CONFIGS)
def test_random_games_finish_with_an_equal_number_of_turns(players, squires, order):
    ties = BONUS_TIES[CONFIGS.index((players, squires, order)) % 3]
    opts = {"squires": squires, "personality_order": order, "bonus_ties": ties}
    table, log = random_game(GAME, players, opts, seed=f"r{players}{squires}{order}",
                             check=True, on_step=invariants)
    s = table.state
    assert s.result is not None and s.ending
    assert len(set(s.turns_taken)) == 1, s.turns_taken
    assert s.result["squires"] == s.squires and len(s.result["scores"]) == players
    best = max(s.result["scores"])
    assert s.result["winners"] == [i for i, x in enumerate(s.result["scores"]) if x == best]
    check_bonuses(s)


@pytest.mark.parametrize("players", [3, 5, 7, 8])
def test_other_table_sizes_finish(players):
    table, _ = random_game(GAME, players, {"first_player": players - 1}, seed=f"n{players}", check=True)
    assert table.state.result is not None and len(set(table.state.turns_taken)) == 1


# ---- hidden information ---------------------------------------------------------------------

def twin(state, viewer):
    """The same position with everything ``viewer`` may not see changed."""
    t = clone(state)
    for s in range(t.players):
        if s == viewer:
            continue
        t.hands[s] = [CARD_NAMES[(i * 7 + s + 3) % len(CARD_NAMES)] for i in range(len(t.hands[s]))]
        if t.squires[s] is not None:
            t.squires[s] = ["X", "Y", "Z"] if t.squires[s] != ["X", "Y", "Z"] else ["A", "B", "C"]
        if t.set_aside:
            t.set_aside[s] = ["recycle"] * len(t.set_aside[s])
    t.event_deck = list(reversed(t.event_deck))
    t.event_deck = ["recycle" if i % 2 else c for i, c in enumerate(t.event_deck)]
    if t.options["personality_order"] == "shuffled":
        t.personality_deck = list(reversed(t.personality_deck))
    return t


def check_redacted(eng, event, viewer, alphabetical):
    r = eng.redact(event, viewer)
    p = event.payload
    if event.type == "dealt":
        assert set(r["hands"]) <= {str(viewer)}
        for key in ("squires", "set_aside"):
            assert r[key] is None or set(r[key]) <= {str(viewer)}
        assert "event_deck" not in r
        assert ("personality_deck" in r) == alphabetical
    elif event.type == "squires-chosen" and p["seat"] != viewer:
        assert r == {"seat": p["seat"]}
    elif event.type == "drew" and p["purpose"] == "hand" and p["seat"] != viewer:
        assert "cards" not in r
    elif event.type == "reshuffled":
        assert "deck" not in r
    elif event.type == "stolen" and viewer not in (p["from"], p["to"]):
        assert "card" not in r
    if event.type != "game-created" and event.type != "squires-chosen":
        assert "move" not in r or r["move"]["type"] != "choose"


def no_leaks(table, log):
    eng, s = table.engine, table.state
    if s.result is not None or s.stage == "deal":
        return
    for viewer in list(range(s.players)) + [None]:
        other = twin(s, viewer)
        assert eng.view(other, viewer) == eng.view(s, viewer), f"view of {viewer} leaks"
        assert eng.render(other, viewer) == eng.render(s, viewer)
        if viewer is not None:
            assert eng.legal_moves(other, viewer) == eng.legal_moves(s, viewer)
            assert eng.view(s, viewer)["hand"] == s.hands[viewer]
        else:
            assert "hand" not in eng.view(s, viewer) and "hands" not in eng.view(s, viewer)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(CONFIGS), st.integers(0, 10_000))
def test_no_seat_or_spectator_sees_hidden_cards_or_squires(config, n):
    players, squires, order = config
    table, log = random_game(GAME, players, {"squires": squires, "personality_order": order},
                             seed=f"leak{n}", on_step=no_leaks)
    for event in log:
        for viewer in list(range(players)) + [None]:
            check_redacted(table.engine, event, viewer, order == "alphabetical")
        assert table.engine.redact(event, ADMIN) == event.payload
    # at the end everything is shown
    assert table.engine.view(table.state, None)["all_squires"] == table.state.squires


# ---- applying an event leaves its payload alone -----------------------------------------------

def _containers(value, out):
    """The ids of every list and dict within a JSON value."""
    if isinstance(value, dict | list):
        out.add(id(value))
        for v in value.values() if isinstance(value, dict) else value:
            _containers(v, out)
    return out


@pytest.mark.parametrize("config", [(2, "letters", "shuffled"), (4, "choose", "alphabetical"),
                                    (6, "random", "shuffled")])
def test_applying_an_event_neither_changes_nor_keeps_its_payload(config):
    """A draft's payload is applied to the state uncopied (flow.Script): applying
    any event must leave the payload as it was and keep none of its lists or dicts
    (but the finished game's result, which nothing changes afterwards)."""
    players, squires, order = config
    table, log = random_game(GAME, players, {"squires": squires, "personality_order": order},
                             seed=f"own{players}")
    state = table.engine.start(log[0].payload)
    for event in log[1:]:
        if event.type not in APPLY:
            continue
        payload = json_copy(event.payload)
        before = json.dumps(payload, sort_keys=True)
        APPLY[event.type](state, payload)
        assert json.dumps(payload, sort_keys=True) == before, f"{event.type} changed its payload"
        kept = _containers(payload.get("result") if event.type == "game-ended" else None, set())
        shared = (_containers(payload, set()) - kept) & _containers(vars(state), set())
        assert not shared, f"the state keeps a list or dict of {event.type}'s payload"
    assert state.result == table.state.result


def _forks_apart(table, log):
    state = table.state
    fork = state.fork()
    assert vars(fork) == vars(state)
    shared_ok = _containers([state.options, state.names, state.result], set())
    shared = _containers(vars(fork), set()) & _containers(vars(state), set())
    assert not shared - shared_ok - {id(vars(state))}, "the fork shares a list or dict a move may change"


@pytest.mark.parametrize("config", [(2, "letters", "shuffled"), (5, "choose", "alphabetical")])
def test_a_fork_shares_nothing_a_move_changes(config):
    """``CastleState.fork`` (what a script plays on, and a table proposes a move on)
    copies every field but the options, the names and the result: a field added
    to the state and left out of it fails here."""
    players, squires, order = config
    random_game(GAME, players, {"squires": squires, "personality_order": order}, seed=f"fork{players}",
                on_step=_forks_apart)
