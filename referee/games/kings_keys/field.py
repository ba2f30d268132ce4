"""The field: what a card played to it may take.

The field is a list of *piles*: a single card, or a group of three natural cards
of one colour and item put together at the deal. A card takes a whole pile.
"""

from __future__ import annotations

from functools import cache

from referee.games.kings_keys.cards import (
    ALL_CARDS,
    colour,
    is_card,
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


@cache
def _matches_of(card: str) -> dict[str, bool]:
    """Whether ``card`` (of the deck) matches each card of the deck, looked up: asked
    once per card (when it first looks at a field), not for every pile each time."""
    return {other: matches(card, other) for other in ALL_CARDS}


def takeable(field: list[list[str]], card: str) -> list[list[str]]:
    """The piles ``card`` could take, in field order (a pile matches when its
    first card does: a group's cards are all of one kind)."""
    row = _matches_of(card) if is_card(card) else None
    if row is not None:
        try:
            return [pile for pile in field if row[pile[0]]]
        except (KeyError, TypeError):
            pass  # not a card of the deck (a forged log's): asked as ever, below
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


def left_in(field: list[list[str]], card: str) -> list[list[str]]:
    """The field once ``card`` stays in it, at its end: a third natural card of a
    kind (only with the house rule ``match: optional`` may a card that matches
    stay) makes the three a group at the place of the first, as at the deal."""
    return group_field([c for pile in field for c in pile] + [card])


def completes_group(field: list[list[str]], card: str) -> bool:
    """Whether ``card`` is the fourth natural card of a kind grouped in the field."""
    return is_natural(card) and any(len(p) == 3 and kind(p[0]) == kind(card) for p in field)


def fours(field: list[list[str]]) -> list[str]:
    """Kinds with all four cards in the field (the hand is then forfeit)."""
    return [kind(p[0]) for p in field if len(p) == 4]
