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

from functools import cache, lru_cache
from itertools import permutations, product

from referee.games.kings_keys.cards import (
    COLOURS,
    ITEMS,
    NUMBERS,
    is_joker,
    is_kingdom,
    sorted_cards,
)

KINGDOM_FOUR, KINGDOM_THREE = 15, 10
STRAIGHT_FOUR, STRAIGHT_THREE = 10, 5
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


def best_joker_sets(naturals: frozenset, wilds: tuple,
                    any_card: bool = True) -> tuple[int, list[dict]]:
    """One set per item (splitting an item's cards in two never scores more)."""
    if not wilds:
        # Without wild cards each item's cards are its set, if they add to enough
        # (what the search below finds then).
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


# ---- the Queen: straights --------------------------------------------------------------

_PATTERNS = ((1, 2, 3), (2, 3, 4), (1, 2, 3, 4))


def _slot(n: int, i: str) -> int:
    return 1 << ((n - 1) * 4 + ITEMS.index(i))


# Every straight's places (number, item) and their bits, in the order the search
# has always tried them (ties keep the first found, so the order is part of the
# result): built once, not for every colour of every collection scored.
_STRAIGHTS = tuple(
    (places, tuple(_slot(n, i) for n, i in places), sum(_slot(n, i) for n, i in places))
    for pattern in _PATTERNS for items in permutations(ITEMS, len(pattern))
    for places in (tuple(zip(pattern, items, strict=True)),))
_MIDDLES = tuple(_slot(n, i) for n in (2, 3) for i in ITEMS)
_SLOT_OF = {f"{c}{n}{i}": _slot(n, i) for c in COLOURS for n in NUMBERS for i in ITEMS}


@lru_cache(maxsize=4096)
def _colour_straights(held: int, kingdom: bool, jokers: tuple, any_card: bool) -> tuple[int, tuple]:
    """The best straights of one colour, the colour left out: ``held`` the bits of
    its naturals (``_slot``), ``kingdom`` whether its Kingdom card is held, ``jokers``
    the items of the Jokers lent to it. The answer is (points, the straights as
    (places, fill)), a fill naming for each place None (the held card) or the wild
    card standing for it by its index among the colour's wild cards (the Kingdom
    card first, then the Jokers lent). Every straight holds a 2 and a 3, so the
    search decides the naturals of number 2 and 3 one at a time: each is left out
    or put in one of the straights that can hold it; straights whose 2 and 3 are
    both wild cards come last. The same colour's cards come back in many
    collections (and in every way of lending the Jokers), hence the cache."""
    # the wild cards that may stand for a card of each item: the Kingdom card any
    serves = {i: [k for k, w in enumerate(((None,) if kingdom else ()) + jokers) if w is None or w == i]
              for i in ITEMS}
    cands = []
    for places, bits, mask in _STRAIGHTS:
        if mask & ~held and not (kingdom or jokers):
            continue  # a card missing and no wild card to stand for it
        choices = []
        for (_, i), bit in zip(places, bits, strict=True):
            # the held card itself, or a wild card standing for it (the held one
            # may then serve in another straight); without any_card a held card is
            # always shown by itself
            if held & bit:
                choices.append([None] + serves[i] if any_card else [None])
            else:
                choices.append(serves[i])
        for fill in product(*choices):
            used = [w for w in fill if w is not None]
            if len(used) != len(set(used)):
                continue
            slots = wmask = 0
            for bit, w in zip(bits, fill, strict=True):
                if w is None or not any_card:
                    # a held card is used up; without any_card so is the card a
                    # wild card stands for (no two stand for one)
                    slots |= bit
                if w is not None:
                    wmask |= 1 << w
            cands.append((slots, wmask, STRAIGHT_FOUR if len(places) == 4 else STRAIGHT_THREE,
                          (places, fill)))
    if len(cands) <= 1:
        # no straight to make, or one (which the search below finds at the first
        # of its 2 and 3 it decides): nothing to choose
        return (cands[0][2], (cands[0][3],)) if cands else (0, ())
    middles = [s for s in _MIDDLES if held & s]
    by_slot = {s: [k for k, cand in enumerate(cands) if cand[0] & s] for s in middles}

    @cache
    def go(used: int, wmask: int) -> tuple[int, tuple]:
        nxt = next((s for s in middles if not used & s), None)
        if nxt is not None:
            best = go(used | nxt, wmask)
            options = by_slot[nxt]
        else:
            best = (0, ())
            options = range(len(cands))
        for k in options:
            slots, wm, points, _ = cands[k]
            if slots & used or wm & ~wmask:
                continue
            rest = go(used | slots, wmask & ~wm)
            if points + rest[0] > best[0]:
                best = (points + rest[0], (k,) + rest[1])
        return best

    score, ks = go(0, (1 << (len(jokers) + kingdom)) - 1)
    return score, tuple(cands[k][3] for k in ks)


# Each straight as the search with no wild card takes it: its bits (all of them
# used up), its points, and its places with no wild card in any.
_PLAIN = tuple((mask, STRAIGHT_FOUR if len(places) == 4 else STRAIGHT_THREE, (places, (None,) * len(places)))
               for places, _, mask in _STRAIGHTS)
_TWOS = sum(_slot(2, i) for i in ITEMS)
_THREES = sum(_slot(3, i) for i in ITEMS)


@lru_cache(maxsize=8192)
def _plain_straights(held: int) -> tuple[int, tuple]:
    """``_colour_straights`` of a colour with no wild card (every collection of a
    game without them), in either reading of wild cards: the same answer from the
    same search, without what wild cards need (the ways each place may be filled,
    the wild cards left free). A straight is a candidate when all its cards are
    held; none is without a 2 and a 3. A test holds it to ``_colour_straights``."""
    if not (held & _TWOS and held & _THREES):
        return 0, ()
    cands = [cand for cand in _PLAIN if not cand[0] & ~held]
    if len(cands) <= 1:
        return (cands[0][1], (cands[0][2],)) if cands else (0, ())
    # Only the cards of some straight count: the search over the others' places
    # only leaves them out. The same straights come back with other cards beside.
    useful = 0
    for cand in cands:
        useful |= cand[0]
    return _plain_search(useful)


@lru_cache(maxsize=4096)
def _plain_search(held: int) -> tuple[int, tuple]:
    """``_plain_straights``' search, for the cards of its straights (``held``)."""
    cands = [cand for cand in _PLAIN if not cand[0] & ~held]
    middles = [s for s in _MIDDLES if held & s]
    by_slot = {s: [cand for cand in cands if cand[0] & s] for s in middles}
    twos, threes = held & _TWOS, held & _THREES
    known: dict[int, tuple[int, tuple]] = {}

    def go(used: int) -> tuple[int, tuple]:
        got = known.get(used)
        if got is not None:
            return got
        for s in middles:  # the first 2 or 3 held not yet decided: left out, or in a straight
            if not used & s:
                best = go(used | s)
                options = by_slot[s]
                break
        else:
            best = (0, ())
            options = cands
        for slots, points, found in options:
            if slots & used:
                continue
            after = used | slots
            # a straight holds a 2 and a 3, worth at most 10: where even that many
            # more could not beat the best found, the search beyond is not asked
            # for (its answer could not change the best, ties keeping the first)
            if points + STRAIGHT_FOUR * min((twos & ~after).bit_count(), (threes & ~after).bit_count()) <= best[0]:
                continue
            rest = go(after)
            if points + rest[0] > best[0]:
                best = (points + rest[0], (found,) + rest[1])
        known[used] = best
        return best

    return go(0)


def _colour_best(c: str, naturals: frozenset, kingdom: bool, jokers: tuple,
                 any_card: bool) -> tuple[int, list[dict]]:
    """The straights of colour ``c`` (its naturals, its Kingdom card if held, the
    Jokers lent to it), written out as a hand's result shows them."""
    held = 0
    for x in naturals:
        if x[0] == c:
            bit = _SLOT_OF.get(x)
            if bit is None:
                # not a card of the deck (a forged log's deal, taken as logged while
                # the seed is secret): read as the search always read it, its number
                # an int (or the error int() gives), a place only if there is one
                n = int(x[1])
                bit = _slot(n, x[2]) if n in NUMBERS and x[2] in ITEMS else 0
            held |= bit
    if kingdom or jokers:
        score, found = _colour_straights(held, kingdom, jokers, any_card)
    else:
        score, found = _plain_straights(held)
    return score, _written(c, found, ([f"{c}*"] if kingdom else []) + [f"*{i}" for i in jokers])


def _written(c: str, found: tuple, wild_codes: list[str]) -> list[dict]:
    """Colour ``c``'s straights as a hand's result shows them (``wild_codes``: the
    colour's wild cards, as the fills number them)."""
    sets = []
    for places, fill in found:
        cards, stands = [], {}
        for (n, i), w in zip(places, fill, strict=True):
            if w is None:
                cards.append(f"{c}{n}{i}")
            else:
                cards.append(wild_codes[w])
                stands[wild_codes[w]] = f"{c}{n}{i}"
        four = len(places) == 4
        sets.append({"set": "straight-four" if four else "straight-three", "cards": cards,
                     "stands_for": stands, "points": STRAIGHT_FOUR if four else STRAIGHT_THREE})
    return sets


def best_straights(naturals: frozenset, wilds: tuple,
                   any_card: bool = True) -> tuple[int, list[dict]]:
    """Jokers may serve any colour: every way of lending them to the colours is
    tried; each colour is then searched on its own (cached per set of Jokers)."""
    if not wilds:
        # No Joker to lend, so one way to try: each colour's cards as the bits of
        # their places, gathered in one pass (a code no deck has goes the way below)
        held = dict.fromkeys(COLOURS, 0)
        for x in naturals:
            bit = _SLOT_OF.get(x)
            if bit is None:
                break
            held[x[0]] |= bit
        else:
            score, sets = 0, []
            for c in COLOURS:
                s, found = _plain_straights(held[c])
                score += s
                sets += _written(c, found, [])
            return score, sets
    kingdoms = {w[0] for w in wilds if is_kingdom(w)}
    jokers = [w[1] for w in wilds if is_joker(w)]
    solved: dict = {}

    def colour_best(c: str, lent: tuple) -> tuple[int, list[dict]]:
        if (c, lent) not in solved:
            solved[c, lent] = _colour_best(c, naturals, c in kingdoms, lent, any_card)
        return solved[c, lent]

    best: tuple[int, list[dict]] = (-1, [])
    for where in product((None,) + tuple(COLOURS), repeat=len(jokers)):
        score, sets = 0, []
        for c in COLOURS:
            lent = tuple(j for j, w in zip(jokers, where, strict=True) if w == c)
            s, found = colour_best(c, lent)
            score += s
            sets += found
        if score > best[0]:
            best = (score, sets)
    return best


# ---- the whole collection ------------------------------------------------------------


def best_arrangement(cards: list[str], any_card: bool = True) -> dict:
    """The arrangement scoring the most points, category by category, as shown in
    a hand's result: ``{"kingdom": [...], "straights": [...], "joker": [...],
    "points": {"kingdom": k, "straights": s, "joker": j}, "total": t}``.
    ``any_card``: a wild card may stand for a card the collection holds (the
    default reading; False for the house rule ``wild_stands_for: not-held``)."""
    # (is_natural written out: every card of every collection scored)
    naturals = frozenset([c for c in cards if len(c) == 3])
    wilds = tuple(sorted_cards([c for c in cards if len(c) != 3]))
    k, kingdom = best_kingdom_sets(naturals, wilds, any_card)
    s, straights = best_straights(naturals, wilds, any_card)
    j, joker = best_joker_sets(naturals, wilds, any_card)
    return {"kingdom": kingdom, "straights": straights, "joker": joker,
            "points": {"kingdom": k, "straights": s, "joker": j}, "total": k + s + j}
