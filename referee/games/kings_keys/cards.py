"""The King's Keys deck and its card codes.

A natural card is colour, number, item: ``Y1K`` is the yellow 1 of keys (its
number is also how many keys it shows). The optional wild cards are the Kingdom
cards ``R*`` ``G*`` ``B*`` ``Y*`` (a colour, no item) and the Jokers ``*A`` ``*S``
``*C`` ``*K`` (an item, its colour ignored).
"""

from __future__ import annotations

COLOURS = "RGBY"
ITEMS = "ASCK"
NUMBERS = (1, 2, 3, 4)
COLOUR_NAMES = {"R": "red", "G": "green", "B": "blue", "Y": "yellow"}
ITEM_NAMES = {"A": "axes", "S": "shields", "C": "coins", "K": "keys"}

NATURALS = [f"{c}{n}{i}" for c in COLOURS for n in NUMBERS for i in ITEMS]
KINGDOM_CARDS = [f"{c}*" for c in COLOURS]
JOKERS = [f"*{i}" for i in ITEMS]
WILDS = KINGDOM_CARDS + JOKERS
ALL_CARDS = NATURALS + WILDS

_ORDER = {code: k for k, code in enumerate(ALL_CARDS)}

# Cards dealt to each player and to the field, by number of players; a game with
# wild cards deals one more card to each player.
HAND_SIZE = {3: 9, 4: 7}
FIELD_SIZE = {3: 10, 4: 8}


def deck(wild_cards: bool) -> list[str]:
    return list(ALL_CARDS if wild_cards else NATURALS)


def hand_size(players: int, wild_cards: bool) -> int:
    return HAND_SIZE[players] + (1 if wild_cards else 0)


def is_card(code) -> bool:
    return isinstance(code, str) and code in _ORDER


def is_natural(code: str) -> bool:
    return len(code) == 3


def is_kingdom(code: str) -> bool:
    return len(code) == 2 and code[1] == "*"


def is_joker(code: str) -> bool:
    return len(code) == 2 and code[0] == "*"


def is_wild(code: str) -> bool:
    return len(code) == 2


def colour(code: str) -> str | None:
    return None if is_joker(code) else code[0]


def item(code: str) -> str | None:
    return None if is_kingdom(code) else code[-1]


def number(code: str) -> int | None:
    return int(code[1]) if is_natural(code) else None


def kind(code: str) -> str:
    """Colour and item of a natural card: the cards that match each other."""
    return code[0] + code[2]


def sort_key(code: str) -> int:
    return _ORDER[code]


def sorted_cards(cards) -> list[str]:
    # (sort_key's lookup itself as the key: no call of ours for every card sorted,
    # the same order and the same KeyError for a code no deck has)
    return sorted(cards, key=_ORDER.__getitem__)


def name(code: str) -> str:
    if is_kingdom(code):
        return f"{COLOUR_NAMES[code[0]]} Kingdom card"
    if is_joker(code):
        return f"Joker of {ITEM_NAMES[code[1]]}"
    return f"{COLOUR_NAMES[code[0]]} {code[1]} of {ITEM_NAMES[code[2]]}"
