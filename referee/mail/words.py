"""A notice as its reader gets it: the subject, the From line and the text of an
e-mail (a webhook carries the same text as ``message``).

Everything here is said with the players' names and in words: the game by its
title and its players, durations in minutes, hours and days, moments as a date
and a time of day in UTC. The text is written from the notice's body alone
(what its seat may see, referee/mail/outbox.py ``compose``) and the seat's own
page link (referee/mail/links.py), added as it is sent.
"""

from __future__ import annotations

import json
import os
from email.utils import formataddr, parseaddr

from referee.entries import printable
from referee.narration import duration, joined, moment, named

DISPLAY_NAME = "Castle Referee"  # the From line's name when REFEREE_MAIL_FROM gives none
# At most this many players named in a subject; the rest are counted
SUBJECT_PLAYERS = 4

# What each reason says, to a seat: (the subject's words, the text's first line)
TO_A_SEAT = {
    "start": ("the game begins", "The game has begun."),
    "turn": ("your turn", "It is your turn."),
    "trick": ("a trick is over", "A trick was taken."),
    "hand": ("a hand is over", "A hand is over."),
    "game-over": ("game over", "The game is over."),
    "reminder": ("reminder: your turn", "Reminder: it is your turn."),
    "timeout": ("your time ran out", "Your time to move ran out."),
    "left": ("a player left the game", "A player has left the game; it goes on."),
    "applied": ("your move is applied", "Your mailed move was applied."),
    "refused": ("your move is refused", "Your mailed move was refused."),
    "show": ("the game as it stands", "The game as it stands."),
    "help": ("how to play by e-mail", "How to play by e-mail."),
    "request-taken": ("your request is taken", "Your mailed request was taken."),
    "request-refused": ("your request is refused", "Your mailed request was refused."),
    "dispute": ("a dispute is open", "A player disputes the game: the clocks stand still until the organiser rules."),
    "ruling": ("the organiser has ruled", "The organiser has ruled on a dispute."),
    "vote": ("a vote to answer", "A player proposes a vote: every seat's yes carries it."),
}
TO_AN_ONLOOKER = {
    "turn": ("the game goes on", "The game goes on."),
    "game-over": ("game over", "The game is over."),
    "timeout": ("a seat ran out of time", "A seat ran out of time."),
    "left": ("a player left the game", "A player has left the game; it goes on."),
    "undelivered": ("a notice could not be delivered", "A notice could not be delivered."),
    "dispute": ("a dispute to rule on", "A player disputes the game: the clocks stand still until it is ruled."),
    "ruling": ("your ruling", "You have ruled on a dispute."),
}


def from_header() -> str:
    """The From line: REFEREE_MAIL_FROM, a bare address (then shown as "Castle
    Referee") or one with a display name (``"League Referee" <referee@...>``)."""
    name, address = parseaddr(os.environ.get("REFEREE_MAIL_FROM", "referee@localhost"))
    return formataddr((name or DISPLAY_NAME, address or "referee@localhost"))


def players(names: list[str]) -> str:
    if len(names) <= SUBJECT_PLAYERS:
        return joined(names)
    return ", ".join(names[:SUBJECT_PLAYERS - 1]) + f" and {len(names) - SUBJECT_PLAYERS + 1} more"


def game_line(body: dict) -> str:
    """"King of Danger with Ann, Bob and Cy"."""
    return f"{body.get('title') or body['game_type']} with {players(body['players'])}"


def _said(body: dict) -> tuple[str, str]:
    table = TO_AN_ONLOOKER if body.get("to", "seat") != "seat" else TO_A_SEAT
    return table.get(body["reason"], TO_A_SEAT.get(body["reason"], (body["reason"], body["reason"])))


def subject(body: dict) -> str:
    """"King of Danger with Ann, Bob and Cy: your turn (#12) [GAMEID]": the game
    for a person, the version a reply's ``#N`` names, the id the old form of
    reply reads from the subject. A league's standings are the league's news, not
    the game's: "Friday league: standings after round 2" (league_subject)."""
    if body.get("league"):
        return league_subject(body["league"])
    what = _said(body)[0]
    if body["reason"] == "game-over" and body.get("winners"):
        what += f": {joined(body['winners'])} {'wins' if len(body['winners']) == 1 else 'win'}"
    # one line whatever the names hold: a name stored before names were checked
    # (referee/entries.py) may hold a line break, which no header may
    return printable(f"{game_line(body)}: {what} (#{body['version']}) [{body['game']}]")


def headline(body: dict) -> str:
    line = _said(body)[1]
    result = body.get("result")
    if body["reason"] == "game-over" and isinstance(result, dict):
        reason = named(result.get("reason"), body["players"])
        line = f"The game is over: {reason}." if reason else line
        if body.get("winners"):
            line += f" {joined(body['winners'])} {'wins' if len(body['winners']) == 1 else 'win'}."
    return line


def turn_lines(body: dict) -> list[str]:
    """Under the position: the seat's legal moves (or whom the game waits for), its
    deadline and the banks, as a notice and a digest's section both show them."""
    lines: list[str] = []
    if body["legal"]:
        lines += ["", "Your legal moves:"] + [f"  {m}" for m in body["legal"]]
    elif body["to_act"] and body["status"] == "active":
        lines += ["", "Waiting for: " + joined(body["to_act"])]
    when = deadline_line(body)
    if when:
        lines += ["", when]
    banks = banks_line(body)
    if banks:
        lines.append(banks)
    return lines


def deadline_line(body: dict) -> str | None:
    """When the seat must move, in words, and how long that was from the notice."""
    at = body.get("deadline")
    if not at:
        return None
    from referee.clock import parse_at

    try:
        left = (parse_at(at) - parse_at(body["written"])).total_seconds() if body.get("written") else None
    except ValueError:
        left = None
    onlooker = body.get("to", "seat") != "seat"
    if body.get("overdue") or (left is not None and left <= 0):
        who = "A deadline" if onlooker else "Your deadline"
        return f"{who} passed at {moment(at)}" + ("." if onlooker else ": you may still move.")
    when = f"{moment(at)}" + (f" ({duration(left)} from this notice)" if left is not None else "")
    if onlooker:
        return f"Next deadline: {when}."
    return f"You have until {when} to move." if body["legal"] else None


def banks_line(body: dict) -> str | None:
    """Every seat's time bank under a bank clock, by name ("Time banks: Ann 9
    minutes, Bob 10 minutes"), as the banks stood when each seat's time last
    started."""
    banks = body.get("banks") or []
    names = body.get("players") or []
    said = [f"{names[b['seat']] if 0 <= b['seat'] < len(names) else 'seat ' + str(b['seat'])} "
            f"{duration(b['seconds'])}" for b in banks if isinstance(b, dict)]
    return f"Time banks: {', '.join(said)}." if said else None


def points(n: float) -> str:
    """A league's points as a person writes them: 2, 1.5, 0.67 (a third at a table of 4)."""
    return f"{n:.2f}".rstrip("0").rstrip(".") if n % 1 else f"{int(n)}"


def _league_winners(league: dict) -> list[str]:
    return [r["name"] for r in league["standings"] if r["rank"] == 1]


def league_subject(league: dict) -> str:
    """"Friday league: standings after round 2", "Friday league: final table, Ann wins"."""
    if league["final"]:
        best = _league_winners(league)
        what = "final table" + (f", {joined(best)} {'wins' if len(best) == 1 else 'share first place'}"
                                if best else "")
    else:
        what = f"standings after round {league['round']}"
    return printable(f"{league['name']}: {what}")


def standings_table(rows: list[dict]) -> list[str]:
    """The standings as a small table in plain text, its columns lined up for a
    fixed-width reader and still readable in a proportional one (a shared place
    shows its rank on every line it is shared by)."""
    names = [printable(r["name"]) + (" (withdrew)" if r.get("withdrawn") else "") for r in rows]
    width = max([len("Player"), *map(len, names)])
    lines = [f"  {'Place':<6}{'Player':<{width}}  Points"]
    for r, name in zip(rows, names, strict=True):
        lines.append(f"  {str(r['rank']) + '.':<6}{name:<{width}}  {points(r['points']):>6}")
    return lines


def league_text(body: dict, link: str | None = None) -> str:
    """A ``standings`` notice: the league's table after a round, or its final table
    and its winner, and the league's page (``link``, the public address)."""
    league = body["league"]
    lines = [f"{body['name']},", ""]
    if league["final"]:
        best = _league_winners(league)
        lines.append(f"{league['name']} is over." + (
            f" {joined(best)} {'wins' if len(best) == 1 else 'share first place'}." if best else ""))
        lines += ["", "The final table:"]
    else:
        lines += [f"Round {league['round']} of {league['name']} is over.", "", "The standings now:"]
    lines += standings_table(league["standings"])
    if not league["final"]:
        lines += ["", "Your next game, if you have one this round, comes in its own notice."]
    if link:
        lines += ["", "The league's page:", link]
    lines += ["", "-- ", f"{league['name']}, league {league['id']}"]
    return "\n".join(lines) + "\n"


def notice_text(body: dict, link: str | None = None) -> str:
    """The notice as plain text: to whom and what, what happened, the game as the
    seat sees it, its moves and deadline, how to answer, its page."""
    if body.get("league"):
        return league_text(body, link)
    onlooker = body.get("to", "seat") != "seat"
    greeting = {"organiser": "To the organiser", "spectators": "To the spectators"}.get(body.get("to"))
    lines = [f"{greeting or body['name']},", "", f"{game_line(body)}.", headline(body)]
    if body.get("note"):
        lines.append(body["note"])
    if body["happened"]:
        lines += ["", "Since the last notice:" if onlooker else "Since your last notice:"]
        lines += [f"  {h}" for h in body["happened"]]
    lines += ["", body["text"].rstrip()]
    lines += turn_lines(body)
    if body["legal"]:
        lines += ["", f"Reply with your moves on the first lines (add #{body['version']} to apply "
                      "them only at this version); 'show' resends this notice, 'help' explains."]
    if link:
        lines += ["", ("The game's page:" if onlooker else
                       "Your page (it plays as your seat: keep it to yourself):"), link]
    lines += ["", "-- ", f"{body.get('title') or body['game_type']}, game {body['game']}, "
                        f"version {body['version']}"]
    if body.get("receipt"):  # the referee's signed word for that version: `referee verify-receipt` reads it
        lines.append("receipt: " + json.dumps(body["receipt"], separators=(",", ":")))
    return "\n".join(lines) + "\n"
