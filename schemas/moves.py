"""The moves of the four games, as the OpenAPI document describes them.

One schema per move ``type`` (``PlayMove``, ``ResignMove``, ``AddMove``...), each
holding every field any game gives a move of that type, and ``Move``: a ``oneOf``
of them with a ``discriminator`` on ``type``. The games share type names (a
``play`` in King of Danger, King of the Castle and King's Keys; a ``choose`` in
King of the Castle and King's Keys; ``resign`` in all four), so a schema per game
could not be told apart from another game's: a generated client would read every
``play`` as the first game's and drop the fields it does not know. With a schema
per type, each member's single-valued ``type`` enum refuses every other type's
move, whether or not a generator honours the discriminator, and no field of any
game is ever dropped. ``x-games`` names the games a type belongs to; each field's
description says which game uses it.

``EXAMPLES`` has, per game, one real move of each of its types (the referee
accepts each in some position of a random game: tests/test_openapi.py finds one).
"""

from __future__ import annotations

KOD, CD, KOTC, KK = "king-of-danger", "castle-danger", "king-of-the-castle", "kings-keys"

KOD_CARD = "W[1-7]|C[1-7]|Z[1-8]|K[DWCZ]"
KK_CARD = "[RGBY][1-4][ASCK]|[RGBY]\\*|\\*[ASCK]"
KOTC_CARD = "[a-z]+(-[a-z]+)*"


def _pattern(*alternatives: str) -> str:
    return "^(" + "|".join(f"({a})" for a in alternatives) + ")$"


SQUARE = {"type": "string", "pattern": "^[a-g][1-9]$", "description": "a square: file a-g, rank 1-9"}
LEAVE = {"type": "boolean", "enum": [True],
         "description": "King's Keys, with the house rule match: optional: the matching card stays in the field"}
PIECE = {"type": "string", "enum": ["Z", "B", "C"], "description": "Wizard, Builder or Cannon"}


def _move(type_: str, games: list[str], description: str, required: tuple[str, ...] = (),
          **fields) -> dict:
    schema = {"type": "object", "required": ["type", *required], "additionalProperties": False,
              "description": description, "x-games": games,
              "properties": {"type": {"type": "string", "enum": [type_]}, **fields}}
    return schema


# schema name -> (type, schema); the names are what generated clients call the classes.
TYPES: dict[str, tuple[str, dict]] = {
    "PlayMove": ("play", _move(
        "play", [KOD, KOTC, KK],
        "Play a card. King of Danger: `card`, with `suit` only when the card names the "
        "trick's suit (`play Z5 walls`). King of the Castle: `card` (an event card) with "
        "what it needs: `castle`, `targets`, `attribute`, `take`, `seat` (`play plague 2 "
        "lord master`). King's Keys: `card`, with `take` when more than one field card "
        "could be taken (`play *K take Y3K`), or with the house rule `match: optional` "
        "`leave` to leave a matching card in the field (`play Y1K leave`).",
        ("card",),
        card={"type": "string", "pattern": _pattern(KOD_CARD, KOTC_CARD, KK_CARD),
              "description": "King of Danger: W1-W7, C1-C7, Z1-Z8, KD KW KC KZ; King of the "
                             "Castle: an event card by name, e.g. plague; King's Keys: colour, "
                             "number, item (Y1K), a Kingdom card (R*...) or a Joker (*K...)"},
        suit={"type": "string", "enum": ["walls", "cannons", "wizards"],
              "description": "King of Danger: only when the card names the trick's suit"},
        castle={"type": "integer", "minimum": 1, "maximum": 3,
                "description": "King of the Castle: a castle, 1-3 from the left"},
        targets={"type": "array", "items": {"type": "string"},
                 "description": "King of the Castle: posts (king, lord, seneschal, master) "
                                "or squire letters"},
        attribute={"type": "string", "enum": ["domain", "prestige", "defence"],
                   "description": "King of the Castle"},
        take={"type": "string", "pattern": _pattern(KOTC_CARD, KK_CARD),
              "description": "King of the Castle: a card to take (Recycle, Timely Repairs); "
                             "King's Keys: the field card taken"},
        seat={"type": "integer", "minimum": 0, "description": "King of the Castle: the seat a card picks"},
        leave=LEAVE)),
    "ResignMove": ("resign", _move(
        "resign", [KOD, CD, KOTC, KK],
        "Resign (every game, at any time while it runs): the game ends, the resigning seat "
        "loses.")),
    "AddMove": ("add", _move("add", [CD], "Castle Danger: add a piece from the supply (`add B`).",
                             ("piece",), piece=PIECE)),
    "PieceMove": ("move", _move("move", [CD], "Castle Danger: move a piece (`c1-b1`).",
                                ("from", "to"), **{"from": SQUARE, "to": SQUARE})),
    "BuildMove": ("build", _move("build", [CD], "Castle Danger: build a wall (`build b2`).",
                                 ("at",), at=SQUARE)),
    "DemolishMove": ("demolish", _move("demolish", [CD], "Castle Danger: demolish a wall "
                                       "(`demolish c2`).", ("at",), at=SQUARE)),
    "FireMove": ("fire", _move("fire", [CD], "Castle Danger: fire a cannon (`fire d1 d4`).",
                               ("from", "at"), **{"from": SQUARE, "at": SQUARE})),
    "EndMove": ("end", _move("end", [CD], "Castle Danger: end the turn (`end`).")),
    "SmuggleMove": ("smuggle", _move("smuggle", [CD], "Castle Danger, Hidden Danger: smuggle a "
                                     "piece in (`smuggle C`).", ("piece",), piece=PIECE)),
    "RevealMove": ("reveal", _move("reveal", [CD], "Castle Danger, Hidden Danger: reveal a "
                                   "hidden piece (`reveal d1`).", ("at",), at=SQUARE)),
    "OfferDrawMove": ("offer-draw", _move("offer-draw", [CD], "Castle Danger: offer a draw in "
                                          "one's own turn (`offer draw`).")),
    "TakeBackMove": ("take-back", _move("take-back", [CD], "Castle Danger (not Hidden Danger): "
                                        "ask to take back one's last turn (`take back`).")),
    "AcceptMove": ("accept", _move("accept", [CD], "Castle Danger: accept the opponent's "
                                   "offer or request (`accept`).")),
    "DeclineMove": ("decline", _move("decline", [CD], "Castle Danger: decline it (`decline`).")),
    "PassMove": ("pass", _move("pass", [KOTC], "King of the Castle: pass (`pass`).")),
    "DiscardMove": ("discard", _move(
        "discard", [KOTC], "King of the Castle: discard cards (`discard keep`).", ("cards",),
        cards={"type": "array", "items": {"type": "string", "pattern": _pattern(KOTC_CARD)}})),
    "ReactMove": ("react", _move(
        "react", [KOTC], "King of the Castle: play a card out of turn (`react lucky-escape C`).",
        ("card",), card={"type": "string", "pattern": _pattern(KOTC_CARD)},
        save={"type": "string", "description": "the man or level card saved, when several are at stake"})),
    "ChooseMove": ("choose", {**_move(
        "choose", [KOTC, KK],
        "Choose: King of the Castle (`squires: choose`): `squires`, three letters; King's "
        "Keys, when the card drawn from the pile could take more than one (with the house "
        "rule `match: optional`, when it could take any): `take` (`choose Y3K`), or `leave` "
        "(`choose leave`). Exactly one of these.",
        squires={"type": "array", "minItems": 3, "maxItems": 3,
                 "items": {"type": "string", "pattern": "^[A-Z]$"},
                 "description": "King of the Castle: three squire letters"},
        take={"type": "string", "pattern": _pattern(KK_CARD), "description": "King's Keys: the field card taken"},
        leave=LEAVE),
        "minProperties": 2, "maxProperties": 2}),
    "StandingMove": ("standing", _move(
        "standing", [KOTC], "King of the Castle: pass or ask, for standing (`standing pass`).",
        ("answer",), answer={"type": "string", "enum": ["pass", "ask"]})),
}

MOVE = {
    "description": "A move: a JSON object with a `type`, its other fields depending on the type "
                   "and the game (each type's schema says which). `GET .../legal` lists every "
                   "move a seat may send now, exactly in this form.",
    "oneOf": [{"$ref": f"#/components/schemas/{name}"} for name in TYPES],
    "discriminator": {"propertyName": "type",
                      "mapping": {t: f"#/components/schemas/{name}" for name, (t, _) in TYPES.items()}},
}

# game -> one move of each of its types, each accepted by the referee somewhere
EXAMPLES: dict[str, list[dict]] = {
    KOD: [{"type": "play", "card": "Z5", "suit": "walls"}, {"type": "resign"}],
    CD: [{"type": "add", "piece": "B"}, {"type": "move", "from": "c1", "to": "b1"},
         {"type": "build", "at": "b2"}, {"type": "demolish", "at": "c2"},
         {"type": "fire", "from": "d1", "at": "d4"}, {"type": "end"},
         {"type": "smuggle", "piece": "C"}, {"type": "reveal", "at": "d1"},
         {"type": "offer-draw"}, {"type": "take-back"}, {"type": "accept"}, {"type": "decline"},
         {"type": "resign"}],
    KOTC: [{"type": "play", "card": "plague", "castle": 2, "targets": ["lord", "master"]},
           {"type": "pass"}, {"type": "discard", "cards": ["keep"]},
           {"type": "react", "card": "lucky-escape", "save": "C"},
           {"type": "choose", "squires": ["A", "M", "Q"]}, {"type": "standing", "answer": "pass"},
           {"type": "resign"}],
    KK: [{"type": "play", "card": "*K", "take": "Y3K"}, {"type": "choose", "take": "Y3K"},
         {"type": "resign"}],
}

TITLES = {KOD: "King of Danger", CD: "Castle Danger", KOTC: "King of the Castle", KK: "King's Keys"}


def request_examples(notation) -> dict:
    """The move request's examples, one per game and move type, each titled with the
    move in the game's notation (``notation(game, move)`` formats it)."""
    return {f"{game}.{move['type']}": {"summary": f"{TITLES[game]}: {notation(game, move)}",
                                        "value": {"move": move}}
            for game, moves in EXAMPLES.items() for move in moves}
