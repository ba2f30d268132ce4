"""King of Danger, basic: build on Walls tricks, dodge Cannons tricks by winning.

Walls tricks give points (more to the winner), Cannons tricks cost every
non-winner a point, so the bot tries to win every trick, preferring Walls:

* leading, it leads its strongest Walls card (a Wizard calls Walls); a lone
  King of Danger is kept for later;
* following a Walls trick, it plays its highest Walls card (even a losing one
  scores a point), else its strongest card;
* following a Cannons trick, it plays its strongest card, hoping to win and lose
  nothing; the King of Danger wins any trick.

Strength: the King of Danger first, then the other Kings, then by number.
"""

from __future__ import annotations


def _strength(card: str) -> int:
    if card == "KD":
        return 100
    if card[0] == "K":
        return 50
    return int(card[1:])


def _score(move: dict, suit: str | None) -> tuple:
    card = move["card"]
    walls = card[0] == "W" or move.get("suit") == "walls"
    if suit is None:  # leading
        return (walls and card != "KD", card[0] != "K", _strength(card))
    if suit == "walls":
        return (card[0] == "W", _strength(card))
    return (0, _strength(card))


def choose(view: dict, legal: list[dict], rng) -> dict:
    suit = (view.get("trick") or {}).get("suit")
    best = max(_score(m, suit) for m in legal)
    return rng.choice([m for m in legal if _score(m, suit) == best])
