"""Moves by e-mail: read a raw RFC 822 message into (game, seat, key or token, text).

The message names its seat by the reply address a notice gave it
(``referee+GAME.SEAT.KEY@…`` in the envelope's recipients, To, Delivered-To...),
or its game by ``referee+GAMEID@…`` or ``[GAMEID]`` in the Subject with the seat's
token on a line of its own, ``token: …``. The moves are the first lines of the
first text part (the text of an HTML-only message), in the game's text notation,
before the quoted message of a reply or a signature. The stdlib ``email`` package
does the MIME work; mail-parser-reply finds where a reply's quoted part starts in
many languages, and the rules here catch what it misses (see ``own_lines``).
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
# The line a mail program puts above the quoted message, in the languages our
# leagues write in; Gmail may wrap it over two lines, so a line ending so is enough.
REPLY_HEADER = re.compile(
    r"(?:\bwrote|schrieb|a écrit|escribió|schreef|ha scritto|escreveu|skrev|napisał)\s*(?:.{0,60})?:\s*$"
    r"|^-{2,}\s*(?:Original Message|Ursprüngliche Nachricht|Message d'origine|Mensaje original"
    r"|Oorspronkelijk bericht|Messaggio originale|Mensagem original)\s*-{2,}\s*$"
    r"|^_{20,}\s*$", re.IGNORECASE)
# The first words of that line, when a mail program wraps it: "On Mon, … <" then
# "ann@example.org> wrote:" on the next line
OPENER = re.compile(r"^\s*(?:On|Le|Am|El|Op|Il|Em|Den|W dniu)\s", re.IGNORECASE)
# Outlook's header block of the original message: "From: …" then "Sent: …" or "Date: …"
OUTLOOK_FROM = re.compile(r"^\s*\*?(?:From|Von|De|Da|Van|Från|Od)\s*:\*?\s", re.IGNORECASE)
OUTLOOK_SENT = re.compile(r"^\s*\*?(?:Sent|Date|Gesendet|Datum|Envoyé|Enviado|Verzonden|Inviato|Skickat|Wysłano)"
                          r"\s*:\*?\s", re.IGNORECASE)
# What phones and webmail add under a reply, taken as a signature
SIGNED = re.compile(r"^\s*(?:Sent from my |Sent from Mail for |Get Outlook for |Envoyé de mon |"
                    r"Von meinem .* gesendet|Enviado desde mi |Verzonden vanaf mijn |Inviato da )",
                    re.IGNORECASE)
# A reply holding only one of these words asks for something other than a move.
COMMANDS = ("show", "help")
REPLY_LANGUAGES = ["en", "de", "fr", "es", "nl", "it", "pt", "sv", "pl"]


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


def own_lines(content: str) -> list[str]:
    """The lines the sender wrote: up to the quoted message of a reply (``>`` lines,
    "On … wrote:" and its translations, Outlook's original-message block or its
    header lines) or a signature (``-- ``, "Sent from my …")."""
    own = _cut(content.splitlines())
    try:  # a second pass, for the forms of languages the rules here do not know
        from mailparser_reply import EmailReplyParser

        parsed = EmailReplyParser(languages=REPLY_LANGUAGES).parse_reply(text="\n".join(own))
        own = _cut(parsed.splitlines()) if parsed else own
    except Exception:  # the library is a second opinion only
        pass
    return own


def _cut(lines: list[str]) -> list[str]:
    own = []
    for i, line in enumerate(lines):
        if (line.rstrip() == "--" or line.startswith("-- ") or line.lstrip().startswith(">")
                or REPLY_HEADER.search(line) or SIGNED.match(line)):
            break
        if OPENER.match(line) and i + 1 < len(lines) and REPLY_HEADER.search(lines[i + 1]):
            break
        if OUTLOOK_FROM.match(line) and any(OUTLOOK_SENT.match(x) for x in lines[i + 1:i + 4]):
            break
        own.append(line)
    return own


def parse(raw: bytes):
    try:
        return email.message_from_bytes(raw, policy=email.policy.default)
    except Exception as err:  # the parser is lenient; this is only a last resort
        raise MalformedMove(f"not an e-mail message: {err}", field="body") from None


def text_of(msg) -> str:
    """The message's first text part (the text of an HTML-only message)."""
    part = msg.get_body(preferencelist=("plain", "html"))
    content = ""
    if part is not None:
        try:
            content = part.get_content()
        except (LookupError, UnicodeError) as err:  # an unknown or lying charset
            raise MalformedMove(f"the message's text cannot be read: {err}", field="body") from None
        if not isinstance(content, str):
            content = ""
        elif part.get_content_subtype() == "html":
            content = html_text(content)
    return content


def addressed(msg, recipients: list[str] | None) -> list[str]:
    """Where a message names its addressee, the envelope's recipients first."""
    return [", ".join(recipients or [])] + [str(msg.get(h, "")) for h in ("To", "Delivered-To", "X-Original-To", "Cc")]


def read(raw: bytes, recipients: list[str] | None = None, msg=None) -> dict:
    """The seat's address and the moves of a mail. ``recipients``: the envelope's
    (RCPT TO) when the mail came by SMTP: they name the seat before any header."""
    msg = parse(raw) if msg is None else msg
    game = seat = key = None
    places = addressed(msg, recipients)
    for place in places:
        found = SEAT_IN_ADDRESS.search(place)
        if found:
            game, seat, key = found.group(1), int(found.group(2)), found.group(3)
            break
    for place in places:
        if game is not None:
            break
        found = GAME_IN_ADDRESS.search(place)
        if found:
            game = found.group(1)
            break
    if game is None:
        found = GAME_IN_SUBJECT.search(str(msg.get("Subject", "")))
        game = found.group(1) if found else None
    if game is None:
        raise MalformedMove("name the game: reply to a notice (its reply address names your seat), "
                            "or write to referee+GAMEID@… or put [GAMEID] in the subject", field="To")
    tokens, version, lines = [], None, []
    for line in own_lines(text_of(msg)):
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
    command = text.lower() if text.lower() in COMMANDS else None
    return {"game": game, "seat": seat, "key": key,
            "token": tokens[0] if tokens else None, "text": text, "version": version,
            "command": command, "message_id": str(msg.get("Message-ID", "")).strip() or None}
