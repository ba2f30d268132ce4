"""Random whole games of King of Danger: every game ends, the rules' invariants hold
at every step, and no viewer ever sees a card hidden from them."""

import copy
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.autoplay import random_game
from referee.games.base import ADMIN
from referee.games.king_of_danger.cards import DECK
from tests.games.king_of_danger_helpers import GAME

CARDS = set(DECK)


def cards_in(obj) -> set[str]:
    """Every card code appearing as a whole string anywhere in a JSON-like value."""
    if isinstance(obj, str):
        return {obj} if obj in CARDS else set()
    if isinstance(obj, dict):
        return set().union(*(cards_in(v) for v in obj.values())) if obj else set()
    if isinstance(obj, list | tuple):
        return set().union(*(cards_in(v) for v in obj)) if obj else set()
    return set()


def hidden_from(state, viewer) -> set[str]:
    """The cards ``viewer`` may not know now: other seats' hands and every face-down card."""
    hidden = {c for down in state.face_down for c in down if c}
    for seat, hand in enumerate(state.hands):
        if seat != viewer:
            hidden |= set(hand)
    return hidden


class Invariants:
    """An ``on_step`` checker carrying what it needs from step to step."""

    def __init__(self, players: int):
        self.players = players
        self.seen = 1  # events of the log already checked (the first is game-created)
        self.mirror = None  # the state as of the last checked event
        self.trackers_at_hand_end = None

    def __call__(self, table, log):
        eng = table.engine
        if self.mirror is None:
            self.mirror = eng.start(log[0].payload)
            self.seen = 1
        for ev in log[self.seen:]:
            before = copy.deepcopy(self.mirror)
            self.mirror = eng.evolve(self.mirror, ev)
            self.check_event(eng, ev, before, self.mirror)
        self.seen = len(log)
        assert self.mirror == table.state
        self.check_position(eng, table.state)

    def check_event(self, eng, ev, before, after):
        if ev.type == "trick-won":
            assert len(ev.payload["cards"]) == self.players
            assert ev.payload["winner"] in [s for s, _ in ev.payload["cards"]]
        if ev.type == "hand-dealt":
            # a hand starts from the trackers the last one ended with, or from 3
            start = [3] * self.players if after.options["trackers"] == "reset" else before.trackers
            assert after.trackers == start
        if ev.type == "hand-scored":
            # each hand adds exactly the trackers to the scores
            assert ev.payload["trackers"] == before.trackers
            assert after.scores == [s + t for s, t in zip(before.scores, before.trackers,
                                                          strict=True)]
            per_seat = 13 if self.players == 2 else 26 // self.players
            assert len(before.tricks) == per_seat
        if ev.type == "game-ended":
            result = ev.payload["result"]
            top = max(result["scores"])
            assert top >= after.options["target"] and result["scores"].count(top) == 1
            assert result["winners"] == [result["scores"].index(top)]
        for viewer in [*range(self.players), None]:
            shown = cards_in(eng.redact(ev, viewer))
            leaked = shown & hidden_from(after, viewer)
            assert not leaked, f"{ev.type} shows {leaked} to {viewer}"
            if ev.type == "hand-dealt":
                own = set(ev.payload["hands"][viewer]) if viewer is not None else set()
                assert shown == own | set(ev.payload["leftovers"]) | cards_in(
                    ev.payload.get("face_up", []))

    def check_position(self, eng, state):
        assert all(1 <= t <= 8 for t in state.trackers), state.trackers
        if state.phase == "play":
            played = [c for t in state.tricks for _, c in t["cards"]] + [c for _, c in state.trick]
            held = [c for h in state.hands for c in h]
            table = [c for rows in state.face_up + state.face_down for c in rows if c]
            assert sorted(played + held + table + state.leftovers) == sorted(DECK)
        for viewer in [*range(self.players), None]:
            hidden = hidden_from(state, viewer)
            view = eng.view(state, viewer)
            assert not cards_in(view) & hidden, f"view of {viewer} leaks"
            text = eng.render(state, viewer)
            assert not {w for w in text.replace(",", " ").split() if w in hidden}
            if viewer is not None:
                legal = eng.legal(state, viewer)
                assert not cards_in(legal) & hidden
                allowed = set(eng.playable(state, viewer)) if state.phase == "play" else set()
                assert cards_in(legal) <= allowed
        admin = eng.view(state, ADMIN)
        assert cards_in(admin) >= hidden_from(state, None)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("game", range(12))
def test_random_games_end_and_keep_the_rules(players, game):
    check = Invariants(players)
    options = {"first_dealer": game % players, "trackers": ("carry", "reset")[game // players % 2]}
    table, log = random_game(GAME, players, options, seed=f"kod-{players}-{game}",
                             check=True, on_step=check)
    assert table.over and table.status == "finished"
    assert log[-1].type == "seed-revealed" and log[-2].type == "game-ended"
    check(table, log)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(2, 5), target=st.integers(1, 40), seed=st.text(min_size=1, max_size=8),
       shuffles=st.lists(st.permutations(DECK), min_size=1, max_size=3),
       trackers=st.sampled_from(["carry", "reset"]))
def test_random_games_with_stacked_decks_and_targets(players, target, seed, shuffles, trackers):
    check = Invariants(players)
    options = {"target": target, "deck": [list(d) for d in shuffles], "trackers": trackers}
    table, log = random_game(GAME, players, options, seed=seed, rnd=random.Random(seed),
                             check=True, on_step=check)
    top = max(table.scores())
    assert top >= target and table.state.result["winners"] == [table.scores().index(top)]
    # the explicit deck order never reaches a seat or a spectator
    created = log[0]
    for viewer in [*range(players), None]:
        assert not cards_in(table.engine.redact(created, viewer))
    assert table.engine.redact(created, ADMIN)["options"]["deck"] == options["deck"]
    json.dumps([table.engine.redact(e, 0) for e in log])  # every redacted event is JSON
