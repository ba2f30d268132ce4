"""`referee mail-gateway`: an SMTP server a mail system relays the league's mail to.

It speaks SMTP (aiosmtpd) and hands each message to ``referee.mail.inbound``, the
same function ``POST /v1/inbound/email`` calls. What it refuses, it refuses while
the sending server is still on the line, so the refusal lands with whoever sent
the mail and the referee never mails a stranger (no backscatter):

- at ``RCPT TO``: any domain but ``REFEREE_MAIL_DOMAIN`` (it relays nothing), a
  local part that is not a referee address, a game that does not exist, a reply
  address whose key is forged or outdated (550, 5.1.1);
- at the end of ``DATA``: a mail that names no seat it may speak for (550, 5.7.1),
  or whose refusal no answer of the seat's own carries (it names no game, or its
  seat has no e-mail or webhook: 550 with the reason, the only way to tell);
  a store that cannot be reached (451: the sending server tries again later).

Everything else is accepted (250) and answered by e-mail on the seat's own
channels, a refused move included: the refusal is the answer, not a bounce.
Robots' mail (bounces, auto-replies) is accepted and dropped unanswered.
"""

from __future__ import annotations

import asyncio
import logging
import re

from referee.games.base import RefereeError
from referee.mail import inbound, reading, sending

log = logging.getLogger("referee.mail.gateway")
LOCAL = re.compile(r"^referee(?:\+(.*))?$", re.IGNORECASE)
MAX_MESSAGE = 1024 * 1024  # as POST /v1/inbound/email: a move by mail is a few lines


class Gateway:
    """aiosmtpd handler (its hook names are aiosmtpd's)."""

    def __init__(self, service, domain: str | None = None):
        self.service = service
        self.domain = (domain or sending.settings()["domain"]).lower()

    def check_recipient(self, address: str) -> str | None:
        """Why ``address`` is not one of the referee's, or None if it is."""
        local, _, domain = address.strip("<> ").rpartition("@")
        if domain.lower() != self.domain:
            return "550 5.1.1 not a referee address (this server relays nothing)"
        m = LOCAL.match(local)
        if m is None:
            return "550 5.1.1 no such mailbox"
        tail = m.group(1)
        if tail is None:
            return None  # referee@…: the game is named in the subject, the token inside
        try:  # another room's reply address (a digest's, referee/system.py)
            if any(reader.names(self.service, tail) for reader in getattr(self.service, "reply_readers", ())):
                return None
        except RefereeError:
            return "550 5.1.1 no such reply address (a digest's address stops working with its player's token)"
        seat = reading.SEAT_IN_ADDRESS.search(f"+{tail}@")
        game = reading.GAME_IN_ADDRESS.search(f"+{tail}@")
        try:
            if seat:
                sending.caller_by_reply_key(self.service, seat.group(1), int(seat.group(2)), seat.group(3))
            elif game:
                self.service.record(game.group(1))
            else:
                return "550 5.1.1 no such mailbox"
        except RefereeError:
            return "550 5.1.1 no such game or reply address (a reply address stops working when its seat is handed on)"
        return None

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):  # noqa: N802
        try:
            why = await asyncio.get_running_loop().run_in_executor(None, self.check_recipient, address)
        except Exception as err:  # the store away: the sending server tries again later
            log.warning("recipient check failed: %s", err)
            return "451 4.3.0 the referee cannot check this address now; try again later"
        if why is not None:
            return why
        envelope.rcpt_tos.append(address)
        return "250 OK"

    def take(self, content: bytes, recipients: list[str], mail_from: str | None) -> str:
        try:
            got = inbound.receive(self.service, content, recipients, mail_from)
        except RefereeError as err:
            detail = err.detail.replace("\n", " ").replace("\r", " ")
            if getattr(err, "answered", False):
                # accepted: the refusal went to the seat as an answer, never as a bounce
                return f"250 OK: refused ({detail})"[:500]
            # no seat it may speak for (or none to answer on): only the sender can be told
            code = "5.7.1" if err.status in (401, 403) else "5.6.0"
            return f"550 {code} {detail}"[:500]
        if "ignored" in got:
            log.info("dropped a robot's mail: %s", got["ignored"])
            return "250 OK: dropped unanswered (" + got["ignored"] + ")"
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):  # noqa: N802
        try:
            return await asyncio.get_running_loop().run_in_executor(
                None, self.take, envelope.original_content or envelope.content, list(envelope.rcpt_tos),
                envelope.mail_from)
        except Exception as err:  # the store away, a bug: keep the mail at the sender's side
            log.exception("a mail could not be handled: %s", err)
            return "451 4.3.0 the referee cannot take this mail now; try again later"


def controller(service, host: str, port: int, domain: str | None = None):
    from aiosmtpd.controller import Controller

    return Controller(Gateway(service, domain), hostname=host, port=port,
                      data_size_limit=MAX_MESSAGE, server_hostname=domain or sending.settings()["domain"])
