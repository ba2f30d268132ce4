"""Castle Danger (both editions and the Hidden Danger variant).

``board`` the squares and the start, ``state`` the position, ``notation`` moves as
JSON and text, ``actions`` what a turn's actions cost and when they are refused,
``engine`` turns, events and views, ``diagram`` the text rendering.
"""

from referee.games.castle_danger.engine import CastleDanger

__all__ = ["CastleDanger"]
