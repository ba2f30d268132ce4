"""Moves as JSON and as text (``add B; c1-b1; build b2; demolish c2; fire c3 c7;
end``; Hidden Danger adds ``smuggle C`` and ``reveal d2``; by consent: ``offer
draw``, ``take back``, answered by ``accept`` or ``decline``)."""

from __future__ import annotations

import re

from referee.games.base import MalformedMove
from referee.games.castle_danger import board

# type -> its fields besides "type", each a square or a piece letter
FIELDS = {
    "add": ("piece",),
    "smuggle": ("piece",),
    "move": ("from", "to"),
    "build": ("at",),
    "demolish": ("at",),
    "fire": ("from", "at"),
    "reveal": ("at",),
    "end": (),
    "offer-draw": (),
    "take-back": (),
    "accept": (),
    "decline": (),
}
# The moves that ask the opponent or answer it, and their text.
CONSENT = {"offer-draw": "offer draw", "take-back": "take back", "accept": "accept",
           "decline": "decline"}
PIECE_FIELDS = ("piece",)


def normalize(move: dict) -> dict:
    kind = move.get("type")
    if kind not in FIELDS:
        raise MalformedMove(f"unknown move type {kind!r}; Castle Danger moves: "
                            f"{', '.join(FIELDS)}, resign", field="type")
    fields = FIELDS[kind]
    if len(move) == len(fields) + 1:
        # the usual move, as the log records it: its fields, nothing else, each in
        # normal form already (the count of keys and a value for each field name
        # the keys exactly: "type" is one of them), one look-up a field
        out = {"type": kind}
        for name, written in _SHAPES[kind]:
            value = move.get(name)
            if type(value) is not str or value not in written:
                break
            out[name] = value
        else:
            return out
    # exactly "type" and the fields (the usual move, as the log records it): no extras
    if len(move) != len(fields) + 1 or not all(name in move for name in fields):
        extra = sorted(set(move) - {"type", *fields})
        if extra:
            raise MalformedMove(f"{kind} takes only {', '.join(fields) or 'no fields'}; "
                                f"unexpected {', '.join(extra)}", field=extra[0])
    out = {"type": kind}
    for name in fields:
        value = move.get(name)
        if type(value) is str and value in _WRITTEN[name]:  # already in normal form
            out[name] = value
            continue
        if not isinstance(value, str):
            raise MalformedMove(f"{kind} needs {name!r}", field=name)
        if name in PIECE_FIELDS:
            value = value.strip().upper()
            if value not in board.KINDS:
                raise MalformedMove(f"{name} is one of K, Z, B, C, not {move[name]!r}", field=name)
        else:
            value = value.strip().lower()
            if not board.is_square(value):
                raise MalformedMove(f"{name} must be a square a1-g9, not {move[name]!r}", field=name)
        out[name] = value
    return out


# The values a field holds already in their normal form (what the loop in
# ``normalize`` would leave unchanged): checked by one look-up.
_SQUARES = frozenset(board.all_squares())
_WRITTEN = {name: (frozenset(board.KINDS) if name in PIECE_FIELDS else _SQUARES)
            for fields in FIELDS.values() for name in fields}
_SHAPES = {kind: tuple((name, _WRITTEN[name]) for name in fields) for kind, fields in FIELDS.items()}


_SQ = r"([a-gA-G][1-9])"
_PATTERNS = [
    (re.compile(rf"^(?:move\s+)?{_SQ}\s*(?:-|\s)\s*{_SQ}$", re.I), "move", ("from", "to")),
    (re.compile(rf"^fire\s+{_SQ}\s*(?:-|\s)\s*{_SQ}$", re.I), "fire", ("from", "at")),
    (re.compile(rf"^(build|demolish|reveal)\s+{_SQ}$", re.I), None, ("at",)),
    (re.compile(r"^(add|smuggle)\s+([A-Za-z])$", re.I), None, ("piece",)),
    (re.compile(r"^(end)$", re.I), None, ()),
    (re.compile(r"^offer[\s-]*draw$", re.I), "offer-draw", ()),
    (re.compile(r"^take[\s-]*back$", re.I), "take-back", ()),
    (re.compile(r"^(accept|decline)$", re.I), None, ()),
]


def parse_one(text: str) -> dict:
    text = text.strip()
    for pattern, kind, names in _PATTERNS:
        m = pattern.match(text)
        if not m:
            continue
        groups = list(m.groups())
        if kind is None:
            kind = groups.pop(0).lower()
        return normalize({"type": kind, **dict(zip(names, groups, strict=True))})
    raise MalformedMove(f"cannot read {text!r}; e.g. add B, c1-b1, build b2, demolish c2, "
                        "fire c3 c7, smuggle C, reveal d2, end, offer draw, take back, accept, "
                        "decline", field="text")


def format_move(move: dict) -> str:
    kind = move["type"]
    if kind == "move":
        return f"{move['from']}-{move['to']}"
    if kind == "fire":
        return f"fire {move['from']} {move['at']}"
    if kind == "end":
        return "end"
    if kind in CONSENT:
        return CONSENT[kind]
    return f"{kind} {move[FIELDS[kind][0]]}"
