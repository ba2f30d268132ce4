"""The move notation: ``{"type": "play", "card": "Z5", "suit": "walls"}``, written
``play Z5 walls`` or just ``Z5 walls``. ``suit`` only on a Wizard that names the
trick suit; card codes are read in any case and written in capitals."""

from __future__ import annotations

from referee.games.base import MalformedMove
from referee.games.king_of_danger.cards import DECK, TRICK_SUITS, is_wizard

_FIELDS = {"type", "card", "suit"}
_CODES = frozenset(DECK)


def normalize(move: dict) -> dict:
    if move.get("type") != "play":
        raise MalformedMove("a King of Danger move is {\"type\": \"play\", \"card\": ...}",
                            field="type")
    card = move.get("card")
    if len(move) == 2 and type(card) is str and card in _CODES:
        # the usual move, as the log records it: a card's code alone, in its normal form
        return {"type": "play", "card": card}
    unknown = sorted(set(move) - _FIELDS)
    if unknown:
        raise MalformedMove(f"unknown field(s) {unknown}; a play has card and, for a Wizard"
                            " naming the trick suit, suit", field=unknown[0])
    card = move.get("card")
    if not isinstance(card, str) or card.strip().upper() not in DECK:
        raise MalformedMove(f"card must be a card code (W1-W7, C1-C7, Z1-Z8, KD, KW, KC, KZ),"
                            f" not {card!r}", field="card")
    out = {"type": "play", "card": card.strip().upper()}
    suit = move.get("suit")
    if suit is not None:
        if not isinstance(suit, str) or suit.strip().lower() not in TRICK_SUITS:
            raise MalformedMove(f"suit must be walls or cannons, not {suit!r}", field="suit")
        if not is_wizard(out["card"]):
            raise MalformedMove("only a Wizard names the trick suit", field="suit")
        out["suit"] = suit.strip().lower()
    return out


def parse_one(text: str) -> dict:
    words = text.split()
    if words and words[0].lower() == "play":
        words = words[1:]
    elif len(words) >= 2 and words[0].upper() not in DECK:
        # "ply W1": a word where the verb goes, not a card that is no card
        raise MalformedMove(f"cannot read {text!r}: {words[0]!r} is no move here; the one move is 'play' "
                            "('play CARD', or 'play CARD walls' for a Wizard naming the suit)", field="text")
    if not 1 <= len(words) <= 2:
        raise MalformedMove(f"cannot read {text!r}: write 'play CARD', or 'play CARD walls' for a card that names a suit",
                            field="text")
    move = {"type": "play", "card": words[0]}
    if len(words) == 2:
        move["suit"] = words[1]
    try:
        return normalize(move)
    except MalformedMove as err:
        raise MalformedMove(f"cannot read {text!r}: {err.detail}", field="text") from None


def format_move(move: dict) -> str:
    return " ".join(["play", move["card"]] + ([move["suit"]] if "suit" in move else []))
