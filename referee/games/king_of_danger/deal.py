"""Dealing a hand from an ordered deck (top card first).

Cards go out one at a time, starting with the seat to the dealer's left and going
round. With 3 to 5 players each seat gets an equal share and the 1 or 2 cards
left over are revealed and set aside for the hand. With 2 players every seat gets
4 face-down cards, then 4 face-up cards on top of them, then 5 hand cards; the
k-th face-up card a seat receives covers the k-th face-down card it received.
"""

from __future__ import annotations

TABLE_STACKS = 4  # face-down cards per seat with two players, each under a face-up one
TWO_PLAYER_HAND = 5


def deal_order(dealer: int, players: int) -> list[int]:
    """The seats in the order they receive cards: the dealer's left first."""
    return [(dealer + 1 + i) % players for i in range(players)]


def deal(deck: list[str], dealer: int, players: int) -> dict:
    """The deal as the ``hand-dealt`` payload records it (without hand number and
    dealer): ``hands`` by seat, ``leftovers``, and with two players ``face_down``
    and ``face_up`` by seat, stack k's face-up card lying on its face-down card."""
    order = deal_order(dealer, players)
    cards = iter(deck)

    def rounds(count: int) -> list[list[str]]:
        got: list[list[str]] = [[] for _ in range(players)]
        for _ in range(count):
            for seat in order:
                got[seat].append(next(cards))
        return got

    if players == 2:
        face_down = rounds(TABLE_STACKS)
        face_up = rounds(TABLE_STACKS)
        hands = rounds(TWO_PLAYER_HAND)
        return {"hands": hands, "leftovers": list(cards), "face_down": face_down,
                "face_up": face_up}
    hands = rounds(len(deck) // players)
    return {"hands": hands, "leftovers": list(cards)}
