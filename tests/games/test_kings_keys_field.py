"""King's Keys' field kept grouped as cards are left and piles taken
(``field.left_in`` and ``field.without`` on a ``Grouped`` field): always the field
``group_field`` gives for its cards, in their order, as when the whole field was
grouped again at every card left."""

from __future__ import annotations

import pickle
import random

from referee.games.kings_keys.cards import ALL_CARDS
from referee.games.kings_keys.field import Grouped, group_field, left_in, without


def regrouped(field, card):
    """The field once ``card`` is left in it, grouped again whole."""
    return group_field([c for pile in field for c in pile] + [card])


def test_a_field_left_and_taken_from_is_the_field_grouped_again_whole():
    rng = random.Random(7)
    naturals = [c for c in ALL_CARDS if len(c) == 3]
    kinds_seen = {"single": 0, "third": 0, "fourth": 0, "other": 0}
    for _ in range(400):
        # the naturals of three kinds and a few wild cards, so that thirds and
        # fourths of a kind come often
        kinds = rng.sample(sorted({c[0] + c[2] for c in naturals}), 3)
        pool = [c for c in naturals if c[0] + c[2] in kinds] + rng.sample([c for c in ALL_CARDS if len(c) != 3], 3)
        deck = rng.sample(pool, len(pool))
        start = rng.randrange(0, 5)
        field = group_field(deck[:start])
        for card in deck[start:]:
            if field and rng.random() < 0.3:
                took = rng.choice(field)
                want = [p for p in field if p != took]
                field = without(field, took)
                assert field == want
                continue
            want = regrouped(field, card)
            before = len(field)
            field = left_in(field, card)
            assert type(field) is Grouped and field == want, (card, want, field)
            grew = len(field) - before
            kinds_seen["other" if len(card) != 3 else "single" if grew == 1 else
                       "third" if grew == -1 else "fourth"] += 1
    assert all(kinds_seen.values()), kinds_seen  # every case of left_in was met


def test_a_field_as_logged_is_grouped_again_whole():
    """A field not made by left_in (a deal's, as logged, which a forged log may give
    ungrouped) is grouped whole at the first card left, as before."""
    three = [c for c in ALL_CARDS if len(c) == 3][:1]
    kind = [c for c in ALL_CARDS if len(c) == 3 and c[0] + c[2] == three[0][0] + three[0][2]]
    loose = [[kind[0]], [kind[1]], [kind[2]]]  # three of a kind, not grouped
    other = next(c for c in ALL_CARDS if len(c) != 3)
    assert left_in(loose, other) == [kind[:3], [other]] == regrouped(loose, other)
    grouped = left_in(loose, other)
    assert pickle.loads(pickle.dumps(grouped)) == grouped  # a state holding it still pickles
    assert type(pickle.loads(pickle.dumps(grouped))) is Grouped


def test_the_rows_takeable_looks_up_say_what_matches_says():
    from referee.games.kings_keys.field import _MATCHES, matches, takeable

    assert all(_MATCHES[a][b] == matches(a, b) for a in ALL_CARDS for b in ALL_CARDS)
    # a code no deck has, played or in the field (a forged log's), is asked of matches
    field = [["R1A"], ["R9A"], ["G2S"], ["R*"]]
    assert takeable(field, "R4A") == [["R1A"], ["R9A"], ["R*"]]
    assert takeable(field, "R7A") == [["R1A"], ["R9A"], ["R*"]]
