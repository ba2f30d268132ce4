"""A receipt: the referee's signed word that a game's log holds, at ``seq``, the
event with this ``hash``, written at ``at``.

The format is the contract's ("Signed receipts"), so that anyone can check a
receipt in any language: ``signature`` is Ed25519, base64, over the UTF-8 bytes
of ``"castle-referee/receipt/v1\\n" + game + "\\n" + seq + "\\n" + hash + "\\n" + at``,
``seq`` in decimal and ``hash`` and ``at`` exactly as in the event. A receipt says
nothing its holder could not read in the game's events already: the hash of an
event whose payload a seat sees redacted covers the event's secret salt
(docs/log-format.md), so no guess of the hidden part can be tested against it.
"""

from __future__ import annotations

import base64

PREFIX = "castle-referee/receipt/v1"
FIELDS = ("game", "seq", "hash", "at", "key_id", "signature")


def message(game: str, seq: int, hash_: str, at: str) -> bytes:
    """The bytes a receipt's signature is over."""
    return f"{PREFIX}\n{game}\n{seq:d}\n{hash_}\n{at}".encode()


class Receipts:
    """Signs receipts with the current key of a ring (referee/trust/keys.py); the
    service holds one (``GameService.receipts``) and signs once per request."""

    def __init__(self, ring):
        self.ring = ring

    def keys(self) -> list[dict]:
        """Every key of the ring, public halves only, as ``GET /v1/keys`` lists them."""
        return self.ring.keys()

    def of(self, game_id: str, event) -> dict:
        """The receipt of ``event`` (an ``Event``, or an event's dict) of ``game_id``'s log."""
        if isinstance(event, dict):
            return self.sign(game_id, event["seq"], event["hash"], event["at"])
        return self.sign(game_id, event.seq, event.hash, event.at)

    def sign(self, game: str, seq: int, hash_: str, at: str) -> dict:
        key = self.ring.current()
        signature = key.sign(message(game, seq, hash_, at))
        return {"game": game, "seq": seq, "hash": hash_, "at": at, "key_id": key.key_id,
                "signature": base64.b64encode(signature).decode()}
