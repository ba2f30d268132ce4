"""A player's calendar settings: what they are, their defaults, and the check of a
change (``PATCH /v1/players/me``), which names the field of a bad value and keeps
nothing of a body with one.

``notices`` left unset (null) means the defaults, which depend on the game: every
notice (``each``) in a game outside leagues, only the seat's turns, results and
league rounds (``turns``) in a league game, where fifteen short games would
otherwise send a player well over a hundred mails.
"""

from __future__ import annotations

from referee.games.base import MalformedMove
from referee.weekends import zones

NOTICES = ("each", "turns", "daily")
DEFAULTS = {"timezone": "UTC", "weekends_off": False, "auto_vacation": True, "notices": None,
            "digest_hour": 8}
FIELDS = tuple(DEFAULTS)
# the settings that say when a player's digest is due (a change of one moves it)
DIGEST_TIMING = ("notices", "digest_hour", "timezone")


def _flag(value, field: str) -> bool:
    if not isinstance(value, bool):
        raise MalformedMove(f"{field} must be true or false", field=field)
    return value


def check(body: dict) -> dict:
    """The settings ``body`` changes, each checked (only the keys of FIELDS are
    looked at; the caller refuses the others). Raises ``MalformedMove`` naming the
    first bad field."""
    out = {}
    if "timezone" in body:
        tz = body["timezone"]
        if not isinstance(tz, str) or len(tz) > 64 or tz not in zones():
            raise MalformedMove("timezone must be an IANA time zone name, e.g. Europe/Paris or "
                                "America/New_York", field="timezone")
        out["timezone"] = tz
    for field in ("weekends_off", "auto_vacation"):
        if field in body:
            out[field] = _flag(body[field], field)
    if "notices" in body:
        notices = body["notices"]
        if notices is not None and notices not in NOTICES:
            raise MalformedMove(f"notices must be one of {', '.join(NOTICES)}, or null for the defaults "
                                "(each outside leagues, turns in a league)", field="notices")
        out["notices"] = notices
    if "digest_hour" in body:
        hour = body["digest_hour"]
        if not isinstance(hour, int) or isinstance(hour, bool) or not 0 <= hour <= 23:
            raise MalformedMove("digest_hour must be a whole hour from 0 to 23, the player's local time",
                                field="digest_hour")
        out["digest_hour"] = hour
    return out


def complete(kept: dict | None) -> dict:
    """Every setting: those kept, the defaults for the rest."""
    return {**DEFAULTS, **{k: v for k, v in (kept or {}).items() if k in DEFAULTS}}


def notices_in(settings: dict, league_game: bool) -> str:
    """What ``notices`` means for one game: the player's choice, else the default
    of a league game (``turns``) or of any other (``each``)."""
    return settings.get("notices") or ("turns" if league_game else "each")
