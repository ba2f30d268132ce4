"""King's Keys ("Kingdom Four"): a Hanafuda-style matching and collection game.

``cards`` names the deck, ``field`` says what a card played to the field may
take, ``scoring`` finds each collection's best arrangement, ``notation`` reads and
writes moves, ``text`` renders positions and events, and ``engine`` is the referee.
"""

from referee.games.kings_keys.engine import KingsKeys, KingsKeysState

__all__ = ["KingsKeys", "KingsKeysState"]
