"""A game's recent events in words, as a reader may see them.

Text views, notices and pages end with what just happened: the last player's
move and what the referee did after it ("Bob plays W6", "Bob wins trick 2..."),
each event redacted for the reader first, then told with names (``narrate``), so
the words can say no more than the reader may see.
"""

from __future__ import annotations

from referee.events import Event

LOOK_BACK = 12  # events read to find the last move: a move and its consequences


class Holders:
    """Who held each seat at each moment of a game: the names it was created with,
    then each ``seat-replaced`` event's new name from that event on. A line about
    an event names the players who held the seats when it happened: a replaced
    player's moves stay theirs, and the replacement itself names the player who
    left ("Bob is now played by Dan"). Every teller of events (the view's last
    move, the log in words, notices, ``referee replay``) asks this one."""

    def __init__(self, names: list[str], replaced: tuple = ()):
        self.names = list(names)
        self.replaced = tuple(replaced)  # (seq, seat, new name), in log order

    def before(self, seq: int) -> list[str]:
        """The names just before event ``seq`` (as that event is told)."""
        names = list(self.names)
        for at, seat, name in self.replaced:
            if at >= seq:
                break
            if isinstance(seat, int) and 0 <= seat < len(names) and isinstance(name, str):
                names[seat] = name
        return names

    def narrate(self, engine, event: Event) -> str:
        return engine.narrate(event, self.before(event.seq))


def holders(table) -> Holders:
    """The seats' holders of a game in memory (``referee.table.Table``)."""
    return Holders(table.state.names, table.replaced)


def last_move(engine, events: list[Event], names: Holders | list[str], redact) -> list[str]:
    """Lines for the last seat's move among ``events`` (the log's tail) and what
    followed it; the last event alone if no seat moved there. ``redact(event)``
    gives the payload as the reader may see it; ``names`` says who held the seats
    when (a plain list: the same names all along)."""
    if not events:
        return []
    if not isinstance(names, Holders):
        names = Holders(names)
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
        lines.append(f"[{ev.seq}] {names.narrate(engine, shown)}")
    return lines


def with_last_move(text: str, lines: list[str]) -> str:
    if not lines:
        return text
    return text.rstrip("\n") + "\n\nLast: " + "\n      ".join(lines) + "\n"


def _seconds(n: int) -> str:
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if n >= size and n % size == 0:
            return f"{n // size} {unit}{'s' if n // size != 1 else ''}"
    return f"{n} seconds"


def _and(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


SQUIRES = {"random": "squires at random", "choose": "squires chosen", "letters": "squires by letter"}
# What the first line says of each game's options (the others go unsaid).
SETTINGS = {
    "king-of-danger": lambda o: [f"target {o['target']}"] if "target" in o else [],
    "castle-danger": lambda o: ([f"{o['edition']} edition"] if o.get("edition") else [])
    + (["Hidden Danger"] if o.get("variant") == "hidden-danger" else [])
    + ([f"a draw after {o['turn_limit']} turns each"] if o.get("turn_limit") else []),
    "king-of-the-castle": lambda o: ([SQUIRES[o["squires"]]] if o.get("squires") in SQUIRES else [])
    + (["personalities in order"] if o.get("personality_order") == "alphabetical" else []),
    "kings-keys": lambda o: ["wild cards"] if o.get("wild_cards") else [],
}


def _created(p: dict, title: str | None = None) -> str:
    """The game's first event: who plays what ("The game starts: Ann, Bob and Cy
    at King of Danger (target 31)"), from its (redacted) payload and the game's
    title (its engine's, handed in: this module knows no engine)."""
    title = title or str(p.get("game"))
    seats = [s for s in p.get("seats") or [] if isinstance(s, dict)]
    players = [str(s.get("name")) + (" (a bot)" if s.get("bot") else "") for s in seats]
    options = p.get("options") if isinstance(p.get("options"), dict) else {}
    setting = SETTINGS.get(p.get("game"), lambda o: [])(options)
    clock = options.get("clock")
    if isinstance(clock, dict) and clock.get("move_seconds"):
        setting.append(f"{_seconds(clock['move_seconds'])} a move")
    return (f"The game starts: {_and(players) if players else 'no players'} at {title}"
            + (f" ({', '.join(setting)})" if setting else ""))


def common(event: Event, title: str | None = None) -> str | None:
    """Words for the referee's own events every game shares (the start, clock,
    seats, the end by abort or time, the seed), seats by number; None for any other event,
    which its engine describes."""
    if event.actor != "referee" or not isinstance(event.payload, dict):
        return None
    p = event.payload
    if event.type == "game-created":
        return _created(p, title)
    if event.type == "seat-timed-out":
        then = {"remind": "the organiser is told", "autoplay": "the referee moves for them",
                "forfeit": "they lose the game"}.get(p.get("on_timeout"), "")
        return f"seat {p.get('seat')} ran out of time ({p.get('deadline')}): {then}"
    if event.type == "forfeited":
        return f"seat {p.get('seat')} loses on time"
    if event.type == "seat-replaced":
        return f"seat {p.get('seat')} is now played by {p.get('name')}"
    if event.type == "clock-changed":
        clock = p.get("clock")
        if not clock:
            return "the organiser removes the clock"
        if p.get("paused"):
            return "the organiser pauses the clock"
        return f"the clock is set to {_seconds(clock.get('move_seconds', 0))} a move"
    if event.type == "game-aborted":
        return f"the organiser ends the game: {p.get('reason', '')}".rstrip(": ")
    if event.type == "seed-revealed":
        return "the referee reveals the seed: every deal can now be checked"
    return None
