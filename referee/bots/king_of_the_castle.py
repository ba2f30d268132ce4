"""King of the Castle, basic: play a card rather than pass, keep defences up.

When it may play, the bot plays a card rather than passing, preferring cards
that build its castles up (a card naming a castle and no one to remove) over
cards aimed at people; when asked whether it stands it stands; when it may react
to save someone it does; it passes only when it has nothing else. Ties are
broken by the seeded randomness.
"""

from __future__ import annotations


def _score(move: dict) -> int:
    kind = move["type"]
    if kind == "react":
        return 4
    if kind == "play":
        return 3 if "castle" in move and "targets" not in move else 2
    if kind == "standing":
        return 1 if move.get("answer") != "pass" else 0
    return 0


def choose(view: dict, legal: list[dict], rng) -> dict:
    best = max(_score(m) for m in legal)
    return rng.choice([m for m in legal if _score(m) == best])
