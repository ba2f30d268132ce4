"""A reply to a daily digest: moves for several games in one mail.

The digest's Reply-To is the player's own digest address,
``referee+d.PLAYER.KEY@…``: its key is a MAC keyed by the mail secret (as a
seat's reply address is, referee/mail/sending.py ``reply_key``) over the player
and the hash of the player's token, so it speaks for that player without a token
and stops working when the player gets a new token.

The reply's own lines (above the quoted digest, referee/mail/reading.py) are
read in sections: a line starting with a game's ``[GAMEID]`` begins that game's
section, its moves after it on that line and on the lines below, up to the next
such line; ``#N`` on a line of a section applies its moves only at version N.
Each section is applied as its seat (a game of the player's, waiting or not) and
answered as a reply to that game's own notice is (referee/mail/inbound.py
``apply_mail``): its moves applied together or refused with the rule and the
line, on the game's own answer mail; one game refused leaves the others alone.
A section naming a game the player holds no seat in is left alone, and said so
in the answer of each game the mail did name (the HTTP answer lists it too), as
are the lines before the first section (read by nobody). A reply that names no
game of the player's at all is answered by one mail to the player's confirmed
address saying so and how a reply is written, so that no reply goes unanswered.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import re

from referee.caller import Caller
from referee.errors import RefereeError, Unauthenticated
from referee.mail import inbound, reading, sending
from referee.mail.secret import mail_secret
from referee.players.invitations import confirmed_email
from referee.players.store import players_of

log = logging.getLogger("referee.digest")

# referee+d.PLAYER.KEY@domain (a player id holds no '.', '-' or '_')
DIGEST_IN_ADDRESS = re.compile(r"\+d\.([A-Za-z0-9]{6,32})\.([0-9a-f]{20})@")
SECTION = re.compile(r"^\s*\[([A-Za-z0-9]{6,32})\]\s*(.*)$")


def key(service, player: dict) -> str:
    msg = f"digest:{player['id']}.{player['token_hash']}".encode()
    return hmac.new(mail_secret(service), msg, hashlib.sha256).hexdigest()[:20]


def address(service, player: dict) -> str:
    return f"referee+d.{player['id']}.{key(service, player)}@{sending.settings()['domain']}"


def player_by_key(service, player_id: str, given: str) -> dict:
    """The player a digest address names, if its key is right; else 401."""
    player = players_of(service).get(player_id)
    if player is None or not hmac.compare_digest(key(service, player), given):
        raise Unauthenticated("this reply address is not one the referee gave out for a digest")
    return player


def sections(lines: list[str]) -> tuple[dict[str, dict], list[str]]:
    """The reply's sections by game, in the order named (``{text, version}``),
    and the lines before the first one (read by nobody)."""
    out: dict[str, dict] = {}
    before: list[str] = []
    current = None
    for line in lines:
        head = SECTION.match(line)
        if head:
            current = out.setdefault(head.group(1), {"lines": [], "version": None})
            line = head.group(2)
        if current is None:
            if line.strip():
                before.append(line)
            continue
        v = reading.VERSION_LINE.match(line)
        if v:
            current["version"] = int(v.group(1))
        elif line.strip():
            current["lines"].append(line)
    return {g: {"text": "\n".join(s["lines"]).strip(), "version": s["version"]} for g, s in out.items()}, before


class DigestReplies:
    """What referee/mail/inbound.py asks of every room's reply addresses
    (``service.reply_readers``, referee/system.py)."""

    @staticmethod
    def names(service, tail: str) -> bool:
        """Whether ``referee+TAIL@`` is a digest's address (raises 401 for a wrong key)."""
        found = DIGEST_IN_ADDRESS.search(f"+{tail}@")
        if found is None:
            return False
        player_by_key(service, found.group(1), found.group(2))
        return True

    @staticmethod
    def receive(service, raw: bytes, msg, recipients) -> dict | None:
        """A reply to a digest, applied game by game; None for any other mail."""
        found = next((m for m in (DIGEST_IN_ADDRESS.search(p) for p in reading.addressed(msg, recipients)) if m),
                     None)
        if found is None:
            return None
        player = player_by_key(service, found.group(1), found.group(2))
        games, before = sections(reading.own_lines(reading.text_of(msg)))
        mail = inbound.mail_key(str(msg.get("Message-ID", "")).strip() or None, raw)
        mid = str(msg.get("Message-ID", "")).strip()
        mid = mid if inbound.MESSAGE_ID.match(mid) else None
        seats = players_of(service).seats(player["id"])
        held = {g: _held(service, g, seats[g], player) for g in games if g in seats}
        foreign = [g for g in games if held.get(g) is None]
        results = []
        if len(foreign) == len(games):  # nothing of the player's to answer in: one answer of its own
            _answer_unread(player, foreign, before, mid or f"<{mail}@referee>")
        aside = _aside(foreign, before)
        for game_id, asked in games.items():
            if game_id in foreign:
                results.append({"game": game_id, "applied": False,
                                "refused": "not a game of yours: nothing done with this section"})
                continue
            who = held[game_id]
            # each game's moves named as their own mail: applied and answered once per game
            game_key = hashlib.sha256(f"{mail}|{game_id}".encode()).hexdigest()
            text = asked["text"]
            try:
                got = inbound.apply_mail(service, who, text, asked["version"], game_key, mid, aside=aside)
                results.append({"game": game_id, "applied": True, "version": got["version"]})
            except RefereeError as err:
                results.append({"game": game_id, "applied": False, "refused": err.detail})
        return {"answered": "digest", "games": results}


def _held(service, game_id: str, seat: int, player: dict) -> Caller | None:
    """The player's seat of the game, if the player's own token still holds it (a
    seat handed to someone else is theirs no more, whatever the index says)."""
    try:
        rec = service.record(game_id)
    except RefereeError:
        return None
    if rec.tokens.get(player["token_hash"]) != seat:
        return None
    return Caller(seat, player["token_hash"], rec)


def _aside(foreign: list[str], before: list[str]) -> str | None:
    said = []
    if foreign:
        said.append("Your mail also named " + ", ".join(f"[{g}]" for g in foreign)
                    + ": no game of yours, so nothing was done with " + ("it." if len(foreign) == 1 else "them."))
    if before:
        said.append(f"The {len(before)} line(s) before your first [GAMEID] line were not read: a game's moves "
                    "follow its [GAMEID] line.")
    return " ".join(said) or None


def _answer_unread(player: dict, foreign: list[str], before: list[str], in_reply_to: str) -> None:
    """The one answer to a digest reply that named no game of the player's: sent
    at once to the confirmed address (once a distinct reply: its Message-ID is the
    reply's own, so a mail delivered twice is answered by one Message-ID)."""
    to = confirmed_email(player)
    if to is None:
        return
    msg = sending.referee_message(to, "Your reply to the daily digest: no game's moves found",
                                  "digest-answer." + hashlib.sha256(in_reply_to.encode()).hexdigest()[:24],
                                  replied=True)
    msg["In-Reply-To"] = in_reply_to
    lines = ["Nothing was played: your reply named no game of yours."]
    if foreign:
        lines.append("It named " + ", ".join(f"[{g}]" for g in foreign) + ", in which you hold no seat.")
    if before:
        lines.append(f"{len(before)} line(s) came before any [GAMEID] line, so no game was theirs.")
    lines += ["", "Write each game's moves after a line that starts with the game's name in brackets,",
              "as the digest's sections show it, e.g.", "", "  [GAMEID] play W3", "",
              "and the next game's line after them. Nothing else in your reply is read."]
    msg.set_content("\n".join(lines) + "\n")
    try:
        sending.send_email(msg)
    except Exception as err:  # a failing SMTP server: the player sees nothing happened and may write again
        log.warning("digest: the answer to an unreadable reply was not sent: %s", err)
