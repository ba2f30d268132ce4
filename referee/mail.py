"""Moves by e-mail: read a raw RFC 822 message into (game, token, text, message id).

The message names its game by a plus-address (``referee+GAMEID@…`` in To or
Delivered-To) or by ``[GAMEID]`` in the Subject, and carries the seat's token on a
line of its own, ``token: …``. The moves are the other lines of the first
text/plain part, in the game's text notation, up to a signature (``-- ``) or the
quoted message of a reply. The stdlib ``email`` package does the MIME work.
"""

from __future__ import annotations

import email
import email.policy
import re

from referee.games.base import MalformedMove

GAME_IN_ADDRESS = re.compile(r"\+([A-Za-z0-9]{6,32})@")
GAME_IN_SUBJECT = re.compile(r"\[([A-Za-z0-9]{6,32})\]")
TOKEN_LINE = re.compile(r"^\s*token\s*:\s*(\S+)\s*$", re.IGNORECASE)
REPLY_HEADER = re.compile(r"^On .* wrote:\s*$")


def read(raw: bytes) -> dict:
    try:
        msg = email.message_from_bytes(raw, policy=email.policy.default)
    except Exception as err:  # the parser is lenient; this is only a last resort
        raise MalformedMove(f"not an e-mail message: {err}", field="body") from None
    game = None
    for header in ("To", "Delivered-To", "X-Original-To", "Cc"):
        found = GAME_IN_ADDRESS.search(str(msg.get(header, "")))
        if found:
            game = found.group(1)
            break
    if game is None:
        found = GAME_IN_SUBJECT.search(str(msg.get("Subject", "")))
        game = found.group(1) if found else None
    if game is None:
        raise MalformedMove("name the game: write to referee+GAMEID@… or put [GAMEID] in the subject",
                            field="To")
    part = msg.get_body(preferencelist=("plain",))
    if part is None:
        raise MalformedMove("the message has no text/plain part", field="body")
    token, lines = None, []
    for line in part.get_content().splitlines():
        if line.rstrip() == "--" or line.startswith("-- ") or line.startswith(">") or REPLY_HEADER.match(line):
            break
        m = TOKEN_LINE.match(line)
        if m:
            token = m.group(1)
            continue
        lines.append(line)
    text = "\n".join(lines).strip()
    if not text:
        raise MalformedMove("the message holds no move", field="body")
    return {"game": game, "token": token, "text": text,
            "message_id": str(msg.get("Message-ID", "")).strip() or None}
