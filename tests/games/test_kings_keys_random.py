"""Whole random games of King's Keys: the kernel's checks, the game's invariants and
that no hidden card ever reaches a seat or a spectator who may not see it."""

import copy
import json

import pytest

from referee.autoplay import random_game
from referee.games import engine as engine_by_name
from referee.games.kings_keys.cards import deck, is_natural, kind
from referee.games.kings_keys.field import matches

KK = engine_by_name("kings-keys")

# (players, wild cards, the house rule match): each table size and deck under both readings
CONFIGS = [(3, False, "compulsory"), (3, True, "optional"), (4, False, "optional"), (4, True, "compulsory")]


def hidden_from(state, viewer) -> set:
    """The cards ``viewer`` may not see now: other seats' hands, the draw pile."""
    if viewer == "admin":
        return set()
    out = set(state.pile)
    for s, hand in enumerate(state.hands):
        if s != viewer:
            out |= set(hand)
    return out


def mentioned(obj, cards) -> list:
    text = json.dumps(obj)
    return [c for c in cards if f'"{c}"' in text]


class Watcher:
    """An ``on_step`` that checks invariants after every move and, event by event,
    what each viewer is shown."""

    def __init__(self, players, wild, match="compulsory"):
        self.players, self.wild, self.match = players, wild, match
        self.viewers = list(range(players)) + [None]
        self.seen = 0
        self.shadow = None
        self.points = [0] * players
        self.scored_piles = []
        self.last_scored = None

    def __call__(self, table, log):
        if self.shadow is None:
            self.shadow = KK.start(log[0].payload)
            self.seen = 1
        for ev in log[self.seen:]:
            before = copy.deepcopy(self.shadow)
            self.shadow = KK.evolve(self.shadow, ev)
            if ev.type == "hand-scored":
                self.scored_piles.append(len(before.pile))
                self.last_scored = ev.payload
                self.points = [a + b for a, b in zip(self.points, ev.payload["points"], strict=True)]
            for viewer in self.viewers:
                leak = mentioned(KK.redact(ev, viewer), hidden_from(self.shadow, viewer))
                assert not leak, f"{ev.type} shows {leak} to {viewer}"
            line = KK.describe(ev)
            assert line and "\n" not in line and (ev.type == "game-created" or ev.type in line
                                                  or "seat" in line or "referee" in line)
        self.seen = len(log)
        assert self.shadow == table.state
        self.check_state(table.state)
        for viewer in self.viewers:
            hidden = hidden_from(table.state, viewer)
            view = KK.view(table.state, viewer)
            # the last hand's result was checked as an event when it was scored; its
            # cards may be in this hand's hands now without telling anything of them
            assert view.pop("last_hand") == self.last_scored
            assert not mentioned(view, hidden)
            text = KK.render(table.state, viewer)
            assert text.startswith("King's Keys") and not [c for c in hidden if c in text.split()]
            if viewer is not None:
                assert not mentioned(KK.legal(table.state, viewer), hidden)

    def check_state(self, s):
        size = len(deck(self.wild))
        if s.stage in ("play", "choose"):
            held = [c for h in s.hands for c in h] + [c for p in s.field for c in p]
            held += s.pile + [c for c in s.collected for c in c] + ([s.drawn] if s.drawn else [])
            assert sorted(held) == sorted(deck(self.wild)) and len(held) == size
            # a seat's collection grows by pairs (or a group of three and its fourth)
            assert all(len(c) % 2 == 0 for c in s.collected)
            # hands shrink in turn from the dealer's left
            sizes = [len(h) for h in s.hands]
            assert max(sizes) - min(sizes) <= 1
            for pile in s.field:
                assert len(pile) <= 3
                if len(pile) > 1:
                    assert all(is_natural(c) and kind(c) == kind(pile[0]) for c in pile)
            if s.stage == "choose":
                # several piles to choose from, or with match optional one and staying
                least = 1 if self.match == "optional" else 2
                assert sum(matches(s.drawn, p[0]) for p in s.field) >= least
            # three natural cards of a kind in the field are one group, as dealt or
            # left there (match optional); never four
            kinds = [kind(c) for p in s.field for c in p if is_natural(c)]
            for k in set(kinds):
                assert kinds.count(k) < 3 or [kind(p[0]) for p in s.field if is_natural(p[0])].count(k) == 1
        assert s.totals == self.points
        assert s.dealt_by[s.dealer] <= 3
        assert sum(s.dealt_by) == s.hands_played <= 3 * self.players


@pytest.mark.parametrize("players,wild,match", CONFIGS)
def test_random_games_finish_with_every_check(players, wild, match):
    watch = Watcher(players, wild, match)
    table, log = random_game("kings-keys", players, {"wild_cards": wild, "match": match},
                             seed=f"kk-{players}-{wild}", check=True, on_step=watch)
    assert table.over and table.state.hands_played == 3 * players
    assert table.state.dealt_by == [3] * players
    # every hand played out its deal: the pile is empty at the scoring, except the
    # two cards a three-player game with wild cards never reaches
    assert set(watch.scored_piles) == {2 if (players, wild) == (3, True) else 0}
    result = table.state.result
    assert result["scores"] == watch.points
    assert result["winners"] == [s for s in range(players) if watch.points[s] == max(watch.points)]


@pytest.mark.parametrize("players,wild,match", CONFIGS)
def test_more_seeds_and_dealers_finish(players, wild, match):
    for k in range(2):
        table, _ = random_game("kings-keys", players,
                               {"wild_cards": wild, "first_dealer": (k + 1) % players, "match": match},
                               seed=f"more-{k}-{players}-{wild}")
        assert table.over and table.state.dealt_by == [3] * players
