"""The server secret that keys reply addresses and seats' page links."""

from __future__ import annotations

import os

from referee.mail import outbox


def mail_secret(service) -> bytes:
    """REFEREE_MAIL_SECRET if set, else one generated once and kept in the store (so
    every process and restart agrees)."""
    env = os.environ.get("REFEREE_MAIL_SECRET")
    if env:
        return env.encode()
    return outbox.outbox_of(service).secret().encode()
