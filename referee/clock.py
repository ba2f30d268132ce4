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

from referee import weekends
from referee.events import Draft
from referee.games.base import MalformedMove, RefereeError

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
    if "kind" in clock:
        if clock["kind"] != BANK:
            raise MalformedMove(f"clock.kind is {BANK!r} (a time bank), or left out for a time a move",
                                field="options.clock.kind")
        return check_bank(clock)
    unknown = set(clock) - {"move_seconds", "remind_seconds", "on_timeout", "vacation_days"}
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
    return {"move_seconds": move, "remind_seconds": remind,
            "on_timeout": check_on_timeout(clock.get("on_timeout", "remind")), **vacation_days(clock)}


def vacation_days(clock: dict) -> dict:
    """``vacation_days`` (a league's, say): how many days of auto vacation a seat may
    draw in the game; 0: the game's clocks stop for no vacation at all. Kept only
    when given (no limit without it)."""
    if "vacation_days" not in clock:
        return {}
    days = clock["vacation_days"]
    if not _whole(days) or not 0 <= days <= 366:
        raise MalformedMove("clock.vacation_days must be a whole number of days from 0 (no vacations) to 366",
                            field="options.clock.vacation_days")
    return {"vacation_days": days}


def _whole(n) -> bool:
    return isinstance(n, int) and not isinstance(n, bool)


# Excused misses: ``{"excused": N, "then": "forfeit" | "autoplay"}``: a seat's first N
# timeouts in the game have the basic bot play its whole turn (a timeout's ``turn``),
# the next ones end as ``then``. Most a game excuses: more than any league would.
THEN = ("forfeit", "autoplay")
MAX_EXCUSED = 100
TURN = "turn"


def check_on_timeout(value):
    """``on_timeout`` checked: one of ON_TIMEOUT, or excused misses (complete)."""
    if isinstance(value, dict):
        unknown = set(value) - {"excused", "then"}
        if unknown:
            raise MalformedMove(f"unknown on_timeout field(s): {', '.join(sorted(unknown))}",
                                field=f"options.clock.on_timeout.{sorted(unknown)[0]}")
        excused = value.get("excused")
        if not _whole(excused) or not 1 <= excused <= MAX_EXCUSED:
            raise MalformedMove(f"clock.on_timeout.excused must be a whole number from 1 to {MAX_EXCUSED}",
                                field="options.clock.on_timeout.excused")
        then = value.get("then", "forfeit")
        if then not in THEN:
            raise MalformedMove(f"clock.on_timeout.then must be one of {', '.join(THEN)}",
                                field="options.clock.on_timeout.then")
        return {"excused": excused, "then": then}
    if value not in ON_TIMEOUT:
        raise MalformedMove(f"clock.on_timeout must be one of {', '.join(ON_TIMEOUT)}, or "
                            '{"excused": N, "then": "forfeit" | "autoplay"}', field="options.clock.on_timeout")
    return value


def on_timeout_now(table, seat: int) -> dict:
    """What a timeout of ``seat`` now does, as its event says it: ``{"on_timeout"}``,
    and under excused misses which one this is (``{"on_timeout": "turn",
    "excused": k}``) or the clock's ``then`` once they are spent."""
    rule = table.clock["on_timeout"]
    if not isinstance(rule, dict):
        return {"on_timeout": rule}
    missed = table.missed.get(seat, 0)
    if missed < rule["excused"]:
        return {"on_timeout": TURN, "excused": missed + 1}
    return {"on_timeout": rule["then"]}


# ---- time banks --------------------------------------------------------------------
# A bank clock: each seat starts with ``initial_seconds``, its time to act is drawn
# from it, and it gains ``increment_seconds`` each time its turn ends, never above
# ``max_seconds`` (a Fischer increment with a cap). A seat's deadline is when its
# bank would run out. Banks are kept in whole microseconds, the log's own
# resolution, so every replay computes the very same deadlines.

BANK = "bank"
BANK_FIELDS = ("kind", "initial_seconds", "increment_seconds", "max_seconds", "remind_seconds", "on_timeout",
               "vacation_days")
MICRO = 1_000_000


def is_bank(clock: dict | None) -> bool:
    return clock is not None and clock.get("kind") == BANK


def check_bank(clock: dict) -> dict:
    unknown = set(clock) - set(BANK_FIELDS)
    if unknown:
        raise MalformedMove(f"unknown clock field(s): {', '.join(sorted(unknown))}",
                            field=f"options.clock.{sorted(unknown)[0]}")
    initial = clock.get("initial_seconds")
    if not _whole(initial) or not MIN_MOVE_SECONDS <= initial <= MAX_MOVE_SECONDS:
        raise MalformedMove(f"clock.initial_seconds must be a whole number of seconds from {MIN_MOVE_SECONDS} "
                            f"to {MAX_MOVE_SECONDS}", field="options.clock.initial_seconds")
    increment = clock.get("increment_seconds", 0)
    if not _whole(increment) or not 0 <= increment <= MAX_MOVE_SECONDS:
        raise MalformedMove(f"clock.increment_seconds must be a whole number of seconds from 0 to "
                            f"{MAX_MOVE_SECONDS}", field="options.clock.increment_seconds")
    most = clock.get("max_seconds", initial)
    if not _whole(most) or not initial <= most <= MAX_MOVE_SECONDS:
        raise MalformedMove(f"clock.max_seconds must be a whole number of seconds from initial_seconds to "
                            f"{MAX_MOVE_SECONDS}", field="options.clock.max_seconds")
    remind = clock.get("remind_seconds", 0)
    if not _whole(remind) or not 0 <= remind < most:
        raise MalformedMove("clock.remind_seconds must be a whole number from 0 (no reminder) to less "
                            "than max_seconds", field="options.clock.remind_seconds")
    return {"kind": BANK, "initial_seconds": initial, "increment_seconds": increment, "max_seconds": most,
            "remind_seconds": remind, "on_timeout": check_on_timeout(clock.get("on_timeout", "remind")),
            **vacation_days(clock)}


# ---- a seat's own time: weekends off -------------------------------------------------
# A seat's time this turn is counted from a mark: (when, microseconds used before it,
# the zone whose weekends do not count, or None). Without a calendar of the seat's
# the mark is its time's start, nothing used, every moment counting; a seat's
# calendar in the log (``seat-calendar``) sets a mark at the change, so the time used
# before it is counted as it was and the time after it in the new way.


def mark_of(table, seat: int) -> tuple:
    return table.marks.get(seat) or (table.since[seat], 0, None)


def running_from(table, seat: int, m_at: str) -> str:
    """Where the seat's own time runs from after its mark: the mark, or the end of
    the pause it is in (referee/vacations.py: a pause's start always sets a mark)."""
    away = table.away.get(seat)
    return max(m_at, away["until"]) if away else m_at


def used(table, seat: int, at: str) -> int:
    """Microseconds of ``seat``'s own time used this turn by ``at``."""
    m_at, spent, tz = mark_of(table, seat)
    return spent + weekends.running(parse_at(running_from(table, seat, m_at)), parse_at(at), tz)


def _budget(table, seat: int) -> int:
    return bank_of(table, seat) if is_bank(table.clock) else table.clock["move_seconds"] * MICRO


def _when_used(table, seat: int, amount: int) -> str:
    """When ``seat`` will have used ``amount`` microseconds of its own time this turn."""
    m_at, spent, tz = mark_of(table, seat)
    return format_at(weekends.advance(parse_at(running_from(table, seat, m_at)), max(0, amount - spent), tz))


def marked(table, acting: list[int], ev) -> dict:
    """The marks after ``ev`` (a new mapping): a seat whose time starts at ``ev``
    counts from it in its calendar's way; the others keep theirs while they act."""
    out = {}
    for seat in acting:
        if table.since_seq.get(seat) == ev.seq:
            if table.calendars.get(seat):
                out[seat] = (ev.at, 0, table.calendars[seat])
        elif seat in table.marks:
            out[seat] = table.marks[seat]
    return out


def apply_calendar(table, ev) -> None:
    """Take on a ``seat-calendar`` event: the seat's weekends from now on, its time
    this turn counted the old way until now."""
    seat, zone = ev.payload["seat"], ev.payload["timezone"] if ev.payload["weekends_off"] else None
    if seat in table.since and table.clock is not None and not table.paused:
        table.marks = {**table.marks, seat: (ev.at, used(table, seat, ev.at), zone)}
    table.calendars = {**{k: v for k, v in table.calendars.items() if k != seat}, **({seat: zone} if zone else {})}


def bank_of(table, seat: int) -> int:
    """What ``seat``'s bank held when its time last started (microseconds)."""
    return table.banks.get(seat, table.clock["initial_seconds"] * MICRO)


def _micro(since_at: str, at: str) -> int:
    return (parse_at(at) - parse_at(since_at)) // timedelta(microseconds=1)


def spend(table, acting: list[int], ev) -> dict:
    """The banks after ``ev``, as a new mapping: each seat whose time stops at
    ``ev`` (its turn ends, or it acts and stays to act, its time starting again)
    pays what it used since its time started (never below empty), and a seat whose
    turn ends gains the increment, up to the cap. Unchanged without a running bank."""
    if not is_bank(table.clock) or table.paused:
        return table.banks
    clock, banks = table.clock, dict(table.banks)
    for seat in table.since:
        ended = seat not in acting
        if not ended and ev.actor != seat:
            continue
        left = max(0, bank_of(table, seat) - used(table, seat, ev.at))
        if ended:
            left = min(clock["max_seconds"] * MICRO, left + clock["increment_seconds"] * MICRO)
        banks[seat] = left
    return banks


def banks(table) -> list[dict]:
    """[{seat, seconds}] of every seat under a bank clock (empty under any other):
    what its bank held when its time last started (a seat to act has its deadline
    that many seconds after its time started)."""
    if not is_bank(table.clock):
        return []
    return [{"seat": seat, "seconds": bank_of(table, seat) / MICRO} for seat in range(table.state.players)]


def seat_deadline(table, seat: int) -> str | None:
    """The deadline of ``seat`` (to act, its time started), under either clock:
    when its own time (its weekends left out) reaches the time a move or its bank."""
    if table.clock is None or seat not in table.since:
        return None
    return _when_used(table, seat, _budget(table, seat))


def seat_reminder(table, seat: int) -> str | None:
    """When ``seat`` is reminded, under either clock: ``remind_seconds`` of its own
    time before its deadline (None: no reminder; none either when its time a move or
    bank holds no more than that, or that moment of its time is behind it)."""
    if table.clock is None or seat not in table.since or not table.clock["remind_seconds"]:
        return None
    at = _budget(table, seat) - table.clock["remind_seconds"] * MICRO
    if at <= 0 or (seat in table.marks and at < table.marks[seat][1]):
        return None
    return _when_used(table, seat, at)


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
    return [{"seat": seat, "deadline": seat_deadline(table, seat), "overdue": timed_out(table, seat)}
            for seat in table.to_act() if seat in table.since]


def timed_out(table, seat: int) -> bool:
    """Whether ``seat``'s timeout fired for the time it is on now."""
    return seat in table.since and table.timed_out.get(seat) == table.since[seat]


# ---- what falls due: reminders and timeouts ----------------------------------------

REMINDER, DEADLINE, RESUME = "reminder", "deadline", "resume"


def timers(table) -> list[dict]:
    """Every reminder and deadline still to fire for the seats to act now, as
    ``{at, kind, seat, started}`` (``started``: the version whose event started the
    seat's time, which names its reminder notice): none without a clock, while it
    is paused, while the referee has a step to take, or once the game is over. A
    paused seat's vacation's end (``{at, kind: "resume", seat, reason}``,
    referee/vacations.py) is among them whatever the clock does, until the game
    is over."""
    out = [] if table.over else [{"at": a["until"], "kind": RESUME, "seat": seat, "reason": a["reason"]}
                                 for seat, a in sorted(table.away.items())]
    if table.clock is None or table.paused or table.held or table.due() is not None:
        return out
    for seat in table.to_act():
        if seat not in table.since or timed_out(table, seat):
            continue
        started_seq = table.since_seq.get(seat, table.seq)
        remind = seat_reminder(table, seat)
        if remind is not None:
            out.append({"at": remind, "kind": REMINDER, "seat": seat, "started": started_seq})
        out.append({"at": seat_deadline(table, seat), "kind": DEADLINE, "seat": seat, "started": started_seq})
    return sorted(out, key=lambda t: (t["at"], t["kind"] != RESUME, t["kind"] != DEADLINE, t["seat"]))


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
    moment the clock is set, changed or resumed). Under a bank clock a pause keeps
    each bank as it was at the pause (the time used until then paid), a resume
    goes on from there, and a new bank clock fills every bank afresh."""
    if is_bank(table.clock) and not table.paused:  # the time used until now is paid
        table.banks = {**table.banks, **{seat: max(0, bank_of(table, seat) - used(table, seat, ev.at))
                                         for seat in table.since}}
    if ev.payload["clock"] != table.clock:
        table.banks = {}
    table.clock, table.paused = ev.payload["clock"], ev.payload["paused"]
    table.since = {seat: ev.at for seat in table.to_act()} if table.clock is not None else {}
    table.since_seq = {seat: ev.seq for seat in table.since}
    table.marks = {seat: (ev.at, 0, table.calendars[seat]) for seat in table.since if table.calendars.get(seat)}


# ---- a timeout's event -------------------------------------------------------------


class NotDue(RefereeError):
    code, status = "no-timeout-due", 409


def timeout_payload(table, seat: int, at: str) -> dict:
    """What ``seat-timed-out`` for ``seat`` at ``at`` says: the seat, its deadline
    and what the clock does about it. Raises ``NotDue`` unless the seat is to act
    with a deadline passed by ``at`` and not yet timed out (the audit asks the same)."""
    if table.clock is None or table.paused or table.held or table.due() is not None:
        raise NotDue("no clock is running")
    if seat not in table.to_act() or seat not in table.since or timed_out(table, seat):
        raise NotDue(f"seat {seat} has no deadline running")
    deadline = seat_deadline(table, seat)
    if at < deadline:
        raise NotDue(f"seat {seat}'s deadline is {deadline}, not yet passed at {at}")
    return {"seat": seat, "deadline": deadline, **on_timeout_now(table, seat)}


def forfeit_draft(table) -> Draft:
    """The referee's ``forfeited``: the seat out of time leaves as if it had
    resigned: the game ends (the others' scores decide the winners, the reason
    said), or, in a game that plays on, goes on without the seat."""
    seat = min(s for s, what in table.owed.items() if what == "forfeit")
    return Draft("forfeited", {"seat": seat, **table.engine.leaving(table.state, seat, "ran out of time")})
