"""Which notices a seat's player is sent, by their ``notices`` setting.

The outbox's sweep asks before it queues a notice the log makes due; what it
skips is not lost: the seat's cursor stays where it was, so its next notice tells
everything since the last one it was sent. Notices queued on their own (a
reminder, the answer to a mail, a league's standings) are never asked about: a
player always hears of a deadline and of what they sent.
"""

from __future__ import annotations

from referee.calendar import settings as st
from referee.leagues.advancing import MARK as LEAGUE_MARK

# ``turns``: the seat's own turns, a game's start (how a league's new round reaches
# its players) and end, and its own timeouts; not every trick and hand of others.
TURNS = frozenset({"start", "turn", "game-over", "timeout"})
# ``daily``: what ``turns`` keeps but the turns themselves, which the day's digest
# gathers into one mail at the player's hour (referee/calendar/digest.py)
DAILY = TURNS - {"turn"}


def player_of(record, seat: int) -> str | None:
    """The player holding ``seat`` of the game (None: a name, a bot, or an onlooker)."""
    contact = record.extra.get("contacts", {}).get(str(seat)) or {}
    return contact.get("player")


def wanted(calendar_store, record, seat: int, reason: str) -> bool:
    """Whether the sweep's notice of ``reason`` for ``seat`` is to be sent."""
    pid = player_of(record, seat) if seat >= 0 else None
    if pid is None:
        return True
    mode = st.notices_in(calendar_store.settings(pid), bool(record.extra.get(LEAGUE_MARK)))
    return mode == "each" or reason in (DAILY if mode == "daily" else TURNS)
