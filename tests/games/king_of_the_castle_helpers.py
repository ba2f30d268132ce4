"""Helpers for the King of the Castle tests: stacked decks and prepared kingdoms."""

from __future__ import annotations

from referee.autoplay import new_table, play
from referee.games.king_of_the_castle.cards import CATALOGUE
from referee.games.king_of_the_castle.kingdom import new_castle

GAME = "king-of-the-castle"
SEED = "kotc-test"


def deck_from(top: list[str]) -> list[str]:
    """A whole event deck: ``top`` first, then the rest of the 78 in catalogue order."""
    rest = list(CATALOGUE)
    for card in top:
        rest.remove(card)
    return list(top) + rest


def prepared(players: int = 2, *, king="A", castles=(("B", "C", "D"), ("E", "F", "G"), ("H", "I", "J")),
             levels=None, people=None, hands=None, deck=None, discard=None, turn: int = 0,
             squires=None, standing=None):
    """A table whose kingdom, decks and hands are set by hand, ``turn``'s seat to
    play (its draw done). ``levels``: {castle number: {attribute: [cards]}}."""
    table, _ = new_table(GAME, players, {"personality_order": "alphabetical"}, seed=SEED)
    s = table.state
    s.king = king
    s.castles = [new_castle(*men) for men in castles]
    for number, attrs in (levels or {}).items():
        for attribute, cards in attrs.items():
            s.castles[number - 1][attribute] = list(cards)
    s.personality_deck = list("KLMNOPQRSTUVWXYZ" if people is None else people)
    s.personality_discard = []
    s.event_deck = list(deck if deck is not None else ["keep"] * 5)
    s.event_discard = list(discard or [])
    s.hands = [list(h) for h in (hands or [["village", "village", "village"]] * players)]
    s.squires = [list(q) for q in (squires or [["K", "L", "M"]] * players)]
    s.standing = list(standing or ["ask"] * players)
    s.turn, s.stage, s.tasks, s.owed = turn, "play", [{"kind": "free"}], None
    s.next_seat = (turn + 1) % players
    s.threat = s.window = s.random_pending = None
    return table


def move(table, seat, m):
    """Play one move (dict or text) and settle any referee step it makes due."""
    if isinstance(m, str):
        m = table.engine.parse(m)
    return play(table, seat, m, SEED)


def kingdom(table) -> list:
    """King and each castle's men, as a compact literal to compare against."""
    s = table.state
    return [s.king] + [[c["lord"], c["seneschal"], c["master"]] for c in s.castles]


def types(events) -> list[str]:
    return [e.type for e in events]
