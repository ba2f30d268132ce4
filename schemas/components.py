"""Named shapes of the OpenAPI document that the marshmallow schemas refer to with
``Ref("Name")`` (schemas/__init__.py): values the service checks itself (a game's
options, a clock, a result), described here as JSON Schema so that generated
clients get real types, and passed through marshmallow unchanged.

Each is a component of the document (referee/api/openapi.py adds them), so every
client shares one type for it (one ``GameStatus``, one ``GameOptions``).
"""

from __future__ import annotations

GAMES = ["king-of-danger", "castle-danger", "king-of-the-castle", "kings-keys"]
# (open and cancelled: an open game's, before it has a log: docs/players.md)
STATUSES = ["active", "settling", "finished", "aborted", "open", "cancelled"]
HIDDEN = "hidden until the game ends"

# null, and nothing else, in OpenAPI 3.0's words: `nullable` applies only beside a
# `type` (OpenAPI 3.0.3), and `enum` keeps every object out. A nullable reference is
# `anyOf: [reference, NULL]`: generators read it as "that type, or None".
NULL = {"type": "object", "nullable": True, "enum": [None], "description": "null"}


def nullable(schema: dict, description: str | None = None) -> dict:
    return {"anyOf": [schema, NULL], **({"description": description} if description else {})}


def ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def _deck(description: str, *, answer: bool) -> dict:
    """A deck option: one order of the cards, top first, or one per hand; in an
    answer also the words that stand for it until the game ends (its cards are
    secret from everyone but the admin of a game seated by name)."""
    shapes = [{"type": "array", "items": {"type": "string"}},
              {"type": "array", "items": {"type": "array", "items": {"type": "string"}}}]
    if answer:
        shapes.append({"type": "string", "enum": [HIDDEN]})
    return {"description": description, "oneOf": [*shapes, NULL]}


# The house rules: options choosing between readings of a rule the text leaves
# open, each game's by name, its readings default first (docs/api.md, "House rules";
# docs/games/<game>.md has the ruling beside each). A value not listed is refused,
# 400 naming options.<name>. tests/test_house_rules.py keeps this list and the
# engines' in step.
HOUSE_RULES = {
    "king-of-danger": {"follow_suit": ["hand", "hand-and-table"], "trackers": ["carry", "reset"],
                       "on_resign": ["play-on", "end"]},
    "castle-danger": {"fire_blocks_building": [True, False], "own_side_shots": [True, False]},
    "king-of-the-castle": {"reactions": ["one-per-seat", "one-per-card"],
                           "react_to_own_card": [False, True],
                           "bonus_ties": ["leftmost", "all", "none"], "on_resign": ["play-on", "end"]},
    "kings-keys": {"wild_stands_for": ["any", "not-held"], "match": ["compulsory", "optional"],
                   "on_resign": ["play-on", "end"]},
}


def _house_rules() -> dict:
    """Each house rule as an option's schema: its readings, the default first. A rule
    several games share (``on_resign``, the same readings in each) is one option."""
    games: dict[str, list[str]] = {}
    for game, rules in HOUSE_RULES.items():
        for name in rules:
            games.setdefault(name, []).append(game)
    readings_of = {name: readings for rules in HOUSE_RULES.values() for name, readings in rules.items()}
    return {name: {"enum": readings, "type": "boolean" if isinstance(readings[0], bool) else "string",
                   "description": f"house rule of {', '.join(games[name])}: "
                                  f"{' or '.join(map(str, readings)).lower()} (default {str(readings[0]).lower()}; "
                                  + ", ".join(f"docs/games/{game}.md" for game in games[name]) + ")"}
            for name, readings in readings_of.items()}


def _options(answer: bool) -> dict:
    props = {
        "target": {"type": "integer", "minimum": 1, "maximum": 1000,
                   "description": "King of Danger: the total that ends the game (31)"},
        "first_dealer": {"type": "integer", "minimum": 0, "description": "the seat that deals first (0)"},
        "first_player": {"type": "integer", "minimum": 0,
                         "description": "King of the Castle: the seat that plays first (0)"},
        "edition": {"type": "string", "enum": ["10th", "3rd"],
                    "description": "Castle Danger: 10th (blue moves first) or 3rd (red first)"},
        "variant": {"type": "string", "enum": ["standard", "hidden-danger"], "description": "Castle Danger"},
        "turn_limit": {"type": "integer", "minimum": 1, "maximum": 10000, "nullable": True,
                       "description": "Castle Danger: turns per player after which the game is a draw"},
        "squires": {"type": "string", "enum": ["random", "choose", "letters"],
                    "description": "King of the Castle: how squires are given"},
        "personality_order": {"type": "string", "enum": ["shuffled", "alphabetical"],
                              "description": "King of the Castle"},
        "wild_cards": {"type": "boolean", "description": "King's Keys: play with the wild cards"},
        "deck": _deck("King of Danger, King's Keys: the deck, top card first", answer=answer),
        "personality_deck": _deck("King of the Castle: the personality deck", answer=answer),
        "event_deck": _deck("King of the Castle: the event deck", answer=answer),
        "clock": ref("ClockSettings") if answer else nullable(ref("ClockSettings"), "none: null"),
        **_house_rules(),
    }
    if answer:
        return {"type": "object", "additionalProperties": False, "properties": props,
                "description": "The game's options as it keeps them (defaults filled in; an "
                               "explicit deck shown as hidden until the game ends, to all but "
                               "the admin of a game seated by name); each game has its own "
                               "(docs/api.md)."}
    props["seed"] = {"description": "the shuffles of a private game, reproducible: a string of "
                                    "1 to 1,000 characters or an integer of at most 100 digits",
                     "oneOf": [{"type": "string", "minLength": 1, "maxLength": 1000},
                               {"type": "integer"}]}
    return {"type": "object", "additionalProperties": False, "properties": props,
            "x-house-rules": HOUSE_RULES,
            "description": "The game's own options (each game takes only its own: docs/api.md), "
                           "and for every game `seed` or explicit decks (either marks the game "
                           "stacked) and `clock`. Unknown or bad options are 400 naming the option."}


# A player entry as an object (at creation, and the body of a seat's replacement).
PLAYER = {
    "type": "object", "required": ["name"], "additionalProperties": False,
    "description": "A player: a name and, each optional, private contacts or a bot to play the seat",
    "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": 100,
                 "description": "no control or bidirectional formatting character"},
        "email": {"type": "string", "format": "email", "nullable": True},
        "webhook": {"type": "string", "format": "uri", "nullable": True,
                    "description": "http(s); loopback and private addresses refused"},
        "bot": {"type": "string", "enum": ["random", "basic"], "nullable": True,
                "description": "the referee plays this seat itself (docs/bots.md)"},
        "entropy": ref("Entropy")}}

# A seat taken by a registered player (docs/players.md): the player's id alone.
PLAYER_SEAT = {
    "type": "object", "required": ["player"], "additionalProperties": False,
    "description": "The creator's own seat: the player whose token authorises the request "
                   "(Authorization: Bearer <player token>; anyone else's id is 403 `forbidden`). It takes "
                   "the player's name and contacts, and the player's token acts for it",
    "properties": {"player": {"type": "string", "description": "the creating player's id"},
                   "entropy": ref("Entropy")}}
# A seat's contribution to the seed (docs/log-format.md, "The seed").
ENTROPY = {
    "type": "string", "minLength": 1, "maxLength": 256,
    "description": "the seat's contribution to the game's seed: 1 to 256 characters, each a Unicode letter, "
                   "mark, number, punctuation mark or symbol, or the space (else 400 naming "
                   "`players[i].entropy`); unseen by anyone until the game's first event records every seat's. "
                   "Refused beside a given seed or deck, and on a seat still to take (its player brings their "
                   "own when joining)"}
# A seat kept for another registered player, who takes it (join) or refuses it
# (decline): a player is seated only by their own act (docs/players.md).
INVITED_PLAYER_SEAT = {
    "type": "object", "required": ["invite_player"], "additionalProperties": False,
    "description": "A seat kept for that player: the game is open until they take it (POST "
                   "/v1/games/{id}/join with their token) or decline it (POST /v1/games/{id}/decline: the game "
                   "is cancelled). A bot player takes it at once. Each is an invitation: rate-limited, and 429 "
                   "when the player has too many pending",
    "properties": {"invite_player": {"type": "string", "description": "the invited player's id"}}}

# Seats of an open game (docs/players.md): any player may take it, or it is kept for
# the player whose confirmed address is invited.
OPEN_SEAT = {"type": "object", "required": ["open"], "additionalProperties": False,
             "description": "A seat any player may take (POST /v1/games/{id}/join): the game is open "
                            "until every seat is taken",
             "properties": {"open": {"type": "boolean", "enum": [True]}}}
INVITED_SEAT = {"type": "object", "required": ["invite"], "additionalProperties": False,
                "description": "A seat kept for the player whose confirmed address this is",
                "properties": {"invite": {"type": "string", "format": "email"}}}

EXPECTED = {"type": "integer", "minimum": 1, "maximum": 2**31 - 1,
            "description": "refuse with 409 `version-conflict` unless the game is at this version"}


def _body(description: str, name: str, schema: dict) -> dict:
    return {"type": "object", "required": [name], "additionalProperties": False, "description": description,
            "properties": {name: schema, "expected_version": EXPECTED}}


COMPONENTS: dict[str, dict] = {
    "Player": PLAYER,
    "PlayerSeat": PLAYER_SEAT,
    "Entropy": ENTROPY,
    "InvitedPlayerSeat": INVITED_PLAYER_SEAT,
    "OpenSeat": OPEN_SEAT,
    "InvitedSeat": INVITED_SEAT,
    "SingleMove": _body("One move.", "move", ref("Move")),
    "MoveBatch": _body("Several moves, applied in order, all or nothing.", "moves",
                       {"type": "array", "items": ref("Move"), "minItems": 1, "maxItems": 64}),
    "MoveText": _body("Moves in the game's notation, `;` or new lines between them.", "text",
                      {"type": "string"}),
    "ClockChange": {"type": "object", "required": ["clock"], "additionalProperties": False,
                    "description": "Set a new clock, or remove it (null)",
                    "properties": {"clock": nullable(ref("ClockSettings"))}},
    "ClockPause": {"type": "object", "required": ["paused"], "additionalProperties": False,
                   "description": "Pause the clock (true) or resume it (false)",
                   "properties": {"paused": {"type": "boolean"}}},
    "GameKind": {"type": "string", "enum": GAMES, "description": "which game"},
    "GameStatus": {"type": "string", "enum": STATUSES, "description":
                   "`active`; `settling` (a referee step is due: moves get 409 `settling` until "
                   "it is done); `finished`; `aborted`; an open game's `open` (seats to take, no log "
                   "yet) and `cancelled`"},
    "Actor": {"description": "who wrote an event: a seat number, or \"referee\"",
              "oneOf": [{"type": "integer", "minimum": 0}, {"type": "string", "enum": ["referee"]}]},
    "ClockSettings": {
        "type": "object", "additionalProperties": False,
        "description": "A clock (docs/clock.md): a time a move (`move_seconds`), or a time bank "
                       "(`kind: \"bank\"` with `initial_seconds`, `increment_seconds`, `max_seconds`). "
                       "Kept complete: answers have every field of its kind.",
        "properties": {
            "move_seconds": {"type": "integer", "minimum": 5, "maximum": 31622400,
                             "description": "whole seconds a seat has to act (required without `kind`)"},
            "kind": {"type": "string", "enum": ["bank"],
                     "description": "`bank`: each seat's time is drawn from its own bank; left out: a "
                                    "time a move"},
            "initial_seconds": {"type": "integer", "minimum": 5, "maximum": 31622400,
                                "description": "a bank: what each seat's bank starts with (required)"},
            "increment_seconds": {"type": "integer", "minimum": 0, "maximum": 31622400,
                                  "description": "a bank: added to a seat's bank when its turn ends (0)"},
            "max_seconds": {"type": "integer", "minimum": 5, "maximum": 31622400,
                            "description": "a bank: the most it holds, at least initial_seconds "
                                           "(initial_seconds)"},
            "remind_seconds": {"type": "integer", "minimum": 0,
                               "description": "seconds before the deadline that the seat is reminded, "
                                              "less than move_seconds (a bank: max_seconds); 0 (the "
                                              "default) for none"},
            "on_timeout": {"description": "what happens at the deadline (remind): remind, autoplay, forfeit, "
                                          "or excused misses: the seat's first `excused` timeouts have the basic "
                                          "bot play its whole turn, the next ends as `then`",
                           "oneOf": [{"type": "string", "enum": ["remind", "autoplay", "forfeit"]},
                                     {"type": "object", "additionalProperties": False, "required": ["excused"],
                                      "properties": {"excused": {"type": "integer", "minimum": 1, "maximum": 100},
                                                     "then": {"type": "string", "enum": ["forfeit", "autoplay"],
                                                              "description": "after the excused ones (forfeit)"}}}]},
            "vacation_days": {"type": "integer", "minimum": 0, "maximum": 366,
                              "description": "the days of auto vacation a seat may draw in the game (a "
                                             "league's clock sets it for its games); 0: the game's clocks stop "
                                             "for no vacation, booked or auto; left out: no limit "
                                             "(docs/clock.md, \"Vacations\")"}}},
    "GameOptions": _options(answer=True),
    "NewGameOptions": _options(answer=False),
    "GameResult": {
        "type": "object", "required": ["winners", "reason", "scores"], "additionalProperties": True,
        "description": "How the game ended. A game may add more (King of the Castle: `squires` "
                       "and its scoring `table`).",
        "properties": {
            "winners": {"type": "array", "items": {"type": "integer", "minimum": 0},
                        "description": "the winning seats (every tied seat in a draw; none when aborted)"},
            "reason": {"type": "string"},
            "scores": {"type": "array", "items": {"type": "integer"}, "description": "by seat"}}},
    "Spectators": {
        "type": "object", "additionalProperties": False,
        "description": "The spectators' webhook: a URL told of every change as an onlooker sees "
                       "it (a forum bot); private like the seats' contacts",
        "properties": {"webhook": {"type": "string", "format": "uri", "nullable": True,
                                   "description": "http(s); loopback and private addresses refused"}}},
}
