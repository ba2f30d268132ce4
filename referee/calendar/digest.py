"""The daily digest: for a player whose ``notices`` is ``daily``, one e-mail a day
at their ``digest_hour`` (their own ``timezone``, referee/calendar/digest_hours.py)
listing every game waiting on their move, in place of a mail per turn.

When: each such player has one entry in the due index (referee/calendar/digest_store.py),
the next moment their digest is due; a change of ``notices``, ``digest_hour`` or
``timezone`` moves it. The background sender (``service.senders``) looks at the
index every round.

Once a day: a due digest is claimed by its player and local date before anything
is read or sent. The first claimer writes the games into the claim (each as its
seat sees it, the seat's turn notice's body, referee/mail/outbox.py ``compose``),
then mails it and marks the date ``sent``; a date with no game waiting is marked
``empty`` and mails nothing. A sender killed before it marked the date leaves the
claim to lapse (the notices' lease, ``REFEREE_NOTICE_LEASE``), and the next sender
mails what the first one kept, with the same Message-ID: the SMTP server may then
have had it twice only if the first died after the server took it and before the
mark (the window of every notice, docs/play-by-mail.md), else it is sent once.

To whom: the player's own confirmed address (``GET /v1/players/me`` ``contacts``),
not a game's contact: the digest is the player's mail, about all their games. No
confirmed address: no digest (the date is marked ``unaddressed``).
"""

from __future__ import annotations

import datetime
import json
import time
from email.message import EmailMessage
from email.utils import formatdate

from referee.calendar import digest_hours, digest_reply, digest_words
from referee.calendar import settings as st
from referee.errors import RefereeError
from referee.mail import links, outbox, sending, words
from referee.players import current
from referee.players.store import players_of

DONE = ("sent", "empty", "unaddressed", "refused")
# A digest found this late (every sender down since its hour) is not sent: it would
# tell of a date gone by; the next one is scheduled instead.
STALE = 86400.0


def _utc(t: float) -> datetime.datetime:
    return datetime.datetime.fromtimestamp(t, datetime.UTC)


class Digests:
    """The digests as the service is handed them (referee/system.py): scheduled by
    the calendar on a change of settings, sent by the background sender."""

    def __init__(self, store, calendar_store):
        self.store, self.calendar_store = store, calendar_store

    # ---- when -------------------------------------------------------------------------
    def reschedule(self, player_id: str, settings: dict, now: float | None = None,
                   after_day: datetime.date | None = None) -> float | None:
        """Put the player's next digest in the due index (or take it out: not
        ``daily``); returns its moment (seconds since the epoch) or None."""
        settings = st.complete(settings)
        if settings["notices"] != "daily":
            self.store.unschedule(player_id)
            return None
        now = time.time() if now is None else now
        at, _ = digest_hours.next_due(_utc(now), settings["digest_hour"], settings["timezone"], after_day)
        self.store.schedule(player_id, at.timestamp())
        return at.timestamp()

    # ---- what -------------------------------------------------------------------------
    @staticmethod
    def compose(service, player_id: str) -> dict:
        """Every game waiting on the player, each its seat's turn notice's body:
        only what that seat may see."""
        games = []
        for game in current.waiting(service, current.read(service, player_id)):
            try:
                games.append(outbox.compose(service, game["id"], game["seat"], "turn"))
            except RefereeError:  # gone meanwhile: not waiting
                continue
        return {"games": games}

    @staticmethod
    def email(service, player: dict, to: str, day: str, hour: int, content: dict) -> EmailMessage:
        sections = []
        for n, body in enumerate(content["games"], 1):
            rec = service.record(body["game"])
            sections.append(digest_words.section(n, body, sending.reply_address(service, body["game"], body["seat"]),
                                                 links.seat_page(service, rec, body["seat"])))
        domain = sending.settings()["domain"]
        msg = EmailMessage(policy=sending.MAIL_POLICY)
        msg["From"] = words.from_header()
        msg["To"] = to
        msg["Reply-To"] = digest_reply.address(service, player)
        msg["Subject"] = digest_words.subject(player["name"], content["games"], day)
        msg["Message-ID"] = f"<digest.{player['id']}.{day}@{domain}>"
        msg["Date"] = formatdate(localtime=False)
        msg["Auto-Submitted"] = "auto-generated"  # RFC 3834: no auto-replies
        msg.set_content(digest_words.digest_text(player["name"], day, hour, sections, content["games"][0]["game"]))
        return msg

    # ---- sending ----------------------------------------------------------------------
    def __call__(self, service, now: float | None = None, limit: int = 100) -> int:
        """Send every digest due by ``now``; returns how many were mailed. Safe in
        several processes at once and after a crash: each is claimed first."""
        now = time.time() if now is None else now
        sent = 0
        for player_id, at in self.store.due(now, limit):
            try:
                sent += self.one(service, player_id, at, now)
            except Exception:  # the store away, a player gone: the entry stays, tried next round
                continue
        return sent

    def one(self, service, player_id: str, at: float, now: float) -> int:
        settings = st.complete(self.calendar_store.settings(player_id))
        if settings["notices"] != "daily":
            self.store.unschedule(player_id)
            return 0
        if now - at >= STALE:  # the senders were down past the next day's: that date is gone
            self.reschedule(player_id, settings, now)
            return 0
        day = digest_hours.local_day(_utc(at), settings["timezone"])
        name = day.isoformat()
        claimed, kept = self.store.claim(player_id, name, now, now + sending.lease())
        if not claimed:
            if self.store.state(player_id, name) in DONE:  # its date is done: the next one
                self.reschedule(player_id, settings, now, after_day=day)
            return 0  # else another sender holds it
        content = json.loads(kept) if kept else None
        if content is None:
            content = self.compose(service, player_id)
            self.store.keep(player_id, name, json.dumps(content))
        player = players_of(service).get(player_id)
        contacts = (player or {}).get("contacts") or {}
        to = contacts.get("email") if contacts.get("email_confirmed") else None
        if not content["games"] or to is None:
            state = "empty" if not content["games"] else "unaddressed"
        else:
            try:
                sending.send_email(self.email(service, player, to, name, settings["digest_hour"], content))
            except Exception as err:
                if not sending.refused_for_good(err):
                    return 0  # the claim lapses and the next round's sender tries again
                state = "refused"  # the address refuses it: no second try today
            else:
                state = "sent"
                box = outbox.outbox_of(service)
                for body in content["games"]:  # told up to here: a later notice tells what follows
                    box.advance(body["game"], body["seat"], body["version"])
        self.store.finish(player_id, name, state)
        self.reschedule(player_id, settings, now, after_day=day)
        return int(state == "sent")
