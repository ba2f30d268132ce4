"""The field: what a card played to it may take.

The field is a list of *piles*: a single card, or a group of three natural cards
of one colour and item put together at the deal. A card takes a whole pile.
"""

from __future__ import annotations

from referee.games.kings_keys.cards import (
    ALL_CARDS,
    NATURALS,
    WILDS,
    colour,
    is_natural,
    is_wild,
    item,
    kind,
)


def matches(played: str, other: str) -> bool:
    """Whether two cards match: naturals of the same colour and item; a Kingdom
    card and a natural of its colour; a Joker and a natural of its item. Wild
    cards never match each other (see the docs' rulings)."""
    if is_wild(played) and is_wild(other):
        return False
    if is_natural(played) and is_natural(other):
        return kind(played) == kind(other)
    wild, natural = (played, other) if is_wild(played) else (other, played)
    if colour(wild) is not None:
        return colour(wild) == colour(natural)
    return item(wild) == item(natural)


def _match_rows() -> dict[str, dict[str, bool]]:
    """Whether each card of the deck matches each other, a row for each card, as
    ``matches`` says: a natural card the naturals of its kind (itself too), the
    Kingdom card of its colour and the Joker of its item; a wild card the naturals
    of its colour or item. (Made from the naturals gathered by kind, colour and
    item: 0.1 ms, where asking ``matches`` of each pair takes 2.5.)"""
    by_kind: dict[str, list[str]] = {}
    for c in NATURALS:
        by_kind.setdefault(kind(c), []).append(c)
    matching = {}
    for c in NATURALS:
        matching[c] = by_kind[kind(c)] + [f"{c[0]}*", f"*{c[2]}"]
    for w in WILDS:  # (a Kingdom card's code begins with its colour, a Joker's ends with its item)
        matching[w] = [c for c in NATURALS if c[0] == w[0] or c[2] == w[1]]
    return {card: dict.fromkeys(ALL_CARDS, False) | dict.fromkeys(matching[card], True) for card in ALL_CARDS}


# looked up for every pile a card played or drawn could take, not asked pile by pile
# (a test holds the rows to ``matches``)
_MATCHES = _match_rows()


def takeable(field: list[list[str]], card: str) -> list[list[str]]:
    """The piles ``card`` could take, in field order (a pile matches when its
    first card does: a group's cards are all of one kind)."""
    try:
        row = _MATCHES[card]
        return [pile for pile in field if row[pile[0]]]
    except (KeyError, TypeError):
        pass  # not a card of the deck, or a pile's first not one (a forged log's): asked as ever, below
    return [pile for pile in field if matches(card, pile[0])]


def pile_of(field: list[list[str]], card: str) -> list[str] | None:
    for pile in field:
        if card in pile:
            return pile
    return None


def group_field(cards: list[str]) -> list[list[str]]:
    """The field as dealt: three naturals of one kind become a group at the place
    of the first of them; four of one kind (a forfeited deal) are put together too."""
    # (is_natural and kind written out: this runs at every card left in the field)
    counts: dict[str, int] = {}
    for c in cards:
        if len(c) == 3:
            k = c[0] + c[2]
            counts[k] = counts.get(k, 0) + 1
    if not counts or max(counts.values()) < 3:
        return [[c] for c in cards]
    piles: list[list[str]] = []
    placed: dict[str, list[str]] = {}
    for c in cards:
        k = c[0] + c[2] if len(c) == 3 else None
        if k is not None and counts[k] >= 3:
            if k in placed:
                placed[k].append(c)
                continue
            placed[k] = [c]
            piles.append(placed[k])
        else:
            piles.append([c])
    return piles


class Grouped(list):
    """A field known to be grouped as ``group_field`` groups its cards: one this
    module made (``left_in``) or the rest of one once a pile is taken from it
    (``without``). A card left in it is added to its piles (``left_in``) rather than
    the whole field grouped again at every card left. Any other field (a deal's,
    as logged) is grouped again whole the first time, as before."""

    __slots__ = ()


def without(field: list[list[str]], took: list[str]) -> list[list[str]]:
    """The field once the pile ``took`` is taken: still grouped if it was (a group
    leaves whole; a single's kind had fewer than three cards, and has fewer still)."""
    rest = [pile for pile in field if pile != took]
    return Grouped(rest) if type(field) is Grouped else rest


def left_in(field: list[list[str]], card: str) -> list[list[str]]:
    """The field once ``card`` stays in it, at its end: a third natural card of a
    kind (only with the house rule ``match: optional`` may a card that matches
    stay) makes the three a group at the place of the first, as at the deal."""
    if type(field) is not Grouped:
        return Grouped(group_field([c for pile in field for c in pile] + [card]))
    # What group_field gives for the field's cards and this one, worked out from
    # the field's piles (each kind with three cards or more already one pile at
    # the place of its first): the card's kind (group_field's, written out) is
    # the only count that changes.
    if len(card) != 3:
        return Grouped(field + [[card]])
    try:
        # (the card's row of matches: the naturals among them are those of its kind)
        row = _MATCHES[card]
        same = [j for j, pile in enumerate(field) if row[pile[0]] and len(pile[0]) == 3]
    except (KeyError, TypeError):  # a code no deck has (a forged log's): read card by card
        k0, k2 = card[0], card[2]
        same = [j for j, pile in enumerate(field) if len(pile[0]) == 3 and pile[0][0] == k0 and pile[0][2] == k2]
    if not same:
        return Grouped(field + [[card]])
    first = same[0]
    if len(same) == 1 and len(field[first]) >= 3:  # a fourth (or later) card joins its group
        return Grouped(field[:first] + [field[first] + [card]] + field[first + 1:])
    if len(same) == 2:  # the third card: the three a group at the place of the first
        second = same[1]
        return Grouped(field[:first] + [field[first] + field[second] + [card]]
                       + field[first + 1:second] + field[second + 1:])
    return Grouped(field + [[card]])  # one card of its kind before: two now, no group


def completes_group(field: list[list[str]], card: str) -> bool:
    """Whether ``card`` is the fourth natural card of a kind grouped in the field."""
    return is_natural(card) and any(len(p) == 3 and kind(p[0]) == kind(card) for p in field)


def fours(field: list[list[str]]) -> list[str]:
    """Kinds with all four cards in the field (the hand is then forfeit)."""
    return [kind(p[0]) for p in field if len(p) == 4]
