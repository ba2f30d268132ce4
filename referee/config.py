"""Configuration: from arguments, else the environment, else embedded defaults."""

from __future__ import annotations

import os
from dataclasses import dataclass

DEFAULT_STORE = "sqlite:///referee.db"
DEFAULT_VACATION_DAYS = 21


def vacation_days() -> int:
    """Vacation days each player has a calendar year (``REFEREE_VACATION_DAYS``),
    read when asked, so a changed setting counts at once (docs/running.md)."""
    given = os.environ.get("REFEREE_VACATION_DAYS", "").strip()
    return int(given) if given.isdigit() else DEFAULT_VACATION_DAYS


@dataclass
class Config:
    store: str = DEFAULT_STORE
    # "inline" runs referee jobs in the process that made them due; a redis:// URL
    # sends them to RQ for `referee worker`.
    queue: str = "inline"

    @classmethod
    def load(cls, store: str | None = None, queue: str | None = None) -> Config:
        store = store or os.environ.get("REFEREE_STORE") or DEFAULT_STORE
        queue = queue or os.environ.get("REFEREE_QUEUE")
        if not queue:
            queue = store if store.startswith(("redis://", "rediss://", "unix://")) else "inline"
        return cls(store, queue)
