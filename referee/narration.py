"""A game's recent events in words, as a reader may see them.

Text views, notices and pages end with what just happened: the last player's
move and what the referee did after it ("Bob plays W6", "Bob wins trick 2..."),
each event redacted for the reader first, then told with names (``narrate``), so
the words can say no more than the reader may see.
"""

from __future__ import annotations

from referee.events import Event

LOOK_BACK = 12  # events read to find the last move: a move and its consequences


def last_move(engine, events: list[Event], names: list[str], redact) -> list[str]:
    """Lines for the last seat's move among ``events`` (the log's tail) and what
    followed it; the last event alone if no seat moved there. ``redact(event)``
    gives the payload as the reader may see it."""
    if not events:
        return []
    start = len(events) - 1
    for i in range(len(events) - 1, -1, -1):
        if isinstance(events[i].actor, int) and not isinstance(events[i].actor, bool):
            start = i
            break
    # a move's events share its seat and its moment: start at the move's first
    while (start > 0 and events[start - 1].actor == events[start].actor
           and events[start - 1].at == events[start].at):
        start -= 1
    lines = []
    for ev in events[start:]:
        shown = Event(ev.seq, ev.type, ev.actor, ev.at, redact(ev), ev.prev, "", ev.hash)
        lines.append(f"[{ev.seq}] {engine.narrate(shown, names)}")
    return lines


def with_last_move(text: str, lines: list[str]) -> str:
    if not lines:
        return text
    return text.rstrip("\n") + "\n\nLast: " + "\n      ".join(lines) + "\n"
