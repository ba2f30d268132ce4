"""The two decks: 26 personality cards (one squire per letter) and 78 event cards.

Event cards are named in lower case with dashes, as the contract's notation
writes them. For the ``letters`` way of picking squires every event card also
carries a letter: the catalogue below, in the rule text's order, gets A to Z
three times over (card i of the catalogue carries letter i mod 26).
"""

from __future__ import annotations

import string

LETTERS = list(string.ascii_uppercase)

SQUIRES = dict(zip(LETTERS, [
    "Andrew", "Bartholemew", "Ciaron", "David", "Edward", "Frederick", "George", "Henry",
    "Ian", "James", "Kenneth", "Liam", "Michael", "Nathaniel", "Oliver", "Peter", "Quentin",
    "Robert", "Simon", "Timothy", "Uther", "Vaughan", "William", "Xavier", "Yves", "Zachery",
], strict=True))

ATTRIBUTES = ("domain", "prestige", "defence")

# The castle attribute cards: name -> (attribute, level).
LEVEL_CARDS = {
    "village": ("domain", 1), "town": ("domain", 2), "city": ("domain", 3),
    "known": ("prestige", 1), "recognised": ("prestige", 2), "famed": ("prestige", 3),
    "keep": ("defence", 1), "walls": ("defence", 2), "towers": ("defence", 3),
}
CARD_FOR_LEVEL = {v: k for k, v in LEVEL_CARDS.items()}

# Every event card and how many copies the deck holds, in the rule text's order.
EVENT_CARDS = [
    ("peaceful-death", 4),
    ("death-by-misadventure", 6),
    ("beneficial-assassination", 3),
    ("marauding-barbarians", 3),
    ("plague", 3),
    ("lucky-escape", 4),
    ("financial-scandal", 3),
    ("unlucky-fall", 3),
    ("mysterious-vanishings", 2),
    ("village", 3), ("town", 2), ("city", 2),
    ("known", 3), ("recognised", 2), ("famed", 2),
    ("keep", 3), ("walls", 2), ("towers", 2),
    ("protracted-siege", 1),
    ("weak-administration", 1),
    ("time-of-peace", 1),
    ("incompetent-lord", 1),
    ("timely-repairs", 3),
    ("not-that-bad", 3),
    ("state-of-disrepair", 2),
    ("lazy-defence", 2),
    ("shrinking-domain", 2),
    ("losing-influence", 2),
    ("sudden-changes", 2),
    ("unexpected-loss", 2),
    ("targeted-theft", 2),
    ("recycle", 2),
]
CARD_NAMES = [name for name, _ in EVENT_CARDS]
CATALOGUE = [name for name, n in EVENT_CARDS for _ in range(n)]
assert len(CATALOGUE) == 78

# The letters each card name carries, copy by copy, in catalogue order.
CARD_LETTERS: dict[str, list[str]] = {}
for _i, _name in enumerate(CATALOGUE):
    CARD_LETTERS.setdefault(_name, []).append(LETTERS[_i % 26])

# What a removal card takes away: attribute(s), and "all" levels or the "top" one.
REMOVALS = {
    "protracted-siege": (("domain",), "all"),
    "weak-administration": (("prestige",), "all"),
    "time-of-peace": (("defence",), "all"),
    "incompetent-lord": (ATTRIBUTES, "top"),
    "shrinking-domain": (("domain",), "top"),
    "losing-influence": (("prestige",), "top"),
    "lazy-defence": (("defence",), "top"),
}

# Death cards that kill one named post of a castle, and the attribute whose top
# card goes with him (None: no card).
CASTLE_DEATHS = {
    "marauding-barbarians": ("master", "defence"),
    "financial-scandal": ("seneschal", "prestige"),
    "unlucky-fall": ("lord", None),
}

REACTIONS = ("lucky-escape", "not-that-bad")
POSTS = ("lord", "seneschal", "master")  # a castle's posts, highest first
RANKS = ("king",) + POSTS


def lettered(names: list[str]) -> list[tuple[str, str]]:
    """Letters for a deck given by names, top first: the k-th copy of a name from
    the top carries the k-th letter the catalogue gives that name."""
    seen: dict[str, int] = {}
    out = []
    for name in names:
        k = seen.get(name, 0)
        seen[name] = k + 1
        out.append((name, CARD_LETTERS[name][k]))
    return out
