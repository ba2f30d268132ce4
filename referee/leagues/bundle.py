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
    except ValueError:
        return False
    return isinstance(d, dict) and "log" in d and "event" in d


def split(text: str | bytes) -> tuple[list[str], dict[str, list[str]], dict[str, int]]:
    """The league's export lines, each game's export lines (by game id, in the
    order first met) and the bundle line each game starts at; ``BadBundle`` names
    the first line that is not a bundle line in canonical form."""
    raw = text.encode() if isinstance(text, str) else text
    lines = raw.split(b"\n")
    if lines and not lines[-1]:
        lines.pop()
    league: list[str] = []
    games: dict[str, list[str]] = {}
    starts: dict[str, int] = {}
    for i, b in enumerate(lines, start=1):
        try:
            line = b.decode("utf-8")
            d = json.loads(line)
        except (UnicodeDecodeError, ValueError):
            raise BadBundle(i, "malformed", f"bundle line {i} is not JSON in UTF-8") from None
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
        event = parsed_canonical_text(d["event"])
        if d["log"] == LEAGUE:
            league.append(event)
        else:
            starts.setdefault(d["game"], i)
            games.setdefault(d["game"], []).append(event)
    return league, games, starts
