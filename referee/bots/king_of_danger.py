"""King of Danger, basic: win tricks cheaply, throw away cheaply.

Walls tricks give points (more to the winner) and Cannons tricks cost every
non-winner a point, so winning a trick is always worth having, but a high card
spent where a low one would do is wasted. The bot:

* following, plays the lowest card that would win the trick as it stands (the
  King of Danger always does; another King does when a card of its kind is on
  the trick; otherwise a Walls/Cannons card of the trick suit or a Wizard above
  the best number there); when nothing wins, it plays its lowest card (on a
  Walls trick its lowest Walls card still gains a point);
* leading, plays its highest numbered card, a Wizard naming Walls, keeping its
  Kings for tricks they are sure to win.
"""

from __future__ import annotations

KIND = {"KW": "W", "KC": "C", "KZ": "Z"}


def _number(card: str) -> int:
    return 0 if card[0] == "K" else int(card[1:])


def _wins(card: str, trick: list[str], suit: str | None) -> bool:
    if "KD" in trick:
        return False
    if card == "KD":
        return True
    if card[0] == "K":
        return any(c[0] == KIND[card] for c in trick)
    if any(c[0] == "K" and any(o[0] == KIND[c] for o in trick) for c in trick):
        return False  # a King already holds this trick
    letter = {"walls": "W", "cannons": "C"}.get(suit or "")
    if card[0] not in (letter, "Z"):
        return False
    best = max((_number(c) for c in trick if c[0] in (letter, "Z")), default=0)
    return _number(card) > best


def _cost(card: str) -> int:
    """How much the bot minds spending a card: Kings most, then by number."""
    return {"KD": 100}.get(card, 50 if card[0] == "K" else _number(card))


def choose(view: dict, legal: list[dict], rng) -> dict:
    trick = [card for _seat, card in (view.get("trick") or {}).get("cards", [])]
    suit = (view.get("trick") or {}).get("suit")
    if not trick:
        best = max((m for m in legal if m["card"][0] != "K" and m.get("suit") != "cannons"),
                   key=lambda m: _number(m["card"]), default=None)
        if best is not None:
            top = [m for m in legal if m["card"] == best["card"] and m.get("suit") != "cannons"]
            return rng.choice(top)
        return rng.choice(legal)
    winning = [m for m in legal if _wins(m["card"], trick, suit)]
    pool = winning or legal
    if not winning and suit == "walls" and any(m["card"][0] == "W" for m in legal):
        pool = [m for m in legal if m["card"][0] == "W"]
    low = min(_cost(m["card"]) for m in pool)
    return rng.choice([m for m in pool if _cost(m["card"]) == low])
