"""Moves: their canonical JSON form and the text notation.

``play CARD [castle] [targets...] [attribute] [take CARD] [seat N]``, ``pass``,
``discard CARD...``, ``react CARD [man-or-card]``, ``choose A B C``,
``standing pass|ask``.
"""

from __future__ import annotations

from referee.games.base import MalformedMove
from referee.games.king_of_the_castle.cards import (
    ATTRIBUTES,
    CARD_NAMES,
    LETTERS,
    LEVEL_CARDS,
    POSTS,
    RANKS,
    REACTIONS,
)

# For each card, the fields a play of it takes (besides type and card).
PLAY_FIELDS = {
    "peaceful-death": set(),
    "death-by-misadventure": {"targets"},  # + castle for a castle's post
    "beneficial-assassination": {"castle"},
    "marauding-barbarians": {"castle"},
    "plague": {"castle", "targets"},
    "financial-scandal": {"castle"},
    "unlucky-fall": {"castle"},
    "mysterious-vanishings": {"castle"},
    **{name: {"castle"} for name in LEVEL_CARDS},
    "protracted-siege": {"castle"},
    "weak-administration": {"castle"},
    "time-of-peace": {"castle"},
    "incompetent-lord": {"castle"},
    "timely-repairs": {"take", "castle"},
    "state-of-disrepair": {"castle", "attribute"},
    "lazy-defence": {"castle"},
    "shrinking-domain": {"castle"},
    "losing-influence": {"castle"},
    "sudden-changes": set(),
    "unexpected-loss": {"seat"},
    "targeted-theft": {"seat"},
    "recycle": {"take"},
    "lucky-escape": set(),
    "not-that-bad": set(),
}
TARGET_COUNT = {"death-by-misadventure": 1, "plague": 2}
KEY_ORDER = ("type", "card", "castle", "targets", "attribute", "take", "seat")
# A card's fields a play may name besides those it needs.
_OPTIONAL = {"death-by-misadventure": {"castle"}}
_PLAY_HEAD = frozenset(("type", "card"))
_CARD_NAMES = frozenset(CARD_NAMES)  # (a look-up, not a walk through the list)


def _card(value, field="card") -> str:
    if not isinstance(value, str) or value not in _CARD_NAMES:
        raise MalformedMove(f"{value!r} is not an event card", field=field)
    return value


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _target(t) -> str:
    if isinstance(t, str) and (t in RANKS or t in LETTERS):
        return t
    raise MalformedMove(f"{t!r} is not a post (king, lord, seneschal, master) nor a squire's letter",
                        field="targets")


def _target_key(t: str):
    return (RANKS.index(t), "") if t in RANKS else (9, t)


def _letters(value, field: str) -> list[str]:
    if not isinstance(value, list) or len(value) != 3 or not all(v in LETTERS for v in value if isinstance(v, str)) \
            or not all(isinstance(v, str) for v in value) or len(set(value)) != 3:
        raise MalformedMove("name three different squires by their letters A-Z", field=field)
    return sorted(value)


def _normalize_play(move: dict) -> dict:
    card = _card(move.get("card"))
    need = PLAY_FIELDS[card]
    given = move.keys() - _PLAY_HEAD
    if given != need:  # (nearly every move names exactly the fields its card needs)
        unknown = given - need - _OPTIONAL.get(card, set())
        if unknown:
            raise MalformedMove(f"{card} takes no {', '.join(sorted(unknown))}", field=sorted(unknown)[0])
        missing = need - given
        if missing:
            raise MalformedMove(f"{card} needs {', '.join(sorted(missing))}", field=sorted(missing)[0])
    # the fields are checked, and written, in the canonical order (KEY_ORDER)
    out = {"type": "play", "card": card}
    if "castle" in move:
        if move["castle"] not in (1, 2, 3) or not _is_int(move["castle"]):
            raise MalformedMove("castles are 1, 2 and 3, left to right", field="castle")
        out["castle"] = move["castle"]
    if "targets" in move:
        targets = move["targets"]
        if not isinstance(targets, list) or len(targets) != TARGET_COUNT[card]:
            raise MalformedMove(f"{card} names {TARGET_COUNT[card]} man or men in targets", field="targets")
        targets = sorted((_target(t) for t in targets), key=_target_key)
        if len(set(targets)) != len(targets):
            raise MalformedMove("name each man once", field="targets")
        if card == "plague" and "king" in targets:
            raise MalformedMove("plague kills men of a castle; the King has none", field="targets")
        if card == "death-by-misadventure":
            castle_post = targets[0] in POSTS
            if castle_post != ("castle" in move):
                raise MalformedMove("a lord, seneschal or master is named with his castle; "
                                    "the King or a squire's letter without one", field="castle")
        out["targets"] = targets
    if "attribute" in move:
        if move["attribute"] not in ATTRIBUTES:
            raise MalformedMove("attribute is domain, prestige or defence", field="attribute")
        out["attribute"] = move["attribute"]
    if "take" in move:
        out["take"] = _card(move["take"], "take")
    if "seat" in move:
        if not _is_int(move["seat"]) or move["seat"] < 0:
            raise MalformedMove("seat is a seat number", field="seat")
        out["seat"] = move["seat"]
    return out


def normalize(move: dict) -> dict:
    kind = move.get("type")
    if kind == "play":
        return _normalize_play(move)
    if kind == "pass":
        if len(move) != 1:  # (its one key is "type")
            raise MalformedMove("pass takes no fields")
        return {"type": "pass"}
    if kind == "discard":
        if set(move) != {"type", "cards"} or not isinstance(move["cards"], list) or not move["cards"]:
            raise MalformedMove("discard takes a non-empty list of cards", field="cards")
        return {"type": "discard", "cards": sorted(_card(c, "cards") for c in move["cards"])}
    if kind == "react":
        if not set(move) <= {"type", "card", "save"} or move.get("card") not in REACTIONS:
            raise MalformedMove("react takes card (lucky-escape or not-that-bad) and optionally save",
                                field="card")
        out = {"type": "react", "card": move["card"]}
        if "save" in move:
            save = move["save"]
            ok = save in LETTERS if move["card"] == "lucky-escape" else save in LEVEL_CARDS
            if not isinstance(save, str) or not ok:
                raise MalformedMove("save names a man by his letter (lucky-escape) or a level card "
                                    "(not-that-bad)", field="save")
            out["save"] = save
        return out
    if kind == "choose":
        if set(move) != {"type", "squires"}:
            raise MalformedMove("choose takes squires: three letters", field="squires")
        return {"type": "choose", "squires": _letters(move["squires"], "squires")}
    if kind == "standing":
        if set(move) != {"type", "answer"} or move["answer"] not in ("pass", "ask"):
            raise MalformedMove("standing takes answer: pass or ask", field="answer")
        return {"type": "standing", "answer": move["answer"]}
    raise MalformedMove(f"unknown move type {kind!r}", field="type")


def parse_one(text: str) -> dict:
    words = text.split()
    if not words:
        raise MalformedMove("empty move", field="text")
    head, rest = words[0].lower(), words[1:]
    if head in CARD_NAMES:  # "plague 2 lord master" is a play
        head, rest = "play", words
    if head == "play":
        if not rest:
            raise MalformedMove("play which card?", field="text")
        move: dict = {"type": "play", "card": rest[0].lower()}
        it = iter(rest[1:])
        for w in it:
            lw = w.lower()
            if lw in ("take", "seat"):
                arg = next(it, None)
                if arg is None:
                    raise MalformedMove(f"{lw} what?", field="text")
                if lw == "take":
                    move["take"] = arg.lower()
                else:
                    if not arg.isdigit():
                        raise MalformedMove("seat is a number", field="text")
                    move["seat"] = int(arg)
            elif lw in ATTRIBUTES:
                move["attribute"] = lw
            elif w.isdigit():
                move["castle"] = int(w)
            elif lw in RANKS:
                move.setdefault("targets", []).append(lw)
            elif len(w) == 1 and w.upper() in LETTERS:
                move.setdefault("targets", []).append(w.upper())
            else:
                raise MalformedMove(f"cannot read {w!r} in {text!r}", field="text")
        return normalize(move)
    if head == "pass" and not rest:
        return {"type": "pass"}
    if head == "discard":
        return normalize({"type": "discard", "cards": [w.lower() for w in rest]})
    if head == "react" and rest:
        move = {"type": "react", "card": rest[0].lower()}
        if len(rest) == 2:
            move["save"] = rest[1].upper() if len(rest[1]) == 1 else rest[1].lower()
        elif len(rest) > 2:
            raise MalformedMove(f"cannot read {text!r}", field="text")
        return normalize(move)
    if head == "choose":
        return normalize({"type": "choose", "squires": [w.upper() for w in rest]})
    if head == "standing" and len(rest) == 1:
        return normalize({"type": "standing", "answer": rest[0].lower()})
    raise MalformedMove(f"cannot read {text!r}", field="text")


def format_move(move: dict) -> str:
    kind = move["type"]
    if kind == "play":
        parts = ["play", move["card"]]
        if "castle" in move:
            parts.append(str(move["castle"]))
        parts += move.get("targets", [])
        if "attribute" in move:
            parts.append(move["attribute"])
        if "take" in move:
            parts += ["take", move["take"]]
        if "seat" in move:
            parts += ["seat", str(move["seat"])]
        return " ".join(parts)
    if kind == "discard":
        return "discard " + " ".join(move["cards"])
    if kind == "react":
        return " ".join(["react", move["card"]] + ([move["save"]] if "save" in move else []))
    if kind == "choose":
        return "choose " + " ".join(move["squires"])
    if kind == "standing":
        return f"standing {move['answer']}"
    return kind
