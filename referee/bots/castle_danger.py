"""Castle Danger, basic: shoot what can be shot, arm, then bring cannons to bear.

Each action of its turn the bot picks, in this order of preference:

1. a shot at the opponent's King (it wins the game);
2. a shot at another enemy piece (cannons first, then wizards, then builders,
   then a piece it cannot identify), else at a wall in front of the King;
3. adding a piece at its portal: a cannon, else a wizard, else a builder;
4. moving a cannon closer to the enemy King's column (and toward the river);
5. ending the turn.

Ties go to the seeded randomness. It looks only at its own view: a hidden enemy
piece is a piece of unknown kind.
"""

from __future__ import annotations

TARGET = {"K": 100, "C": 50, "Z": 40, "B": 30}
ADD = {"C": 30, "Z": 20, "B": 10}


def _col(square: str) -> int:
    return ord(square[0]) - ord("a")


def _row(square: str) -> int:
    return int(square[1:])


def _score(view: dict, seat: int, move: dict) -> int:
    pieces = view.get("pieces", {})
    enemy_king = next((sq for sq, p in pieces.items()
                       if p.get("owner") != seat and p.get("kind") == "K"), None)
    kind = move["type"]
    if kind == "fire":
        target = pieces.get(move["at"])
        if target and target.get("owner") != seat:
            return 200 + TARGET.get(target.get("kind"), 20)
        if move["at"] in view.get("walls", []) and enemy_king and \
                _col(move["at"]) == _col(enemy_king):
            return 150
        return -1  # a wasted shot
    if kind == "add":
        return 100 + ADD.get(move.get("piece"), 0)
    if kind == "move" and enemy_king:
        piece = pieces.get(move["from"], {})
        if piece.get("kind") != "C":
            return -1
        before = abs(_col(move["from"]) - _col(enemy_king))
        after = abs(_col(move["to"]) - _col(enemy_king))
        river = 5
        closer = abs(_row(move["to"]) - river) < abs(_row(move["from"]) - river)
        if after < before:
            return 60
        if after == before and closer:
            return 55
        return -1
    return 0  # end (or anything else): better than a wasted or backward action


def choose(view: dict, legal: list[dict], rng) -> dict:
    seat = view["seat"] if "seat" in view else view["turn"]  # the bot acts on its turn
    best = max(_score(view, seat, m) for m in legal)
    return rng.choice([m for m in legal if _score(view, seat, m) == best])
