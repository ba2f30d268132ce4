"""Clocks: the ``clock`` option and every seat's deadline.

A game may carry ``options.clock = {move_seconds, remind_seconds, on_timeout}``.
It is checked once here for every game (beside, not inside, the engines' own
options) and kept in the first event's options, so the log records it.

A deadline is a pure function of the log: a seat that is to act must act within
``move_seconds`` of the moment its time started, and its time starts at the
``at`` of the event that made it one of the seats to act, and again at each event
of its own while it stays to act (a turn of several moves gets fresh time after
each move). Several seats to act at once each have their own deadline. Nothing
here reads a clock on the wall: the same log gives the same deadlines in any
process, years later, which is what lets an audit check a timeout against it.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from referee.games.base import MalformedMove

ON_TIMEOUT = ("remind", "autoplay", "forfeit")
# A year: longer than any league's turn, short enough that a typo (seconds
# meant as milliseconds) is refused rather than kept for decades.
MAX_MOVE_SECONDS = 366 * 24 * 3600
# Five seconds: live play through an app (a blitz clock) as well as play by post;
# shorter than that the keeper's one-second rounds would be a noticeable share.
MIN_MOVE_SECONDS = 5
AT_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"


def check_clock(clock) -> dict | None:
    """The clock option complete (defaults filled in), or None for no clock.
    Raises ``MalformedMove`` naming the field."""
    if clock is None:
        return None
    if not isinstance(clock, dict):
        raise MalformedMove("clock must be an object {move_seconds, remind_seconds, on_timeout}",
                            field="options.clock")
    unknown = set(clock) - {"move_seconds", "remind_seconds", "on_timeout"}
    if unknown:
        raise MalformedMove(f"unknown clock field(s): {', '.join(sorted(unknown))}",
                            field=f"options.clock.{sorted(unknown)[0]}")
    move = clock.get("move_seconds")
    if not _whole(move) or not MIN_MOVE_SECONDS <= move <= MAX_MOVE_SECONDS:
        raise MalformedMove(f"clock.move_seconds must be a whole number of seconds from {MIN_MOVE_SECONDS} to "
                            f"{MAX_MOVE_SECONDS}", field="options.clock.move_seconds")
    remind = clock.get("remind_seconds", 0)
    if not _whole(remind) or not 0 <= remind < move:
        raise MalformedMove("clock.remind_seconds must be a whole number from 0 (no reminder) to less "
                            "than move_seconds", field="options.clock.remind_seconds")
    on_timeout = clock.get("on_timeout", "remind")
    if on_timeout not in ON_TIMEOUT:
        raise MalformedMove(f"clock.on_timeout must be one of {', '.join(ON_TIMEOUT)}",
                            field="options.clock.on_timeout")
    return {"move_seconds": move, "remind_seconds": remind, "on_timeout": on_timeout}


def _whole(n) -> bool:
    return isinstance(n, int) and not isinstance(n, bool)


def started(since: dict, acting: list[int], ev) -> dict:
    """When each seat to act after ``ev`` started its time: a new mapping (never
    changed in place, so a proposal's table shares nothing with its original).
    A seat keeps its start while it stays to act, unless ``ev`` is its own."""
    return {seat: (ev.at if seat not in since or ev.actor == seat else since[seat]) for seat in acting}


def parse_at(at: str) -> datetime:
    return datetime.strptime(at, AT_FORMAT).replace(tzinfo=UTC)


def format_at(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime(AT_FORMAT)


def deadline(clock: dict | None, since_at: str | None) -> str | None:
    """The deadline of a seat whose time started at ``since_at`` (UTC, ISO 8601)."""
    if clock is None or since_at is None:
        return None
    return format_at(parse_at(since_at) + timedelta(seconds=clock["move_seconds"]))


def reminder(clock: dict | None, since_at: str | None) -> str | None:
    """When the seat is reminded (None without a reminder)."""
    if clock is None or since_at is None or not clock["remind_seconds"]:
        return None
    return format_at(parse_at(since_at) + timedelta(seconds=clock["move_seconds"] - clock["remind_seconds"]))


def deadlines(table) -> list[dict]:
    """[{seat, deadline, overdue}] for every seat to act now (empty without a
    clock or while it is paused). ``overdue``: its timeout has fired and it is
    still to act (only ``remind`` leaves a seat so)."""
    if table.clock is None or table.paused or table.held:
        return []
    return [{"seat": seat, "deadline": deadline(table.clock, table.since.get(seat)),
             "overdue": timed_out(table, seat)}
            for seat in table.to_act() if seat in table.since]


def timed_out(table, seat: int) -> bool:
    """Whether ``seat``'s timeout fired for the time it is on now."""
    return seat in table.since and table.timed_out.get(seat) == table.since[seat]


# ---- what falls due: reminders and timeouts ----------------------------------------

REMINDER, DEADLINE = "reminder", "deadline"


def timers(table) -> list[dict]:
    """Every reminder and deadline still to fire for the seats to act now, as
    ``{at, kind, seat, started}`` (``started``: the version whose event started the
    seat's time, which names its reminder notice). Empty without a clock, while it
    is paused, while the referee has a step to take, or once the game is over."""
    if table.clock is None or table.paused or table.held or table.due() is not None:
        return []
    out = []
    for seat in table.to_act():
        if seat not in table.since or timed_out(table, seat):
            continue
        started_at, started_seq = table.since[seat], table.since_seq.get(seat, table.seq)
        remind = reminder(table.clock, started_at)
        if remind is not None:
            out.append({"at": remind, "kind": REMINDER, "seat": seat, "started": started_seq})
        out.append({"at": deadline(table.clock, started_at), "kind": DEADLINE, "seat": seat,
                    "started": started_seq})
    return sorted(out, key=lambda t: (t["at"], t["kind"] != DEADLINE, t["seat"]))


def next_timer(table, after: str | None = None) -> str | None:
    """The moment the game's keeper must next look at it (the earliest timer, or
    the earliest later than ``after``), or None: what the store's index keeps."""
    moments = [t["at"] for t in timers(table) if after is None or t["at"] > after]
    return min(moments) if moments else None


def started_seqs(since_seq: dict, acting: list[int], ev) -> dict:
    """As ``started``, the version (seq) of the event each seat's time started at."""
    return {seat: (ev.seq if seat not in since_seq or ev.actor == seat else since_seq[seat])
            for seat in acting}


# ---- the admin's tools: change or pause a clock ------------------------------------

CLOCK_CHANGED = "clock-changed"


def change_payload(current: dict | None, paused: bool, body) -> dict:
    """The ``clock-changed`` payload an admin's body asks for: the clock and the
    pause as they are after the change (so replaying one event is enough).
    ``body`` is ``{"clock": {...} | null}`` or ``{"paused": true | false}``."""
    if not isinstance(body, dict) or len(body) != 1 or not set(body) <= {"clock", "paused"}:
        raise MalformedMove('give exactly one of {"clock": {...}} (null: no clock) or '
                            '{"paused": true|false}', field="body")
    if "clock" in body:
        clock = body["clock"]
        try:
            return {"clock": check_clock(clock), "paused": paused}
        except MalformedMove as err:
            err.extra["field"] = err.extra.get("field", "clock").replace("options.clock", "clock")
            raise
    if not isinstance(body["paused"], bool):
        raise MalformedMove("paused must be true or false", field="paused")
    if current is None:
        raise MalformedMove("this game has no clock to pause: set one with {\"clock\": {...}}",
                            field="paused")
    return {"clock": current, "paused": body["paused"]}


def apply_change(table, ev) -> None:
    """Take on a ``clock-changed`` event: the new clock and pause, and every seat
    to act starts its time again at the change (a full ``move_seconds`` from the
    moment the clock is set, changed or resumed)."""
    table.clock, table.paused = ev.payload["clock"], ev.payload["paused"]
    table.since = {seat: ev.at for seat in table.to_act()} if table.clock is not None else {}
    table.since_seq = {seat: ev.seq for seat in table.since}
