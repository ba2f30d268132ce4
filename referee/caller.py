"""Who is asking, and the tokens that say so: at the bottom of the house with the
errors (referee/errors.py), so the API, the mail gateway, the clocks and the
service all speak of a caller the same way without importing each other.

A token is never kept: the store holds its SHA-256 (``token_hash``), and a
presented token is compared with every stored hash in constant time.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass, field

from referee.store.base import GameRecord


@dataclass(frozen=True)
class Caller:
    """Who is asking: a seat number, ADMIN, or None (a spectator, no token)."""

    viewer: int | str | None
    token_hash: str = ""
    # The game's record as read to check the token, so the same request need not
    # read it again.
    record: GameRecord | None = field(default=None, compare=False, repr=False)
    # Whether that record is the copy this process kept from an earlier request
    # (``GameService.caller(kept=True)``), not one read for this request.
    kept: bool = field(default=False, compare=False, repr=False)

    @property
    def seat(self) -> int | None:
        return self.viewer if isinstance(self.viewer, int) else None


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(24)
