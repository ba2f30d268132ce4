"""A game's recent events in words, as a reader may see them.

Text views, notices and pages end with what just happened: the last player's
move and what the referee did after it ("Bob plays W6", "Bob wins trick 2..."),
each event redacted for the reader first, then told with names (``narrate``), so
the words can say no more than the reader may see.
"""

from __future__ import annotations

import re

from referee.disputes.words import words as ledger_words
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


def left_line(left, names: list[str]) -> list[str]:
    """The text view's line naming the seats that left a game that plays on (none
    when nobody left), in the order they left."""
    if not left:
        return []
    return [f"Left the game (the referee plays their seats): {joined([names[s] for s in left])}"]


def with_last_move(text: str, lines: list[str]) -> str:
    if not lines:
        return text
    return text.rstrip("\n") + "\n\nLast: " + "\n      ".join(lines) + "\n"


# "seat 2", and "seats 0, 1 and 3" (a draw's list): what ``named`` gives names to
SEAT = re.compile(r"\b([Ss])eat (\d+)\b")
SEATS = re.compile(r"\b[Ss]eats (\d+(?:(?:, | and )\d+)+)\b")


def joined(words: list[str]) -> str:
    """"Ann", "Ann and Bob", "Ann, Bob and Cy"."""
    words = list(words)
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def named(text, names: list[str]):
    """``text`` with the players' names for seat numbers ("seat 2 resigned" ->
    "Cy resigned", "seats 0 and 1 tie" -> "Ann and Bob tie"). The log keeps seat
    numbers (a name may change when a seat is handed on; the log never does):
    names are put in where a person reads it. Anything but a string is returned
    as it is."""
    if not isinstance(text, str) or not names:
        return text

    def one(n: str, fallback: str) -> str:
        i = int(n)
        return names[i] if 0 <= i < len(names) else fallback

    text = SEATS.sub(lambda m: joined([one(n, f"seat {n}") for n in re.split(r", | and ", m.group(1))]), text)
    return SEAT.sub(lambda m: one(m.group(2), m.group(0)), text)


def named_result(result, names: list[str]):
    """A game's ``result`` with its ``reason`` in names (winners stay seat numbers)."""
    if not isinstance(result, dict) or "reason" not in result:
        return result
    return {**result, "reason": named(result["reason"], names)}


UNITS = (("day", 86400), ("hour", 3600), ("minute", 60), ("second", 1))


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def duration(seconds: float) -> str:
    """A length of time in words, its two largest units, rounded down: "1 second",
    "9 minutes 59 seconds", "2 hours 5 minutes", "1 day 6 hours". Seconds are said
    only under an hour (beside hours they are noise)."""
    n = max(0, int(seconds))
    units = UNITS[:3] if n >= 3600 else UNITS
    for i, (unit, size) in enumerate(units):
        if n >= size or unit == "second":
            out = plural(n // size, unit)
            if i + 1 < len(units) and (n % size) // units[i + 1][1]:
                out += " " + plural((n % size) // units[i + 1][1], units[i + 1][0])
            return out
    return plural(n, "second")  # (not reached: seconds take every n)


MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December")
DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def moment(at) -> str:
    """A moment of the log (UTC, ISO 8601) as a person reads it: "Sunday 1 March
    2026, 11:00 UTC" (seconds only when there are some). Anything else unchanged."""
    from datetime import UTC, datetime

    if not isinstance(at, str):
        return str(at)
    try:
        t = datetime.fromisoformat(at.replace("Z", "+00:00")).astimezone(UTC)
    except ValueError:
        return at
    clock = f"{t:%H:%M}" + (f":{t:%S}" if t.second else "")
    return f"{DAYS[t.weekday()]} {t.day} {MONTHS[t.month - 1]} {t.year}, {clock} UTC"


SQUIRES = {"random": "squires at random", "choose": "squires chosen", "letters": "squires by letter"}
# What the first line says of each game's own options (the others go unsaid: their
# defaults, decks, the seed), in words a player uses.
SETTINGS = {
    "king-of-danger": lambda o, names: [f"target {o['target']}"] if "target" in o else [],
    "castle-danger": lambda o, names: ([f"{o['edition']} edition"] if o.get("edition") else [])
    + (["Hidden Danger"] if o.get("variant") == "hidden-danger" else [])
    + ([f"a draw after {o['turn_limit']} turns each"] if o.get("turn_limit") else []),
    "king-of-the-castle": lambda o, names: ([SQUIRES[o["squires"]]] if o.get("squires") in SQUIRES else [])
    + (["personalities in order"] if o.get("personality_order") == "alphabetical" else []),
    "kings-keys": lambda o, names: ["wild cards"] if o.get("wild_cards") else [],
}
# Options that name a seat: said with the player's name when not seat 0 (the default)
SEAT_OPTIONS = ("first_dealer", "first_player")
# House rules (docs/api.md): said only when off their default (the first reading)
HOUSE_DEFAULTS = {"follow_suit": "hand", "fire_blocks_building": True, "own_side_shots": True,
                  "reactions": "one-per-seat", "react_to_own_card": False, "wild_stands_for": "any",
                  "trackers": "carry", "bonus_ties": "leftmost", "match": "compulsory",
                  "on_resign": "play-on"}


def _options(game, options: dict, names: list[str]) -> str:
    """A game's options in words for its first line: "target 31", "wild cards", a
    seat named, a house rule off its default, a clock "1 day a move"; decks and
    hidden values left out."""
    said = list(SETTINGS.get(game, lambda o, n: [])(options, names))
    for key in SEAT_OPTIONS:
        value = options.get(key)
        if isinstance(value, int) and 0 < value < len(names):
            said.append(f"{key.replace('_', ' ')} {names[value]}")
    for key, default in HOUSE_DEFAULTS.items():
        if key in options and options[key] != default:
            value = options[key]
            said.append("house rule: " + key.replace("_", " ") + (
                "" if value is True else " not" if value is False else f" {value}"))
    if isinstance(options.get("clock"), dict):
        said.append(_clock(options["clock"]))
    return ", ".join(said)


def _clock(clock: dict) -> str:
    if clock.get("kind") == "bank":
        said = f"a time bank of {duration(clock.get('initial_seconds', 0))}"
        if clock.get("increment_seconds"):
            said += f", {duration(clock['increment_seconds'])} more a turn"
        if clock.get("max_seconds", 0) > clock.get("initial_seconds", 0):
            said += f" up to {duration(clock['max_seconds'])}"
    else:
        said = f"{duration(clock.get('move_seconds', 0))} a move"
    if clock.get("remind_seconds"):
        said += f", a reminder {duration(clock['remind_seconds'])} before"
    rule = clock.get("on_timeout")
    if isinstance(rule, dict):
        said += f", {rule.get('excused')} missed turns excused a seat (the referee plays them)"
        rule = rule.get("then")
    then = {"autoplay": "the referee moves for a seat out of time",
            "forfeit": "a seat out of time loses"}.get(rule)
    return said + (f", {then}" if then else "")


def created(p: dict, title: str | None = None) -> str:
    """The first event in words: "The game starts: Ann, Bob and Cy at King of Danger
    (target 31)"; ``title`` the game's (its id when not given)."""
    title = title or str(p.get("game"))
    seats = [s for s in p.get("seats") or [] if isinstance(s, dict)]
    names = [str(s.get("name", "?")) for s in seats]
    said = [n + (f" (a {s['bot']} bot)" if s.get("bot") else "") for n, s in zip(names, seats, strict=False)]
    options = _options(p.get("game"), p.get("options") if isinstance(p.get("options"), dict) else {}, names)
    text = f"The game starts: {joined(said)} at {title}"
    if options:
        text += f" ({options})"
    if p.get("stacked"):
        text += "; stacked: dealt from a seed or a deck order given at creation"
    return text


def left_words(event: Event) -> str | None:
    """Words for a seat leaving a game that plays on (house rule ``on_resign``): its
    ``resigned``, or the referee's ``forfeited`` for a seat out of time; None for any
    other event, a resignation that ended the game among them."""
    p = event.payload
    if event.type not in ("resigned", "forfeited") or not isinstance(p, dict):
        return None
    result = p.get("result")
    if result is not None and not (isinstance(result, dict) and "left" in result):
        return None
    how = "resigns" if event.type == "resigned" else "ran out of time"
    # when, said: a notice or a page read later still tells the moment the seat left
    when = f" ({moment(event.at)})" if isinstance(event.at, str) and event.at else ""
    text = f"seat {p.get('seat')} {how} and leaves the game{when}"
    if result is None:
        return text + ": the referee plays the seat from now on, and it can no longer win"
    return f"{text}; {result.get('reason')} and wins"


def common(event: Event, title: str | None = None) -> str | None:
    """Words for the referee's own events every game shares (the start, the clock,
    seats, the end by abort or time, the seed), seats by number; None for any other
    event, which its engine describes. ``title``: the game's (its engine's, handed
    in: this module knows no engine)."""
    said = ledger_words(event)  # votes, disputes and rulings: the seats' acts as the referee's
    if said is not None:
        return said
    if event.actor != "referee" or not isinstance(event.payload, dict):
        return None
    p = event.payload
    if event.type == "game-created":
        return created(p, title)
    if event.type == "seat-timed-out":
        then = {"remind": "the game waits for them, and the organiser decides what follows",
                "autoplay": "the referee moves for them",
                "forfeit": "they lose the game",
                "turn": f"the referee plays their turn (missed turn {p.get('excused')} excused)",
                }.get(p.get("on_timeout"), "")
        return f"seat {p.get('seat')} ran out of time (deadline {moment(p.get('deadline'))}): {then}"
    if event.type == "forfeited":
        return left_words(event) or f"seat {p.get('seat')} loses on time"
    if event.type == "seat-replaced":
        return f"seat {p.get('seat')} is now played by {p.get('name')}"
    if event.type == "clock-changed":
        clock = p.get("clock")
        if not clock:
            return "the organiser removes the clock"
        if p.get("paused"):
            return "the organiser pauses the clock"
        return f"the clock is set to {_clock(clock)}"
    if event.type == "seat-calendar":
        if p.get("weekends_off"):
            return f"seat {p.get('seat')}'s clock stops at weekends ({p.get('timezone')} time)"
        return f"seat {p.get('seat')}'s clock runs at weekends"
    if event.type == "clock-paused":
        why = "draws a day of vacation" if p.get("reason") == "auto-vacation" else "is away"
        return f"seat {p.get('seat')} {why}: their clock stops until {moment(p.get('until'))}"
    if event.type == "clock-resumed":
        return f"seat {p.get('seat')}'s clock runs again"
    if event.type == "game-aborted":
        return f"the organiser ends the game: {p.get('reason', '')}".rstrip(": ")
    if event.type == "seed-revealed":
        return "the referee reveals the seed: every deal can now be checked"
    return None
