"""A league's export: its log and every game's whole log in one JSON Lines text.

Each line is the canonical JSON (keys sorted, no spaces, UTF-8) of one object:

* ``{"event": EVENT, "log": "league"}``: an event of the league's log;
* ``{"event": EVENT, "game": GAME_ID, "log": "game"}``: an event of that game's log.

``EVENT`` is the event exactly as its own log exports it (a game's export line,
parsed). The league's lines come first, in order; then each game's, game by game
in the order the league paired them, each game's in order. A reader needs only
the lines of one log, in the order given, to have that log's export again: the
event's canonical JSON text is that log's export line.
"""

from __future__ import annotations

import json
import re

from referee.events import Event, canonical_text, parsed_canonical_text

LEAGUE = "league"
GAME = "game"


def export(league_events: list[Event], games: dict[str, list[Event]]) -> str:
    """The bundle: the league's events, then each game's (paired order first)."""
    lines = [canonical_text({"event": json.loads(ev.to_json()), "log": LEAGUE})
             for ev in league_events]
    paired = [t["game"] for ev in league_events if ev.type == "round-paired"
              for t in ev.payload["tables"]]
    for game_id in paired + sorted(set(games) - set(paired)):
        for ev in games.get(game_id, []):
            lines.append(canonical_text({"event": json.loads(ev.to_json()), "game": game_id,
                                         "log": GAME}))
    return "".join(line + "\n" for line in lines)


class BadBundle(Exception):
    def __init__(self, line: int, code: str, detail: str):
        super().__init__(detail)
        self.line, self.code, self.detail = line, code, detail


def is_bundle(text: str | bytes) -> bool:
    """Whether an export is a league's bundle (its first line names its log) rather
    than one game's log."""
    raw = text.decode("utf-8", "replace") if isinstance(text, bytes) else text
    first = raw.split("\n", 1)[0]
    try:
        d = json.loads(first)
    except (ValueError, RecursionError):  # no bundle line: the game's audit names what it is
        return False
    return isinstance(d, dict) and "log" in d and "event" in d


# The usual bundle line, around its event's text E: {"event":E,"log":"league"} or
# {"event":E,"game":"G","log":"game"} (keys sorted, as canonical JSON writes them),
# E from the first "{" to the last "}" before the tail, G of printable ASCII without
# a quote or a backslash (written as is). Matched whole, never searched for.
_USUAL = re.compile(r'\{"event":(\{[^\n]*\})(?:,"game":"([ !#-\[\]-~]+)","log":"game"|,"log":"league")\}(?:\n|\Z)')


def split(text: str | bytes) -> tuple[list[str], dict[str, list[str]], dict[str, int]]:
    """The league's export lines, each game's export lines (by game id, in the
    order first met) and the bundle line each game starts at; ``BadBundle`` names
    the first line that is not a bundle line in canonical form. Every line is
    read whole (``_long_way``) before any log is audited: the order of the league
    audit's docstring, for a bundle ``cut`` could not take or that was found wrong."""
    raw = text.encode() if isinstance(text, str) else text
    try:  # one decode for the whole bundle; line by line only to name a line that is not UTF-8
        lines = raw.decode("utf-8").split("\n")
    except UnicodeDecodeError:
        lines = raw.split(b"\n")
    if lines and not lines[-1]:
        lines.pop()
    league: list[str] = []
    games: dict[str, list[str]] = {}
    starts: dict[str, int] = {}
    for i, line in enumerate(lines, start=1):
        event, game = _long_way(i, line)
        if game is None:
            league.append(event)
        else:
            starts.setdefault(game, i)
            games.setdefault(game, []).append(event)
    return league, games, starts


def cut(text: str | bytes) -> tuple[list[str], dict[str, list[str]], dict[str, int]] | None:
    """``split``'s answer for the usual bundle, its events cut but not yet read:
    each is read and checked when its log is (``log_lines.read_lines``: the same
    checks, a log at a time, so what one game's reading allocates is freed before
    the next game's). None unless the text is UTF-8 and every line is the usual
    bundle line around an event (``_USUAL``): ``split`` then decides.

    The events are cut from the text itself, line after line, each line matched
    where the last one ended (never searched for, so a text that is no bundle
    costs one failed match). An event cut here is not yet known to be canonical:
    the bundle's line is canonical exactly when its event is the canonical JSON of
    an event, as its log's reading checks (the wrapper around it is the canonical
    one, its game's id written as is)."""
    if type(text) is not str:
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            return None
    league: list[str] = []
    games: dict[str, list[str]] = {}
    starts: dict[str, int] = {}
    match, at, size, i = _USUAL.match, 0, len(text), 0
    current = events = None  # the game of the last line, and its lines
    while at < size:
        line = match(text, at)
        if line is None:
            return None
        i += 1
        at = line.end()
        event, game = line.group(1, 2)
        if game is None:
            league.append(event)
        elif game == current:  # the usual bundle: a game's lines one after another
            events.append(event)
        else:
            current, events = game, games.get(game)
            if events is None:
                starts[game], events = i, games.setdefault(game, [])
            events.append(event)
    return league, games, starts


def _long_way(i: int, line: str | bytes) -> tuple[str, str | None]:
    """A bundle line read whole: its event's canonical text and its game (None for
    the league's), or ``BadBundle``."""
    try:
        if type(line) is bytes:
            line = line.decode("utf-8")
        d = json.loads(line)
    except (UnicodeDecodeError, ValueError):
        raise BadBundle(i, "malformed", f"bundle line {i} is not JSON in UTF-8") from None
    except RecursionError:  # thousands of "[" or "{": deeper than the parser goes
        raise BadBundle(i, "malformed", f"bundle line {i} nests too deeply to be a bundle line") from None
    if not isinstance(d, dict) or d.get("log") not in (LEAGUE, GAME) or set(d) != (
            {"event", "log"} if d.get("log") == LEAGUE else {"event", "game", "log"}):
        raise BadBundle(i, "malformed", f"bundle line {i} must be {{event, log: \"league\"}} "
                        "or {event, game, log: \"game\"}")
    if d["log"] == GAME and (not isinstance(d["game"], str) or not d["game"]):
        raise BadBundle(i, "malformed", f"bundle line {i} names no game")
    if not isinstance(d["event"], dict):
        raise BadBundle(i, "malformed", f"bundle line {i} holds no event")
    if canonical_text(d) != line:
        raise BadBundle(i, "not-canonical", f"bundle line {i} is not in canonical JSON form")
    return parsed_canonical_text(d["event"]), (d["game"] if d["log"] == GAME else None)
