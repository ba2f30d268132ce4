"""King of the Castle, basic: play a card rather than pass, keep defences up.

When it may play, the bot plays a card rather than passing, preferring cards
that build its castles up (a card naming a castle and no one to remove) over
cards aimed at people; when asked whether it stands it stands; when it may react
to save someone it does, unless the harm is its own card's (with the house rule
``react_to_own_card``: it chose that harm); it passes only when it has nothing
else. Ties are broken by the seeded randomness.
"""

from __future__ import annotations


def _score(move: dict, own_card: bool) -> int:
    kind = move["type"]
    if kind == "react":
        return -1 if own_card else 4
    if kind == "play":
        return 3 if "castle" in move and "targets" not in move else 2
    if kind == "standing":
        return 1 if move.get("answer") != "pass" else 0
    return 0


def choose(view: dict, legal: list[dict], rng) -> dict:
    threat = view.get("threat") or {}
    own_card = "seat" in view and threat.get("actor") == view["seat"]
    best = max(_score(m, own_card) for m in legal)
    return rng.choice([m for m in legal if _score(m, own_card) == best])
