"""What the service's parts share: its limits, the table's format, and the two
small functions every write needs (the deadline index's next entry, the
deadlines a reader is shown)."""

from __future__ import annotations

from referee import clock as clockmod
from referee.store.base import KEEP
from referee.table import Table

DECK_OPTIONS = ("deck", "personality_deck", "event_deck")
# The most moves one request may carry: more than any real turn (a Castle Danger
# turn is at most 27 moves plus an add, reveals and its end), far fewer than would
# let one request block a game while it writes thousands of events.
MAX_MOVES_PER_REQUEST = 64
# Versions, event numbers and positions are counted in int32 here and in every
# store; a larger number is a client's error, refused before any store sees it.
MAX_VERSION = 2**31 - 1
# A cached state is written beside the log whenever a write crosses a multiple of
# this many events (and for every write while a game is short), so a process
# that starts cold applies at most this many events on top of it.
SNAPSHOT_EVERY = 16
# What a cached table holds: bumped when Table gains a field a replay would fill
# in differently from its default (2: the clock's timers, bots and owed moves;
# 3: the states' ``revealed``; 4: the seats' replacements, for naming who held a
# seat when; 5: whether the game is one of players; 6: the states' ``left``, the
# seats that left a game that plays on; 7: the seats' time banks; 8: votes,
# disputes and rulings).
TABLE_FORMAT = 8


def deadlines(table: Table, seat: int | None) -> dict:
    """``deadlines`` of the seats to act and ``deadline``: the seat's own when a
    seat asks, else the earliest (None without a clock or nobody to act); ``banks``
    under a bank clock (empty under any other)."""
    out = clockmod.deadlines(table)
    mine = [d["deadline"] for d in out if seat is None or d["seat"] == seat]
    in_force = None if table.clock is None else {**table.clock, "paused": table.paused or table.held}
    return {"deadline": min(mine) if mine else None, "deadlines": out, "clock": in_force,
            "banks": clockmod.banks(table)}


def timer_after(table: Table, fork: Table):
    """The deadline index's entry to write with an append taking ``table`` to
    ``fork``: the next reminder or deadline (None: none), or KEEP for a game that
    has never had a clock (nothing to write, nothing to clear)."""
    if table.clock is None and fork.clock is None:
        return KEEP
    return clockmod.next_timer(fork)


