"""Bots: seats the referee plays itself, and the move a timed-out seat is given.

A bot decides from exactly what its seat may know: the seat's view
(``engine.view(state, seat)``) and its legal moves (``engine.legal``, which
depends only on what the seat sees), plus the referee's seeded randomness
(``referee.rng.Rng``), so an audit that knows the seed re-derives every bot move.

Two kinds:

* ``random``: a uniformly random legal move, never resigning (nor offering a
  draw or a take-back; asked for one, it declines).
* ``basic``: a short strategy per game, one module per game in this package
  (``referee/bots/<game>.py``, each a ``choose(view, legal, rng)`` function).

The one call the table makes, for a bot's seat and for a timed-out seat owed a
move (the clock's ``on_timeout: autoplay``), once referee/system.py has handed
this module to it (``referee.table.use_bots``)::

    choose(kind, table, seat, rng) -> move dict
"""

from __future__ import annotations

import importlib

from referee.errors import MalformedMove

KINDS = ("random", "basic")

_MODULES = {
    "king-of-danger": "king_of_danger",
    "castle-danger": "castle_danger",
    "king-of-the-castle": "king_of_the_castle",
    "kings-keys": "kings_keys",
}


def check_bot(value, field: str) -> str | None:
    """A player's ``bot`` key at creation (registered with referee/entries.py)."""
    if value is None:
        return None
    if value not in KINDS:
        raise MalformedMove(f"bot must be one of {', '.join(KINDS)}", field=field)
    return value


class NoMove(Exception):
    """The seat has nothing to do now (not its turn, or the game is over)."""


# Moves no bot makes: it never gives up, never asks a person for a draw or a
# take-back, and answers such a question with no (so, facing one, it declines).
# Leaving them out also keeps every bot's choice in logs written before they
# existed exactly as it was, which the audit re-derives.
NEVER = ("resign", "offer-draw", "take-back", "accept")


def candidates(engine, state, seat: int) -> list[dict]:
    """The legal moves a bot may pick from: every legal move but those in ``NEVER``
    and those that lose the game at once (``Engine.self_defeating``: resigning by
    other means, such as a Castle Danger shot at one's own King)."""
    return [m for m in engine.legal(state, seat)
            if m["type"] not in NEVER and not engine.self_defeating(state, seat, m)]


def choose_from(kind: str, game: str, view: dict, legal: list[dict], rng) -> dict:
    """The bot's move given only the seat's view and its legal moves."""
    if kind not in KINDS:
        raise ValueError(f"unknown bot kind {kind!r}; one of {', '.join(KINDS)}")
    if not legal:
        raise NoMove("no legal move for this seat now")
    if kind == "random":
        return rng.choice(legal)
    module = importlib.import_module(f"referee.bots.{_MODULES[game]}")
    return module.choose(view, legal, rng)


def choose(kind: str, table, seat: int, rng) -> dict:
    """The move a ``kind`` bot makes for ``seat`` at ``table`` now.

    ``rng`` is a ``referee.rng.Rng`` for the event the move will be logged as
    (``Rng(seed, seq)``), so the same log and seed give the same move. Raises
    ``NoMove`` when the seat has no move to make. Reads nothing of the state
    beyond the seat's view and legal moves."""
    engine = table.engine
    view = engine.view(table.state, seat)
    return choose_from(kind, engine.name, view, candidates(engine, table.state, seat), rng)
