"""King's Keys, basic: collect whenever possible.

Taking a card always beats leaving one in the Field, and among takes the bot
prefers the one that helps a set it has begun: a card of a colour and number it
already holds (toward a Kingdom Three or Four), then a card of a colour it holds
(toward a Queen's Straight), then the highest number (toward a Joker set). When
nothing can be taken it plays the card it needs least: one whose colour it has
collected least of, lowest number first.
"""

from __future__ import annotations


def _value(card: str, mine: list[str]) -> tuple:
    colour, number = card[0], card[1]
    same = sum(1 for c in mine if c[0] == colour and c[1] == number)
    hue = sum(1 for c in mine if c[0] == colour)
    return (same, hue, number)


def choose(view: dict, legal: list[dict], rng) -> dict:
    mine = view["collected"][view["seat"]] + view.get("hand", [])
    # With the house rule match: optional a matching card may be left: the bot
    # never does (without it no such move is listed, and nothing changes).
    legal = [m for m in legal if not m.get("leave")]
    takes = [m for m in legal if m.get("take")]
    if takes:
        best = max(_value(m["take"], mine) + _value(m.get("card") or m["take"], mine)
                   for m in takes)
        top = [m for m in takes
               if _value(m["take"], mine) + _value(m.get("card") or m["take"], mine) == best]
        return rng.choice(top)
    low = min(_value(m.get("card", ""), mine) if m.get("card") else (99,) for m in legal)
    return rng.choice([m for m in legal
                       if (_value(m["card"], mine) if m.get("card") else (99,)) == low])
