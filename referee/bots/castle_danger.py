"""Castle Danger, basic: attack first, then strengthen, then advance.

Each action of a turn the bot takes the most aggressive kind of action open to
it: firing a cannon at something, then demolishing, then building a wall, then
adding a piece from its supply, then moving a piece (closer to the opponent's
side when it can), and it ends its turn only when nothing else is left. Ties are
broken by the seeded randomness.
"""

from __future__ import annotations

ORDER = {"fire": 6, "demolish": 5, "build": 4, "add": 3, "move": 2, "end": 0}


def _toward(view: dict, move: dict) -> int:
    """+1 for a move toward the opponent's back row, -1 away, 0 sideways."""
    if move["type"] != "move":
        return 0
    step = int(move["to"][1:]) - int(move["from"][1:])
    forward = 1 if view.get("seat", 0) == 0 else -1
    return (step > 0) - (step < 0) if forward == 1 else (step < 0) - (step > 0)


def _score(view: dict, move: dict) -> tuple:
    return (ORDER.get(move["type"], 1), _toward(view, move))


def choose(view: dict, legal: list[dict], rng) -> dict:
    best = max(_score(view, m) for m in legal)
    return rng.choice([m for m in legal if _score(view, m) == best])
