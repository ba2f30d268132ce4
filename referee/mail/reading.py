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
import html.parser
import re

from referee.games.base import MalformedMove

GAME_IN_ADDRESS = re.compile(r"\+([A-Za-z0-9]{6,32})@")
# A seat's reply address from a notice: referee+GAME.SEAT.KEY@domain
SEAT_IN_ADDRESS = re.compile(r"\+([A-Za-z0-9]{6,32})\.(\d{1,2})\.([0-9a-f]{20})@")
GAME_IN_SUBJECT = re.compile(r"\[([A-Za-z0-9]{6,32})\]")
TOKEN_LINE = re.compile(r"^\s*token\s*:\s*(\S+)\s*$", re.IGNORECASE)
VERSION_LINE = re.compile(r"^\s*#\s*(\d{1,10})\s*$")
REPLY_HEADER = re.compile(r"^On .* wrote:\s*$")


class _Text(html.parser.HTMLParser):
    """The text of an HTML-only message: paragraphs and line breaks become new lines;
    quoted replies (blockquote) are left out."""

    BREAKS = {"br", "p", "div", "li", "tr", "h1", "h2", "h3", "h4", "pre"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.quoted = 0
        self.skipped = 0

    def handle_starttag(self, tag, attrs):
        if tag == "blockquote":
            self.quoted += 1
        elif tag in ("script", "style", "head"):
            self.skipped += 1
        elif tag in self.BREAKS:
            self.parts.append("\n")

    def handle_endtag(self, tag):
        if tag == "blockquote":
            self.quoted = max(0, self.quoted - 1)
        elif tag in ("script", "style", "head"):
            self.skipped = max(0, self.skipped - 1)
        elif tag in self.BREAKS:
            self.parts.append("\n")

    def handle_data(self, data):
        if not self.quoted and not self.skipped:
            self.parts.append(data)


def html_text(markup: str) -> str:
    parser = _Text()
    parser.feed(markup)
    parser.close()
    return "".join(parser.parts)


def read(raw: bytes) -> dict:
    try:
        msg = email.message_from_bytes(raw, policy=email.policy.default)
    except Exception as err:  # the parser is lenient; this is only a last resort
        raise MalformedMove(f"not an e-mail message: {err}", field="body") from None
    game = seat = key = None
    for header in ("To", "Delivered-To", "X-Original-To", "Cc"):
        found = SEAT_IN_ADDRESS.search(str(msg.get(header, "")))
        if found:
            game, seat, key = found.group(1), int(found.group(2)), found.group(3)
            break
    for header in ("To", "Delivered-To", "X-Original-To", "Cc"):
        if game is not None:
            break
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
    part = msg.get_body(preferencelist=("plain", "html"))
    if part is None:
        raise MalformedMove("the message has no text part", field="body")
    try:
        content = part.get_content()
    except (LookupError, UnicodeError) as err:  # an unknown or lying charset
        raise MalformedMove(f"the message's text cannot be read: {err}", field="body") from None
    if not isinstance(content, str):
        raise MalformedMove("the message's text part holds no text", field="body")
    if part.get_content_subtype() == "html":
        content = html_text(content)
    tokens, version, lines = [], None, []
    for line in content.splitlines():
        if line.rstrip() == "--" or line.startswith("-- ") or line.startswith(">") or REPLY_HEADER.match(line):
            break
        m = TOKEN_LINE.match(line)
        if m:
            tokens.append(m.group(1))
            continue
        v = VERSION_LINE.match(line)
        if v:  # "#N": apply the moves only if the game is still at version N
            version = int(v.group(1))
            continue
        lines.append(line)
    if len(set(tokens)) > 1:
        raise MalformedMove("the message has two token lines: which seat is it from?", field="token")
    text = "\n".join(lines).strip()
    if not text:
        raise MalformedMove("the message holds no move", field="body")
    return {"game": game, "seat": seat, "key": key,
            "token": tokens[0] if tokens else None, "text": text, "version": version,
            "message_id": str(msg.get("Message-ID", "")).strip() or None}
