"""The 26-card deck of King of Danger and the card codes of the notation.

Walls ``W1``-``W7``, Cannons ``C1``-``C7``, Wizards ``Z1``-``Z8`` and the four
Kings: ``KD`` (King of Danger), ``KW`` (of Walls), ``KC`` (of Cannons), ``KZ``
(of Wizards). Walls and Cannons are the two trick suits; a Wizard has a number
but no suit, a King has neither.
"""

from __future__ import annotations

WALLS, CANNONS = "walls", "cannons"
TRICK_SUITS = (WALLS, CANNONS)

KINGS = ("KD", "KW", "KC", "KZ")
DECK: tuple[str, ...] = (
    tuple(f"W{n}" for n in range(1, 8))
    + tuple(f"C{n}" for n in range(1, 8))
    + tuple(f"Z{n}" for n in range(1, 9))
    + KINGS
)
_ORDER = {card: i for i, card in enumerate(DECK)}

# Which kind of card each King needs to see in the trick to win it.
KING_CONDITION = {"KW": "W", "KC": "C", "KZ": "Z"}
KING_NAMES = {"KD": "King of Danger", "KW": "King of Walls", "KC": "King of Cannons",
              "KZ": "King of Wizards"}


_SUITS = {"W": WALLS, "C": CANNONS}


def suit_of(card: str) -> str | None:
    """The trick suit a card belongs to: walls, cannons, or None (Wizard, King)."""
    return _SUITS.get(card[0])


def is_wizard(card: str) -> bool:
    return card[0] == "Z"


def is_king(card: str) -> bool:
    return card[0] == "K"


def number(card: str) -> int:
    """The number on a Walls, Cannons or Wizard card."""
    return int(card[1:])


def in_order(cards) -> list[str]:
    """Cards sorted as the deck lists them: Walls, Cannons, Wizards, Kings."""
    return sorted(cards, key=_ORDER.__getitem__)
