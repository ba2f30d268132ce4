"""Delivering queued notices: e-mail through SMTP, webhooks signed as Standard
Webhooks. A delivery never runs on a request's thread and never blocks a move.

Each due notice is first claimed (its next try pushed a lease ahead, compare-and-
set), so two senders never send it at once; once the SMTP server or the webhook
has accepted it, it is marked sent. A failure is retried with backoff (30 s,
doubling, at most an hour apart), but for a webhook the guard refuses
(referee/mail/webhooks.py): that notice is marked failed with the reason, since
no later try would be let through either. A sender killed after the server accepted a
notice but before marking it sent would send it again when the lease runs out:
that window is one write long, and the repeat carries the same Message-ID /
``webhook-id`` (the notice id), which mail readers and webhook receivers use to
drop duplicates.
"""

from __future__ import annotations

import email.policy
import hashlib
import hmac
import json
import os
import re
import smtplib
import threading
import time
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import formatdate
from urllib.parse import urlsplit

from referee.mail import links, outbox, webhooks, words
from referee.mail.secret import mail_secret  # noqa: F401 - where others find it too

MAIL_POLICY = email.policy.default.clone(max_line_length=998)
LEASE = 120.0  # seconds a claimed notice is left to its sender before another may try


def lease() -> float:
    """REFEREE_NOTICE_LEASE overrides LEASE: it bounds how long a notice claimed by a
    sender that died waits before another sender takes it (the fault tests shorten it)."""
    return float(os.environ.get("REFEREE_NOTICE_LEASE", LEASE))


def settings() -> dict:
    return {"smtp": os.environ.get("REFEREE_SMTP_URL", ""),
            "from": os.environ.get("REFEREE_MAIL_FROM", "referee@localhost"),
            "domain": os.environ.get("REFEREE_MAIL_DOMAIN", "localhost")}


def referee_message(to: str, subject: str, message_id: str, replied: bool = False) -> EmailMessage:
    """A message of the referee's own, not a game's notice (a confirmation code, an
    invitation, a new token, an answer): From the referee to one address, its
    Message-ID ``<message_id@domain>``, dated now and marked Auto-Submitted (RFC 3834:
    ``auto-generated``, or ``auto-replied`` for an answer), so that no robot answers it."""
    s = settings()
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = s["from"], to, subject
    msg["Message-ID"] = f"<{message_id}@{s['domain']}>"
    msg["Date"] = formatdate(localtime=False)
    msg["Auto-Submitted"] = "auto-replied" if replied else "auto-generated"
    return msg


def reply_key(service, game_id: str, seat: int) -> str:
    """A MAC over game, seat and the seat's token hash: a reply to this address needs
    no token, and the address stops working when the seat gets a new token."""
    rec = service.record(game_id)
    held = sorted(h for h, who in rec.tokens.items() if who == seat)
    msg = f"{game_id}.{seat}.{','.join(held)}".encode()
    return hmac.new(mail_secret(service), msg, hashlib.sha256).hexdigest()[:20]


def caller_by_reply_key(service, game_id: str, seat: int, key: str):
    """The seat a reply address names, if its key is right; else 401 (a forged or
    outdated address: the seat was handed to someone else)."""
    from referee.caller import Caller
    from referee.errors import Unauthenticated

    rec = service.record(game_id)
    if not 0 <= seat < len(rec.players) or not hmac.compare_digest(reply_key(service, game_id, seat), key):
        raise Unauthenticated("this reply address is not one the referee gave out for this game")
    held = sorted(h for h, who in rec.tokens.items() if who == seat)
    return Caller(seat, held[0] if held else "", rec)


def reply_address(service, game_id: str, seat: int) -> str:
    return f"referee+{game_id}.{seat}.{reply_key(service, game_id, seat)}@{settings()['domain']}"


def notice_text(body: dict, link: str | None = None) -> str:
    """The notice as plain text (referee/mail/words.py)."""
    return words.notice_text(body, link)


def email_of(service, notice: dict, to: str, link: str | None = None) -> EmailMessage:
    s = settings()
    body = notice["body"]
    # Lines up to SMTP's own limit: a subject folded by the 78-column rule may start
    # with a blank (Python folds before a last word that does not fit), and the text
    # stays plain 7- or 8-bit, its page link unbroken for any reader
    msg = EmailMessage(policy=MAIL_POLICY)
    msg["From"] = words.from_header()
    msg["To"] = to
    if notice["seat"] >= 0:  # a seat's reply address; the organiser's mail is no seat's
        msg["Reply-To"] = reply_address(service, notice["game"], notice["seat"])
    msg["Subject"] = words.subject(body)
    msg["Message-ID"] = f"<{notice['id']}@{s['domain']}>"
    msg["Date"] = formatdate(localtime=False)
    msg["Auto-Submitted"] = "auto-generated"  # RFC 3834: no auto-replies to notices
    if body.get("in_reply_to"):  # an answer to a player's mail: threaded under it
        msg["In-Reply-To"] = msg["References"] = body["in_reply_to"]
    msg.set_content(words.notice_text(body, link))
    return msg


def webhook_payload(notice: dict, link: str | None) -> dict:
    body = notice["body"]
    return {"type": f"notice.{notice['reason']}", "id": notice["id"], **body,
            "subject": words.subject(body), "link": link, "message": words.notice_text(body, link)}


def send_email(msg: EmailMessage) -> None:
    url = urlsplit(settings()["smtp"])
    if url.scheme not in ("smtp", "smtps") or not url.hostname:
        raise RuntimeError("REFEREE_SMTP_URL is not set to smtp://host:port")
    cls = smtplib.SMTP_SSL if url.scheme == "smtps" else smtplib.SMTP
    with cls(url.hostname, url.port or (465 if url.scheme == "smtps" else 25), timeout=30) as smtp:
        if url.username:
            smtp.login(url.username, url.password or "")
        smtp.send_message(msg)


def send_webhook(url: str, secret: str, notice: dict, payload: dict) -> None:
    """POST the notice, signed; only to an address the guard lets through, checked
    again now (referee/mail/webhooks.py: WebhookRefused otherwise)."""
    from standardwebhooks.webhooks import Webhook

    data = json.dumps(payload, sort_keys=True)
    ts = int(time.time())
    signature = Webhook(secret).sign(notice["id"], datetime.fromtimestamp(ts, tz=UTC), data)
    status = webhooks.post(url, data.encode(), {
        "content-type": "application/json", "webhook-id": notice["id"],
        "webhook-timestamp": str(ts), "webhook-signature": signature,
        "user-agent": "castle-referee"}, timeout=15)
    if not 200 <= status < 300:  # (a redirect too: it is not followed)
        raise WebhookAnswered(status)


# A channel failing this many attempts in a row (or refused for good at once: an
# SMTP 5xx, a webhook's 4xx) is reported to the organiser, once per address
TELL_ORGANISER_AFTER = 5


class WebhookAnswered(RuntimeError):
    """A webhook's receiver answered, but not 2xx (a redirect too: it is not followed)."""

    def __init__(self, status: int):
        super().__init__(f"webhook answered {status}")
        self.status = status


def send(service, notice: dict, channel: str, contact: dict, link: str | None) -> None:
    """Send ``notice`` on one channel (raises on a failure)."""
    if channel == "email":
        send_email(email_of(service, notice, contact["email"], link))
    else:
        send_webhook(contact["webhook"], contact["webhook_secret"], notice, webhook_payload(notice, link))


def deliver(service, notice: dict, box=None, now: float | None = None) -> list[str]:
    """Send one notice on each channel of its seat that has not taken it yet,
    recording each at once as it is taken (the last one by the notice's being
    marked sent, when all went well), so a retry sends only what failed (an
    e-mail the SMTP server accepted is never sent again because the webhook beside
    it answered 503). A channel waits while an earlier notice of the same seat
    has not gone out on it, so each channel gets a seat's notices in order.
    Returns the failures (``[]``: every channel has it); ``notice["done"]`` is then
    every channel that has it."""
    box = box or outbox.outbox_of(service)
    now = time.time() if now is None else now
    rec = service.record(notice["game"])
    contact = outbox.contact_of(rec.extra, notice["seat"])
    owed = [c for c in outbox.CHANNELS if contact.get(c) and c not in notice["done"]]
    if not owed:
        return []
    waiting = {}
    for earlier in box.pending_before(notice):
        for channel in owed:
            if channel not in earlier["done"]:
                waiting.setdefault(channel, earlier)
    league = notice["body"].get("league")  # a league's standings: its page, not the game's
    link = links.league_page(league["id"]) if league else links.seat_page(service, rec, notice["seat"])
    failures = []
    done = list(notice["done"])
    for channel in owed:
        if channel in waiting:
            failures.append({"channel": channel, "waiting": waiting[channel]})
            continue
        try:
            send(service, notice, channel, contact, link)
        except webhooks.WebhookRefused as err:  # the address guard: never sent, not worth a retry
            failures.append({"channel": channel, "error": str(err), "for_good": True, "refused": True,
                             "address": contact[channel]})
            continue
        except Exception as err:  # a failing SMTP server or webhook: later, with backoff
            failures.append({"channel": channel, "error": f"{type(err).__name__}: {err}",
                             "for_good": refused_for_good(err), "address": contact[channel]})
            continue
        done.append(channel)
        if channel != owed[-1] or failures:  # (else the caller marks the whole notice sent next)
            box.delivered(notice["id"], done)
    notice["done"] = done
    return failures


def refused_for_good(err: Exception) -> bool:
    """Whether a delivery was refused in a way retrying will not mend (an SMTP 5xx,
    a webhook's 4xx but 408 and 429, a webhook URL no longer allowed)."""
    from referee.games.base import RefereeError

    code = getattr(err, "smtp_code", None)
    if isinstance(err, smtplib.SMTPRecipientsRefused):
        code = min((c for c, _ in err.recipients.values()), default=None)
    if isinstance(err, WebhookAnswered):
        return 400 <= err.status < 500 and err.status not in (408, 429)
    return isinstance(err, RefereeError) or (isinstance(code, int) and code >= 500)


def tell_organiser(service, game_id: str, seat: int, channel: str, address: str, why: str) -> str | None:
    """Queue the organiser's ``undelivered`` notice about ``seat``'s ``channel``,
    once per address (named by it), if the game has an organiser to tell."""
    import hashlib

    rec = service.record(game_id)
    if seat == outbox.ORGANISER or not outbox.contact_of(rec.extra, outbox.ORGANISER):
        return None
    who = "the spectators' webhook" if seat == outbox.SPECTATORS else f"{rec.players[seat]}'s {channel}"
    change = (f"PUT /v1/games/{game_id}/spectators" if seat == outbox.SPECTATORS
              else f"PUT /v1/games/{game_id}/contacts/{seat}")
    note = (f"A notice to {who} ({address}) could not be delivered: {why[:300]}. It is tried again, "
            f"to the address given then: to change it, {change}.")
    tag = hashlib.sha256(f"{seat}|{channel}|{address}".encode()).hexdigest()[:12]
    return outbox.queue_notice(service, game_id, outbox.ORGANISER, "undelivered", note, version=0, tag=tag)


def waited(earlier: dict, now: float) -> float:
    """When a notice waiting behind ``earlier`` is tried again. One never tried and
    failed is due or being sent by another sender this moment (its next try then
    says when that sender's claim lapses, not when it is done): a second. One that
    failed: with its own next try, at most a first retry's wait later (it may be
    being retried now)."""
    if not earlier["attempts"]:
        return now + 1
    return min(earlier["next_try"], now + outbox.backoff(1))


# A notice's Message-ID as a bounce quotes it: <GAME.SEAT.VERSION.REASON[.TAG]@domain>
NOTICE_ID = re.compile(rb"<([A-Za-z0-9]{6,32})\.(\d{1,2})\.\d{1,10}\.[a-z-]{3,20}(?:\.[0-9a-f]{1,16})?@")


def bounced(service, raw: bytes) -> str | None:
    """A bounce came back for a seat's notice: tell the organiser (once per
    address), naming the seat and the address it was sent to. The bounce itself
    is never answered (referee/mail/loops.py)."""
    m = NOTICE_ID.search(raw)
    if m is None:
        return None
    game_id, seat = m.group(1).decode(), int(m.group(2))
    try:
        rec = service.record(game_id)
    except Exception:  # no such game: a bounce of something else
        return None
    address = outbox.contact_of(rec.extra, seat).get("email") if seat < len(rec.players) else None
    if not address:
        return None
    return tell_organiser(service, game_id, seat, "email", address, "the mail system sent it back (a bounce)")


def deliver_due(service, now: float | None = None, limit: int = 100) -> int:
    """Deliver every notice due now; return how many went out on every channel.
    Safe to run in several processes at once: each notice is claimed before it is
    sent."""
    box = outbox.outbox_of(service)
    now = time.time() if now is None else now
    sent = 0
    for notice in box.due(now, limit):
        if not box.claim(notice, now + lease()):
            continue
        try:
            failures = deliver(service, notice, box, now)
        except Exception as err:  # the store away for a moment, a game gone: later
            failures = [{"channel": "all", "error": f"{type(err).__name__}: {err}", "for_good": False}]
        if not failures:
            box.mark(notice["id"], "sent", notice["attempts"] + 1, now, None, notice["done"])
            sent += 1
            continue
        if all(f.get("refused") for f in failures):
            # Only webhooks the guard refuses are left: no later try would be let
            # through either (the other channels have the notice).
            box.mark(notice["id"], "failed", notice["attempts"] + 1, now,
                     "; ".join(f"webhook refused: {f['error']}" for f in failures)[:500],
                     notice["done"])
            for f in failures:
                try:
                    tell_organiser(service, notice["game"], notice["seat"], f["channel"], f["address"], f["error"])
                except Exception:  # a courtesy: never stops the sender
                    pass
            continue
        failed = [f for f in failures if "error" in f]
        if failed:  # a real failure: backoff
            attempts = notice["attempts"] + 1
            next_try = now + outbox.backoff(attempts)
        else:  # only waiting behind an earlier notice: tried again once that one may be gone
            attempts = notice["attempts"]
            next_try = max(now + 1, min(waited(f["waiting"], now) for f in failures))
        error = "; ".join(f"{f['channel']}: {f['error']}" if "error" in f else
                          f"{f['channel']}: waits for {f['waiting']['id']}" for f in failures)
        box.mark(notice["id"], "pending", attempts, next_try, error[:500])
        for f in failed:
            if f.get("address") and (f["for_good"] or attempts >= TELL_ORGANISER_AFTER):
                try:
                    tell_organiser(service, notice["game"], notice["seat"], f["channel"], f["address"], f["error"])
                except Exception:  # telling the organiser is a courtesy: never stops the sender
                    pass
    return sent


class Sender(threading.Thread):
    """The background sender inside `referee serve` (and `referee worker`): every
    ``interval`` seconds it delivers what is due. A daemon thread: it dies with the
    process, and what it had not marked sent is sent by the next one."""

    def __init__(self, service, interval: float = 1.0):
        super().__init__(name="notice-sender", daemon=True)
        self.service, self.interval = service, interval
        self.stopping = threading.Event()

    def run(self) -> None:
        try:  # notices a crash left unqueued (between an append and its sweep)
            outbox.sweep_all(self.service)
        except Exception:
            pass
        while not self.stopping.is_set():
            try:
                deliver_due(self.service)
            except Exception:  # the store away for a moment: try again next round
                pass
            for more in self.service.senders:  # what other rooms send (referee/system.py hands them over)
                try:
                    more(self.service)
                except Exception:
                    pass
            self.stopping.wait(self.interval)

    def stop(self) -> None:
        self.stopping.set()


def start_sender(service, interval: float = 1.0) -> Sender:
    sender = Sender(service, interval)
    sender.start()
    return sender
