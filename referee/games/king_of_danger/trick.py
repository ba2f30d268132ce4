"""Who wins a trick, and what it does to the Castle Trackers.

A trick is a list of ``[seat, card]`` in the order played, plus the trick suit
(set by the first Walls or Cannons card, or named by the Wizard that comes first
among the non-Kings; None while only Kings are down).
"""

from __future__ import annotations

from referee.games.king_of_danger.cards import (
    KING_CONDITION,
    WALLS,
    is_king,
    is_wizard,
    number,
    suit_of,
)

TRACKER_MIN, TRACKER_MAX, TRACKER_START = 1, 8, 3

# Why a trick was won, as the ``trick-won`` event says it.
BY_KING_OF_DANGER = "king-of-danger"
BY_KING = "king-condition"
BY_HIGHEST = "highest"


def only_kings(cards: list[list]) -> bool:
    for _, card in cards:
        if not is_king(card):
            return False  # (most tricks: their first card says it)
    return True


def winner(cards: list[list], suit: str) -> tuple[int, str]:
    """The winning seat of a complete trick that is not all Kings, and why.

    In order: the King of Danger; else the last King played whose condition holds
    (a Walls, Cannons or Wizard card, as the King names, is in the trick); else the
    highest number among cards of the trick suit and Wizards, a trick-suit card
    beating a Wizard of the same number."""
    for seat, card in cards:
        if card == "KD":
            return seat, BY_KING_OF_DANGER
    kinds = {card[0] for _, card in cards}
    for seat, card in reversed(cards):
        if card in KING_CONDITION and KING_CONDITION[card] in kinds:
            return seat, BY_KING
    best = None
    for seat, card in cards:
        if suit_of(card) == suit:
            rank = (number(card), 1)
        elif is_wizard(card):
            rank = (number(card), 0)
        else:
            continue
        if best is None or rank > best[0]:
            best = (rank, seat)
    return best[1], BY_HIGHEST


def trackers_after(trackers: list[int], cards: list[list], suit: str, won_by: int) -> list[int]:
    """Trackers after a won trick. Walls trick: the winner gains 2 and every other
    seat that played a Walls card gains 1 (two players: the winner gains 1, nobody
    else anything). Cannons trick: every seat but the winner loses 1. Never above 8
    nor below 1."""
    new = list(trackers)
    if suit == WALLS:
        if len(trackers) == 2:
            new[won_by] += 1
        else:
            new[won_by] += 2
            for seat, card in cards:
                if seat != won_by and suit_of(card) == WALLS:
                    new[seat] += 1
    else:
        for seat in range(len(new)):
            if seat != won_by:
                new[seat] -= 1
    # (compared, rather than min() and max() called for each seat: every won trick asks)
    return [TRACKER_MIN if t < TRACKER_MIN else TRACKER_MAX if t > TRACKER_MAX else t for t in new]
