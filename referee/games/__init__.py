"""The games the referee knows, by their contract id.

Engines are imported on first use so that one game's import error cannot take
the others (or the service) down, and each engine stays its own module.
"""

from __future__ import annotations

import importlib

from referee.games.base import BadOptions, Engine

# contract id -> "module:EngineClass"
ENGINES = {
    "king-of-danger": "referee.games.king_of_danger:KingOfDanger",
    "castle-danger": "referee.games.castle_danger:CastleDanger",
    "king-of-the-castle": "referee.games.king_of_the_castle:KingOfTheCastle",
    "kings-keys": "referee.games.kings_keys:KingsKeys",
}

_loaded: dict[str, Engine] = {}


def engine(name: str) -> Engine:
    if name not in ENGINES:
        raise BadOptions(f"unknown game {name!r}; games: {', '.join(sorted(ENGINES))}", field="game")
    if name not in _loaded:
        module, cls = ENGINES[name].split(":")
        _loaded[name] = getattr(importlib.import_module(module), cls)()
    return _loaded[name]


def available() -> list[str]:
    """The games whose engine imports (an engine still being written is left out)."""
    out = []
    for name in ENGINES:
        try:
            engine(name)
        except ImportError:
            continue
        out.append(name)
    return out
