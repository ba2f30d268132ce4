"""A daily digest as its player reads it: one plain-text mail with a section per
game waiting on them, each written as that game's turn notice is
(referee/mail/words.py), from what that seat may see only, headed by the line a
reply names the game by (``[GAMEID]``)."""

from __future__ import annotations

import datetime
import json

from referee.entries import printable
from referee.mail.words import game_line, turn_lines


def when_said(day: str, hour: int) -> str:
    """"Friday 27 November 2026, 08:00 your time"."""
    d = datetime.date.fromisoformat(day)
    return f"{d:%A} {d.day} {d:%B %Y}, {hour:02d}:00 your time"


def subject(name: str, games: list[dict], day: str) -> str:
    """"Your games waiting on you: 3 (Friday 27 November 2026)"."""
    d = datetime.date.fromisoformat(day)
    count = len(games)
    return printable(f"{name}, your daily digest: {count} game{'s' if count != 1 else ''} "
                     f"waiting on you ({d:%A} {d.day} {d:%B %Y})")


def section(n: int, body: dict, reply_to: str, link: str | None) -> list[str]:
    """One game: what happened since the seat's last notice, the game as it sees
    it, its legal moves, its deadline, its own reply address and page."""
    lines = [f"== {n}. [{body['game']}] {game_line(body)} (#{body['version']}) =="]
    if body.get("note"):
        lines.append(body["note"])
    if body["happened"]:
        lines += ["Since your last notice:"] + [f"  {h}" for h in body["happened"]]
        lines.append("")
    lines.append(body["text"].rstrip())
    lines += turn_lines(body)
    lines += ["", f"A reply for this game alone: {reply_to}"]
    if link:
        lines += ["Your page (it plays as your seat: keep it to yourself):", link]
    if body.get("receipt"):  # the referee's signed word for that version (`referee verify-receipt`)
        lines.append("receipt: " + json.dumps(body["receipt"], separators=(",", ":")))
    return lines


def digest_text(name: str, day: str, hour: int, sections: list[list[str]], first_game: str) -> str:
    """The whole mail: the greeting, how to reply for several games at once, the
    sections."""
    count = len(sections)
    lines = [f"{name},", "",
             f"{count} game{'s wait' if count != 1 else ' waits'} on your move today "
             f"({when_said(day, hour)}).", "",
             "Reply to this mail with moves for any of them: a line naming the game as its "
             f"section does ([{first_game}]) with that game's moves after it, on the same line "
             "or the lines below, then the next game's line. Add #N (the number after the game's "
             "name) on a line of a section to apply its moves only at that version. Each game's "
             "moves are applied or refused on their own, and each game answers in a mail of its own.",
             ""]
    for lines_of_game in sections:
        lines += lines_of_game + [""]
    lines += ["-- ", "Your daily digest: you chose one mail a day (notices: daily). Reminders before "
              "a deadline, results and league rounds still come on their own."]
    return "\n".join(lines) + "\n"
