"""The Queen's Straights of a collection: 1-2-3 or 2-3-4 (5 points) or 1-2-3-4
(10) of one colour with all items different, no card in two straights, a wild
card standing for a card as referee/games/kings_keys/scoring.py says (the
categories are scored each on its own there). Each colour is searched on its own
(every way of lending the Jokers to the colours is tried); a colour with no wild
card has a search of its own, the same answers without what wild cards need."""

from __future__ import annotations

from functools import cache, lru_cache
from itertools import permutations, product

from referee.games.kings_keys.cards import COLOURS, ITEMS, NUMBERS, is_joker, is_kingdom

STRAIGHT_FOUR, STRAIGHT_THREE = 10, 5

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
_DECK_NATURALS = frozenset(_SLOT_OF)
# each natural card's bit among all four colours' places, sixteen a colour (as COLOURS)
_DECK_BIT_OF = {code: bit << 16 * COLOURS.index(code[0]) for code, bit in _SLOT_OF.items()}


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
_ENDS = sum(_slot(n, i) for n in (1, 4) for i in ITEMS)  # a straight's 1 or 4: 5 points each
# each 2 (its bit), and the cards a straight through it may hold beside it: those
# of the other items
_BESIDE_TWO = tuple((_slot(2, i), sum(_slot(n, j) for n in (1, 3, 4) for j in ITEMS if j != i)) for i in ITEMS)
_PLAIN_THROUGH = {two: [cand for cand in _PLAIN if cand[0] & two] for two, _ in _BESIDE_TWO}


@cache
def _through(two: int, beside: int) -> tuple[tuple, int]:
    """The straights through the 2 ``two`` whose cards are all held, ``beside`` the
    cards held beside it (of ``_BESIDE_TWO``), in the order of _STRAIGHTS; and
    their bits together. Looked up, not worked out for every colour scored: a 2
    has 512 ways of being held beside."""
    fits = tuple(cand for cand in _PLAIN_THROUGH[two] if not cand[0] & ~(two | beside))
    bits = 0
    for cand in fits:
        bits |= cand[0]
    return fits, bits


@lru_cache(maxsize=8192)
def _plain_straights(held: int) -> tuple[int, tuple]:
    """``_colour_straights`` of a colour with no wild card (every collection of a
    game without them), in either reading of wild cards: the same answer from the
    same search, without what wild cards need (the ways each place may be filled,
    the wild cards left free). A straight is a candidate when all its cards are
    held; none is without a 2 and a 3. A test holds it to ``_colour_straights``."""
    if not (held & _TWOS and held & _THREES):
        return 0, ()
    # Only the cards of some straight count: the search over the others' places
    # only leaves them out. The same straights come back with other cards beside.
    useful, found = 0, []
    for two, beside in _BESIDE_TWO:
        if held & two:
            fits, bits = _through(two, held & beside)
            if fits:
                found.append(fits)
                useful |= bits
    if not found:
        return 0, ()
    if len(found) == 1 and len(found[0]) == 1:  # one straight: nothing to choose
        _, points, straight = found[0][0]
        return points, (straight,)
    return _plain_search(useful)


@lru_cache(maxsize=4096)
def _plain_search(held: int) -> tuple[int, tuple]:
    """``_plain_straights``' search, for the cards of its straights (``held``).

    The general search decides the 2s and 3s held one at a time, each left out or
    put in a straight; as every straight holds one 2 and one 3, once the 2s are
    decided no straight is left for a 3. So this one decides the 2s alone, in
    order, each left out first, then put in each of its straights in turn: the
    first arrangement of the most points in that order, as the general search
    finds it (ties keep the first). Without the 3s' decisions, with no table of
    positions met and with the bounds below, it takes a quarter of the time (9
    against 36 us a search; the same answer for each of the 65,536 ways of
    holding a colour's cards)."""
    options = [_through(two, held & beside)[0] for two, beside in _BESIDE_TWO if held & two]
    threes, ends, last = held & _THREES, held & _ENDS, len(options)
    # most[k]: the most the 2s from the k-th on make with no card taken yet, known
    # once the search has left the k-th and every later 2 out (it does that first)
    # and never beaten with cards taken: where the best found reaches it, nothing
    # of the rest of the search could beat it (ties keeping the first)
    most: list = [None] * (last - 1) + [max(points for _, points, _ in options[-1]), 0]
    final = options[-1]

    def go(k: int, used: int) -> tuple[int, tuple]:
        if k == last - 1:  # the last 2: its first straight of the most points that fits
            best, top = (0, ()), most[k]
            for slots, points, found in final:
                if not slots & used and points > best[0]:
                    best = (points, (found,))
                    if points == top:
                        break
            return best
        best = go(k + 1, used)
        top = most[k]
        if top is not None and best[0] >= top:
            return best
        later, twos_left = most[k + 1], last - k - 1
        for slots, points, found in options[k]:
            if slots & used:
                continue
            after = used | slots
            # What the 2s after this one could add: no more than they make with no
            # card taken, nor a straight each as many as the 3s left allow, nor 5
            # points for each 1 or 4 left. Where even that could not beat the best
            # found, the search beyond is not asked for.
            bound = min(later, STRAIGHT_FOUR * min(twos_left, (threes & ~after).bit_count()),
                        STRAIGHT_THREE * (ends & ~after).bit_count())
            if points + bound <= best[0]:
                continue
            rest = go(k + 1, after)
            if points + rest[0] > best[0]:
                best = (points + rest[0], (found,) + rest[1])
                if top is not None and best[0] >= top:
                    break
        if not used:
            most[k] = best[0]
        return best

    return go(0, 0)


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
    if not wilds and naturals <= _DECK_NATURALS:
        # No Joker to lend, so one way to try: each colour's cards as the bits of
        # their places, gathered in one sum of every card's bit among the four
        # colours' (distinct bits: their sum is their union), not card by card (a
        # code no deck has goes the way below)
        held = sum(map(_DECK_BIT_OF.__getitem__, naturals))
        score, sets = 0, []
        for c in COLOURS:
            s, found = _plain_straights(held & 0xFFFF)
            held >>= 16
            if found:
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
