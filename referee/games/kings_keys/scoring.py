"""The best arrangement of a collection, found by the referee.

A collection is scored in three categories, each on its own, and every card
(wild cards included) may be used once in each category:

* the King's Kingdom sets: three (10) or four (15) cards of one colour and number;
* the Queen's Straights: 1-2-3 or 2-3-4 (5) or 1-2-3-4 (10) of one colour with
  all items different, no card in two straights;
* the Joker's sets: the cards of one item whose numbers add to 12 or more, 1 point
  at 12 and 1 more for each item beyond.

A wild card stands for one card of the deck, in each category on its own: a
Kingdom card for any card of its colour, a Joker for any card of its item, even a
card the collection holds (four axes 4s and the Joker of axes are 20 axes). A set
is still one colour and number (Kingdom sets) or all different items (straights).
Under the house rule ``wild_stands_for: not-held`` (``any_card=False`` here) a
wild card stands only for a card the collection does not hold, and in one
category no two wild cards stand for the same card. The search is exact: it
tries every use of the wild cards, not the first that looks good.
"""

from __future__ import annotations

from functools import cache
from itertools import groupby
from operator import itemgetter

from referee.games.kings_keys.cards import (
    COLOURS,
    ITEMS,
    NATURALS,
    NUMBERS,
    is_joker,
    is_kingdom,
    sorted_cards,
)
from referee.games.kings_keys.straights import best_straights

KINGDOM_FOUR, KINGDOM_THREE = 15, 10
JOKER_THRESHOLD = 12


def joker_points(total: int) -> int:
    """1 point for 12 of an item, 1 more for each item beyond."""
    return total - JOKER_THRESHOLD + 1 if total >= JOKER_THRESHOLD else 0


def _submasks_by_size(mask: int) -> list[int]:
    """Every submask of ``mask``, fewest bits first (so ties keep wild cards free)."""
    subs = []
    sub = mask
    while True:
        subs.append(sub)
        if sub == 0:
            break
        sub = (sub - 1) & mask
    return sorted(subs, key=lambda s: (bin(s).count("1"), s))


def _bits(mask: int) -> list[int]:
    return [j for j in range(mask.bit_length()) if mask >> j & 1]


# the four cards of each colour and number, in the order the search takes them
_KINGDOM_GROUPS = tuple(tuple(f"{c}{n}{i}" for i in ITEMS) for c in COLOURS for n in NUMBERS)


# ---- the King: Kingdom Threes and Fours ----------------------------------------------


def best_kingdom_sets(naturals: frozenset, wilds: tuple,
                      any_card: bool = True) -> tuple[int, list[dict]]:
    """At most one set per colour and number (there are only four such cards)."""
    if not wilds:
        # Without wild cards there is nothing to choose: every colour and number
        # held three or four times is a set (what the search below finds then).
        sets = []
        for codes in _KINGDOM_GROUPS:
            # (the four looked up before a list is made: most colours and numbers
            # are held fewer than three times)
            a, b, c, d = codes
            if (a in naturals) + (b in naturals) + (c in naturals) + (d in naturals) < 3:
                continue
            held = [code for code in codes if code in naturals]
            if len(held) >= 3:
                points = KINGDOM_FOUR if len(held) == 4 else KINGDOM_THREE
                sets.append({"set": "kingdom-four" if len(held) == 4 else "kingdom-three", "cards": held,
                             "stands_for": {}, "points": points})
        return sum(x["points"] for x in sets), sets
    groups = [(c, n) for c in COLOURS for n in NUMBERS]

    def standins(c: str, n: int, missing: list[str], ws: list[str]) -> dict | None:
        # A Joker shows its own item in this colour and number; a Kingdom card any
        # item (one not held, for a clearer table, when there is one). Without
        # any_card, only items missing from the collection, each once.
        free = list(missing)
        out = {}
        for w in ws:
            if is_joker(w):
                if w[1] in free:
                    free.remove(w[1])
                elif not any_card:
                    return None
                out[w] = f"{c}{n}{w[1]}"
        for w in ws:
            if is_kingdom(w):
                if w[0] != c or not (free or any_card):
                    return None
                out[w] = f"{c}{n}{free.pop(0) if free else ITEMS[0]}"
        return out

    @cache
    def go(gi: int, mask: int) -> tuple[int, tuple]:
        if gi == len(groups):
            return 0, ()
        c, n = groups[gi]
        held = [f"{c}{n}{i}" for i in ITEMS if f"{c}{n}{i}" in naturals]
        missing = [i for i in ITEMS if f"{c}{n}{i}" not in naturals]
        best = go(gi + 1, mask)
        for sub in _submasks_by_size(mask):
            ws = [wilds[j] for j in _bits(sub)]
            size = len(held) + len(ws)
            if not 3 <= size <= 4:  # a set is three or four cards
                continue
            stands = standins(c, n, missing, ws)
            if stands is None:
                continue
            points = KINGDOM_FOUR if size == 4 else KINGDOM_THREE
            rest = go(gi + 1, mask & ~sub)
            if points + rest[0] > best[0]:
                kind = "kingdom-four" if size == 4 else "kingdom-three"
                found = {"set": kind, "cards": held + ws, "stands_for": stands, "points": points}
                best = (points + rest[0], (found,) + rest[1])
        return best

    score, sets = go(0, (1 << len(wilds)) - 1)
    return score, list(sets)


# ---- the Joker: sets of one item -----------------------------------------------------

_DECK_NATURALS = frozenset(NATURALS)
# each natural card's place among them ordered by item (as ITEMS), then as the deck
# orders them: an item's cards come together, in the order its set shows them
_ITEM_FIRST = {code: ITEMS.index(code[2]) * len(NATURALS) + k for k, code in enumerate(NATURALS)}
_NUMBER_OF = {code: int(code[1]) for code in NATURALS}


def _deck_joker_sets(naturals: frozenset) -> tuple[int, list[dict]]:
    """``best_joker_sets`` of cards of the deck without wild cards: each item's
    cards gathered by one sort rather than one by one (a third fewer instructions;
    any other card goes the way that reads it as it always did)."""
    sets, score = [], 0
    for i, cards in groupby(sorted(naturals, key=_ITEM_FIRST.__getitem__), key=itemgetter(2)):
        held = list(cards)
        total = sum(map(_NUMBER_OF.__getitem__, held))
        points = joker_points(total)
        if points:
            sets.append({"set": "joker-set", "item": i, "count": total, "cards": held,
                         "stands_for": {}, "points": points})
            score += points
    return score, sets



def best_joker_sets(naturals: frozenset, wilds: tuple,
                    any_card: bool = True) -> tuple[int, list[dict]]:
    """One set per item (splitting an item's cards in two never scores more)."""
    if not wilds:
        # Without wild cards each item's cards are its set, if they add to enough
        # (what the search below finds then).
        if naturals <= _DECK_NATURALS:
            return _deck_joker_sets(naturals)
        # (each item's cards added up first, then its set written from the last item
        # back, as the search does: a forged log's odd card fails as it always did)
        by_item: dict[str, list[str]] = {i: [] for i in ITEMS}
        for c in naturals:  # (in one pass: each item's cards in the set's order, as ever)
            held = by_item.get(c[2])
            if held is not None:
                held.append(c)
        items = [(i, by_item[i], sum(int(c[1]) for c in by_item[i])) for i in ITEMS]
        sets = []
        for i, held, total in reversed(items):
            points = joker_points(total)
            if points:
                sets.append({"set": "joker-set", "item": i, "count": total, "cards": sorted_cards(held),
                             "stands_for": {}, "points": points})
        sets.reverse()
        return sum(x["points"] for x in sets), sets

    def not_held(i: str, ws: list[str]) -> dict | None:
        # Each wild card shows the highest card of the item not held nor shown
        # already: Kingdom cards first, each bound to its colour.
        taken = {c for c in naturals if c[2] == i}
        out = {}
        for w in sorted(ws, key=is_joker):
            if is_joker(w) and w[1] != i:
                return None
            colours = COLOURS if is_joker(w) else (w[0],)
            free = [f"{c}{n}{i}" for n in NUMBERS for c in colours if f"{c}{n}{i}" not in taken]
            if not free:
                return None
            out[w] = free[-1]
            taken.add(free[-1])
        return out

    def standins(i: str, ws: list[str]) -> dict | None:
        if not any_card:
            return not_held(i, ws)
        # Every wild card shows the 4 of the item (held or not): the most it can add.
        out = {}
        for w in ws:
            if is_kingdom(w):
                out[w] = f"{w[0]}4{i}"
            elif w[1] == i:
                fours = [f"{c}4{i}" for c in COLOURS if f"{c}4{i}" not in naturals]
                out[w] = fours[0] if fours else f"{COLOURS[0]}4{i}"
            else:
                return None
        return out

    @cache
    def go(ii: int, mask: int) -> tuple[int, tuple]:
        if ii == len(ITEMS):
            return 0, ()
        i = ITEMS[ii]
        held = [c for c in naturals if c[2] == i]
        base = sum(int(c[1]) for c in held)
        best = go(ii + 1, mask)
        for sub in _submasks_by_size(mask):
            ws = [wilds[j] for j in _bits(sub)]
            stands = standins(i, ws)
            if stands is None:
                continue
            total = base + sum(int(card[1]) for card in stands.values())
            points = joker_points(total)
            if points == 0:
                continue
            rest = go(ii + 1, mask & ~sub)
            if points + rest[0] > best[0]:
                found = {"set": "joker-set", "item": i, "count": total,
                         "cards": sorted_cards(held) + ws, "stands_for": stands, "points": points}
                best = (points + rest[0], (found,) + rest[1])
        return best

    score, sets = go(0, (1 << len(wilds)) - 1)
    return score, list(sets)


# ---- the whole collection ------------------------------------------------------------


def _natural_and_wild(cards: list[str]) -> tuple[frozenset, tuple]:
    """The natural cards of a collection, and its wild cards in the deck's order."""
    try:
        naturals = _DECK_NATURALS.intersection(cards)
    except TypeError:  # a card that is no code at all (a forged log's): read one by one below
        naturals = None
    if naturals is not None and len(naturals) == len(cards):
        return naturals, ()  # naturals of the deck, each once (a game without wild cards)
    # (is_natural written out: every card of every collection scored)
    naturals = frozenset([c for c in cards if len(c) == 3])
    return naturals, tuple(sorted_cards([c for c in cards if len(c) != 3]))


def best_arrangement(cards: list[str], any_card: bool = True) -> dict:
    """The arrangement scoring the most points, category by category, as shown in
    a hand's result: ``{"kingdom": [...], "straights": [...], "joker": [...],
    "points": {"kingdom": k, "straights": s, "joker": j}, "total": t}``.
    ``any_card``: a wild card may stand for a card the collection holds (the
    default reading; False for the house rule ``wild_stands_for: not-held``)."""
    naturals, wilds = _natural_and_wild(cards)
    k, kingdom = best_kingdom_sets(naturals, wilds, any_card)
    s, straights = best_straights(naturals, wilds, any_card)
    j, joker = best_joker_sets(naturals, wilds, any_card)
    return {"kingdom": kingdom, "straights": straights, "joker": joker,
            "points": {"kingdom": k, "straights": s, "joker": j}, "total": k + s + j}
