"""The player store's due mail, sent: confirmations, invitations to open games and
to leagues, new tokens for lost ones. Each room keeps its messages due in the
player store under a key of its own shape and composes its own message
(``DueKind``); one loop reads what is due once a round, claims each entry before
sending it (so several processes never send one twice), and backs off a message
the SMTP server refused. The background sender's round reads what is due once for
every kind (each kind's own ``deliver_due`` reads it for that kind alone, to send at
once what was just asked for)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from email.message import EmailMessage

from referee.mail import outbox, sending
from referee.players.store import players_of


@dataclass(frozen=True)
class DueKind:
    """One room's due messages: which keys are its, and the message a key makes now
    (None: nothing to send any more, e.g. the invitation was answered)."""

    owns: Callable[[str], bool]
    compose: Callable[[object, str, float], EmailMessage | None]


def deliver(service, kinds: Sequence[DueKind], now: float | None = None, limit: int = 50) -> int:
    """Send the messages of ``kinds`` due at ``now``; returns how many were sent."""
    players = players_of(service)
    now = time.time() if now is None else now
    sent = 0
    for entry in players.due_mail(now, limit):
        key = entry["player"]
        kind = next((k for k in kinds if k.owns(key)), None)
        if kind is None or not players.claim_mail(entry, now + sending.lease()):
            continue
        message = kind.compose(service, key, now)
        if message is None:
            players.mail_done(key)
            continue
        attempts = entry["attempts"] + 1
        try:
            sending.send_email(message)
        except Exception as err:  # a failing SMTP server: later, with backoff
            players.mail_failed(key, attempts, now + outbox.backoff(attempts), f"{type(err).__name__}: {err}"[:500])
            continue
        players.mail_done(key)
        sent += 1
    return sent


def sender(kinds: Sequence[DueKind]) -> Callable[[object], int]:
    """The background sender's round for ``kinds`` (referee/system.py hands it over)."""
    return lambda service: deliver(service, kinds)
