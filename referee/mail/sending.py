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

import hashlib
import hmac
import json
import os
import smtplib
import threading
import time
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import formatdate
from urllib.parse import urlsplit

from referee.mail import outbox, webhooks

LEASE = 120.0  # seconds a claimed notice is left to its sender before another may try


def lease() -> float:
    """REFEREE_NOTICE_LEASE overrides LEASE: it bounds how long a notice claimed by a
    sender that died waits before another sender takes it (the fault tests shorten it)."""
    return float(os.environ.get("REFEREE_NOTICE_LEASE", LEASE))


def settings() -> dict:
    return {"smtp": os.environ.get("REFEREE_SMTP_URL", ""),
            "from": os.environ.get("REFEREE_MAIL_FROM", "referee@localhost"),
            "domain": os.environ.get("REFEREE_MAIL_DOMAIN", "localhost")}


def mail_secret(service) -> bytes:
    """The server secret that keys reply addresses: REFEREE_MAIL_SECRET if set, else
    one generated once and kept in the store (so every process and restart agrees)."""
    env = os.environ.get("REFEREE_MAIL_SECRET")
    if env:
        return env.encode()
    return outbox.outbox_of(service).secret().encode()


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


def notice_text(body: dict) -> str:
    """The notice as plain text: what happened, the view, the moves, the deadline."""
    lines = [f"{body['name']}, game {body['game']} ({body['game_type']}), version {body['version']}."]
    headline = {"start": "The game has begun.", "trick": "A trick was taken.", "hand": "A hand is over.",
                "turn": "It is your turn.", "game-over": "The game is over.",
                "reminder": "Reminder: it is your turn.", "timeout": "Your time ran out.",
                "refused": "Your mailed move was refused.", "show": "The game as it stands.",
                "applied": "Your mailed move was applied.", "help": "How to play by e-mail."}
    lines.append(headline.get(body["reason"], body["reason"]))
    if body.get("note"):
        lines.append(body["note"])
    if body["happened"]:
        lines += ["", "Since your last notice:"] + [f"  {h}" for h in body["happened"]]
    lines += ["", body["text"].rstrip()]
    if body["legal"]:
        lines += ["", "Your legal moves:"] + [f"  {m}" for m in body["legal"]]
        lines += ["", f"Reply with your moves on the first lines (add #{body['version']} to apply "
                      "them only at this version); 'show' resends this notice, 'help' explains."]
    elif body["to_act"] and body["status"] == "active":
        lines += ["", "Waiting for: " + ", ".join(body["to_act"])]
    if body.get("deadline"):
        lines.append(f"Your deadline: {body['deadline']}")
    return "\n".join(lines) + "\n"


def email_of(service, notice: dict, to: str) -> EmailMessage:
    s = settings()
    body = notice["body"]
    msg = EmailMessage()
    msg["From"] = s["from"]
    msg["To"] = to
    msg["Reply-To"] = reply_address(service, notice["game"], notice["seat"])
    msg["Subject"] = f"[{notice['game']}] {body['game_type']}: {body['reason']} (version {body['version']})"
    msg["Message-ID"] = f"<{notice['id']}@{s['domain']}>"
    msg["Date"] = formatdate(localtime=False)
    msg["Auto-Submitted"] = "auto-generated"  # RFC 3834: no auto-replies to notices
    if body.get("in_reply_to"):  # an answer to a player's mail: threaded under it
        msg["In-Reply-To"] = msg["References"] = body["in_reply_to"]
    msg.set_content(notice_text(body))
    return msg


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
        raise RuntimeError(f"webhook answered {status}")


def deliver(service, notice: dict) -> None:
    """Send one notice on each of its seat's channels (raises on a failure). A
    refused webhook (WebhookRefused, raised last) does not keep the e-mail back."""
    rec = service.record(notice["game"])
    if notice["seat"] == outbox.SPECTATORS:
        contact = rec.extra.get("spectators") or {}
    else:
        contact = rec.extra.get("contacts", {}).get(str(notice["seat"]), {})
    if contact.get("email"):
        send_email(email_of(service, notice, contact["email"]))
    if contact.get("webhook"):
        send_webhook(contact["webhook"], contact["webhook_secret"], notice,
                     {"type": f"notice.{notice['reason']}", "id": notice["id"], **notice["body"],
                      "message": notice_text(notice["body"])})


def deliver_due(service, now: float | None = None, limit: int = 100) -> int:
    """Deliver every notice due now; return how many were sent. Safe to run in
    several processes at once: each notice is claimed before it is sent."""
    box = outbox.outbox_of(service)
    now = time.time() if now is None else now
    sent = 0
    for notice in box.due(now, limit):
        if not box.claim(notice, now + lease()):
            continue
        attempts = notice["attempts"] + 1
        try:
            deliver(service, notice)
        except webhooks.WebhookRefused as err:  # no later try would be let through either
            box.mark(notice["id"], "failed", attempts, now, f"webhook refused: {err}"[:500])
            continue
        except Exception as err:  # a failing SMTP server or webhook: later, with backoff
            box.mark(notice["id"], "pending", attempts, now + outbox.backoff(attempts), f"{type(err).__name__}: {err}"[:500])
            continue
        box.mark(notice["id"], "sent", attempts, now, None)
        sent += 1
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
            for more in EVERY_ROUND:  # what other rooms send (referee/system.py registers them)
                try:
                    more(self.service)
                except Exception:
                    pass
            self.stopping.wait(self.interval)

    def stop(self) -> None:
        self.stopping.set()


# Other senders the background sender runs each round, ``deliver(service)``: the
# players' confirmation messages a first try did not send, for one.
EVERY_ROUND: list = []


def start_sender(service, interval: float = 1.0) -> Sender:
    sender = Sender(service, interval)
    sender.start()
    return sender
