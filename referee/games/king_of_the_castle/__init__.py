"""King of the Castle: a kingdom of a King and three castles, 78 event cards, and
squires backed in secret. See ``docs/games/king-of-the-castle.md``.

Modules: ``cards`` (the decks), ``kingdom`` (castle levels, promotion),
``plays`` (what each card may do), ``flow`` (the turn and reaction windows),
``evolve`` (applying events), ``scoring``, ``views``, ``notation``, ``engine``.
"""

from referee.games.king_of_the_castle.engine import KingOfTheCastle

__all__ = ["KingOfTheCastle"]
