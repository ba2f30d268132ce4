"""Audit an exported log (JSON Lines): trust nothing, re-derive everything.

Checked in order, stopping at the first divergence, which is reported with the
event's position (``seq``), a ``code`` and a readable ``detail``:

* each line is canonical JSON of an event (so a flipped byte anywhere shows);
* ``seq`` runs 1, 2, 3... and every ``prev`` is the previous ``hash``;
* every ``hash`` is the SHA-256 of its event;
* the first event creates a known game with options its engine accepts;
* every player's move was legal at its point, and the events it wrote are exactly
  the ones the engine derives from it;
* every referee event is the step that was due, with exactly the derived events
  (deals re-dealt from the seed, hands rescored, the end re-detected);
* the revealed seed matches the commitment in the first event, and every
  event's salt is the one derived from it; in a game of contributions, the
  revealed secret part matches the commitment, and the revealed seed is the one
  it and the contributions recorded in the first event give (referee/entropy.py),
  the seed every deal is then re-dealt from.

While a game runs its seed is secret, so its random steps (deals) cannot be
re-derived yet: they are taken as logged and the report says ``seed: unrevealed``.
"""

from __future__ import annotations

import json
from operator import attrgetter

import orjson

from referee import entropy, vacations
from referee import rng as rngmod
from referee.disputes import ledger as ledgermod
from referee.events import REFEREE, Event, Salts
from referee.games import engine as engine_by_name
from referee.games.base import RefereeError
from referee.log_lines import (
    Divergence,
    no_gc_pauses,
    parse,
    payload_text,
    read_lines,
    written_as,
)
from referee.table import BOT_MOVE, SEAT_TIMED_OUT, Table, bot_kinds, is_take_back
from referee.weekends import SEAT_CALENDAR

_dumps, _SORTED = orjson.dumps, orjson.OPT_SORT_KEYS
_TYPE = attrgetter("type")
_NONE = (None,)
# what ``table.due()`` may say between the events of one step taken as logged
_MIDWAY = (None, BOT_MOVE)

# Referee events that are no step of the game's rules (written on an admin's or a
# clock's say, not because the engine owed them): never part of a random step
# taken as logged. Each is checked by a branch of its own in ``_replay``.
NOT_STEPS = {"game-aborted", "clock-changed", "seat-replaced", SEAT_TIMED_OUT, SEAT_CALENDAR, ledgermod.RULED,
             vacations.CLOCK_PAUSED, vacations.CLOCK_RESUMED}


def _same(derived: list, actor, logged: list[Event], seq: int, what) -> None:
    """The derived drafts (or events), written as ``actor``, are the logged ones.
    ``what`` names what wrote them, asked only for a divergence's words: a function
    for a step, since nearly every event agrees; None for the move of ``actor``."""
    if len(logged) < len(derived):
        wrote = what() if what is not None else f"seat {actor}'s move"
        raise Divergence(seq, "missing-events", f"{wrote} writes {len(derived)} events; the log ends first")
    for d, got in zip(derived, logged, strict=False):
        # Equal as written, not only as Python values: 1.0 == 1 and true == 1 in
        # Python, so a log that says "seat": true or "cost": 1.0 where the referee
        # wrote 1 would pass a value comparison though its bytes are not the
        # referee's. The canonical texts must be the same.
        if d.type != got.type or actor != got.actor or type(actor) is not type(got.actor):
            same = False
        else:
            # written_as's first answer, without two calls for every event: the payload's
            # text as read (``payload_text``), orjson's writing of the derived payload equal
            # to it; anything else (no text kept, orjson's text differing or refused) is
            # written_as's to decide
            text = getattr(got, "text", None)
            try:
                same = text is not None and _dumps(d.payload, option=_SORTED).decode() == text
            except TypeError:
                same = False
            if not same:
                same = written_as(d.payload, payload_text(got))
        if not same:
            raise Divergence(got.seq, "diverges",
                             f"event {got.seq} should be {d.type} {json.dumps(d.payload, sort_keys=True)[:300]}"
                             f" but the log has {got.type} {json.dumps(got.payload, sort_keys=True)[:300]}")


_NOT_STEPS_WORDS = {"game-aborted": "the abort", "clock-changed": "the clock's change",
                    "seat-replaced": "the seat's replacement", SEAT_TIMED_OUT: "the timeout",
                    SEAT_CALENDAR: "a seat's calendar", ledgermod.RULED: "the ruling",
                    vacations.CLOCK_PAUSED: "a seat's pause", vacations.CLOCK_RESUMED: "a seat's resume"}


def _asked(ev: Event) -> dict:
    """The request a seat's vote, answer or dispute event records (its body)."""
    p = ev.payload if isinstance(ev.payload, dict) else {}
    if ev.type == ledgermod.VOTE_OPENED:
        return {k: p[k] for k in ("proposal",) if k in p}
    if ev.type == ledgermod.VOTED:
        return {k: p[k] for k in ("vote", "yes") if k in p}
    return {k: p[k] for k in ("text", "seq") if k in p and p[k] is not None}


def _ruling_asked(ev: Event) -> dict:
    p = ev.payload if isinstance(ev.payload, dict) else {}
    return {k: p[k] for k in ("dispute", "decision", "text") if k in p}


def _a_step(kind: str, table: Table):
    """What wrote a referee event, in words (asked before the table moves on)."""
    if kind in _NOT_STEPS_WORDS:
        return lambda: _NOT_STEPS_WORDS[kind]
    step = table.due()
    return lambda: f"the referee's step {step!r}"


def _replay(events: list[Event], seed: str | None, salt_key: str | None = None) -> Table:
    """The table after replaying ``events`` (each checked as the module's docstring
    says); a random step is taken as logged only while ``seed`` is None (the only
    time ``SeedUnavailable`` is raised). ``events`` is the
    caller's to give up: each of its entries is set to None once replayed."""
    first = events[0]
    if first.type != "game-created" or first.actor != REFEREE:
        raise Divergence(1, "not-a-game", "the first event must be the referee's game-created")
    try:
        p = first.payload
        expected = Table.created_payload(p["game"], p["id"], [s["name"] for s in p["seats"]],
                                         p["options"], "x", p["stacked"],
                                         bots={s["seat"]: s["bot"] for s in p["seats"] if "bot" in s},
                                         accounts={s["seat"]: s["player"] for s in p["seats"] if "player" in s},
                                         rated=p.get("rated", True) is not False,
                                         contributions=p.get("contributions"))
    except (RefereeError, KeyError, TypeError) as err:
        raise Divergence(1, "bad-game", f"the game cannot be created as logged: {err}") from None
    # The seed commitment is the log's own; the engine version may be older than
    # today's engine (a log audited years later), which changes no rule: an older
    # game lacks the house rules added since, and is replayed under the reading it
    # was played under (``Engine.later_options``).
    made_by = p.get("engine_version")
    options = expected["options"]
    if isinstance(p.get("options"), dict):
        options = engine_by_name(p["game"]).options_as_logged(options, p["options"], made_by)
    want = {**expected, "options": options, "seed_commitment": p.get("seed_commitment"),
            "engine_version": made_by}
    if want != p:
        raise Divergence(1, "bad-game", "the first event's options are not as the engine completes them")
    table = Table.from_created(first)
    played = False  # whether the engine applied the derived events as it decided them
    # A log with a take-back replays part of itself again (the position it goes
    # back to, re-derived from the events already checked): it keeps its events,
    # and the engine gets copies of them.
    # (whether any event is a ruling asked without a call per event: ``in`` compares
    # each type with it as ``==`` does)
    history = list(events) if ledgermod.RULED in map(_TYPE, events) and any(
        is_take_back(ev) for ev in events) else None
    owned = history is None
    ledger_events = ledgermod.EVENTS
    i = 1
    while i < len(events):
        ev = events[i]
        # (an actor read from JSON is an int, a str or worse: ``type(...) is int``
        # leaves out true and false, as ``isinstance`` with a second test would)
        actor = ev.actor
        seats_act = False  # a vote, an answer or a dispute: a seat's, but no move of the game
        if ev.type in ledger_events:
            if ev.type in ledgermod.SEAT_EVENTS:
                seats_act = type(actor) is int
            elif ev.actor != REFEREE:
                raise Divergence(ev.seq, "forged-ruling" if ev.type == ledgermod.RULED else "diverges",
                                 f"event {ev.seq} ({ev.type}) is written as {ev.actor!r}: only the referee "
                                 "writes it" + (", on the admin's word" if ev.type == ledgermod.RULED else ""))
        if seats_act:
            try:
                derived = ledgermod.seat_drafts(table, ev.actor, ev.type, _asked(ev), ev.at)
            except RefereeError as err:
                raise Divergence(ev.seq, "bad-" + ev.type, f"seat {ev.actor}'s {ev.type} was not open to it: "
                                 f"{err.detail}") from None
            what = None
        elif type(actor) is int:
            move = ev.payload.get("move") if type(ev.payload) is dict else None
            if move is None:
                raise Divergence(ev.seq, "malformed", f"event {ev.seq} is a seat's but records no move")
            try:
                due = table.due()
                if due == BOT_MOVE and ev.actor == table.bot_to_move():
                    # The referee's move for a bot seat or a seat out of time: the
                    # bot's own choice once the seed is known, else (a game still
                    # running) a legal move of that seat, taken as logged.
                    try:
                        derived = table.step_drafts(seed, salt_key)
                    except rngmod.SeedUnavailable:
                        derived = table.engine.decide(table.state, ev.actor, move)
                elif due is None and table.clock is None and owned:
                    # decided and applied in one pass: the state is this replay's own,
                    # and a refusal or a divergence ends it (``Table.played``)
                    table.state, derived = table.engine.play(table.state, actor, move)
                    played = True
                elif due is None:  # what move_drafts does then, without asking due() again
                    derived = table.engine.decide(table.state, ev.actor, move)
                else:
                    # only the drafts: the logged events, once equal, are applied
                    derived = table.move_drafts(ev.actor, move)
            except RefereeError as err:
                rule = err.extra.get("rule")
                raise Divergence(ev.seq, err.code, f"seat {ev.actor}'s move {json.dumps(move)} was refused: "
                                 f"{err.detail}" + (f" (rule {rule})" if rule else "")) from None
            what = None  # a seat's move (``_same``)
        elif ev.actor == REFEREE:
            if ev.type == ledgermod.RULED:  # the admin's word, see NOT_STEPS
                p = ev.payload if isinstance(ev.payload, dict) else {}
                try:
                    derived = ledgermod.ruling_drafts(table, _ruling_asked(ev), history)
                except RefereeError as err:
                    raise Divergence(ev.seq, "forged-ruling", f"event {ev.seq} is a ruling the admin could "
                                     f"not have given: {err.detail}") from None
                if p.get("by") != "admin":
                    raise Divergence(ev.seq, "forged-ruling", f"event {ev.seq} is a ruling not given by the "
                                     "game's admin (by: \"admin\")")
            elif ev.type == "game-aborted" and not table.over:  # see NOT_STEPS
                derived, _ = table.propose_abort(ev.payload.get("reason", ""), at=ev.at)
                derived[0].payload = ev.payload
            elif ev.type == "seat-replaced" and not table.over:  # an admin's change, see NOT_STEPS
                p = ev.payload if isinstance(ev.payload, dict) else {}
                seat, name = p.get("seat"), p.get("name")
                if (set(p) - {"bot", "player"} != {"seat", "name"} or not isinstance(seat, int)
                        or isinstance(seat, bool) or not 0 <= seat < len(events[0].payload["seats"])
                        or not isinstance(name, str) or not 1 <= len(name) <= 100
                        or ("bot" in p and p["bot"] not in bot_kinds())
                        or ("player" in p and (not isinstance(p["player"], str)
                                               or not 1 <= len(p["player"]) <= 100))):
                    raise Divergence(ev.seq, "bad-seat-replaced", f"event {ev.seq} must name a seat of "
                                     "the game, a new name of 1 to 100 characters and, for a bot, its "
                                     "kind, for a registered player, its id, and nothing else")
                derived = [ev]
            elif ev.type == "clock-changed" and not table.over:  # an admin's change, see NOT_STEPS
                try:
                    derived, _ = table.propose_clock({"clock": ev.payload.get("clock")}, at=ev.at)
                except RefereeError as err:
                    raise Divergence(ev.seq, "bad-clock", f"event {ev.seq} sets a clock the referee "
                                     f"refuses: {err.detail}") from None
                derived[0].payload = {**derived[0].payload, "paused": ev.payload.get("paused")}
                paused = ev.payload.get("paused")
                if not isinstance(paused, bool) or (paused and ev.payload.get("clock") is None):
                    raise Divergence(ev.seq, "bad-clock", f"event {ev.seq}: paused must be true or false, "
                                     "and only a clock can be paused")
            elif ev.type == SEAT_CALENDAR and not table.over:  # a player's weekends, see NOT_STEPS
                try:
                    derived, _ = table.propose_calendar(ev.payload, at=ev.at)
                except RefereeError as err:
                    raise Divergence(ev.seq, "bad-calendar", f"event {ev.seq} sets a seat's calendar the "
                                     f"referee refuses: {err.detail}") from None
            elif ev.type in (vacations.CLOCK_PAUSED, vacations.CLOCK_RESUMED) and not table.over:  # a vacation's
                propose = vacations.propose_pause if ev.type == vacations.CLOCK_PAUSED else vacations.propose_resume
                try:
                    derived, _ = propose(table, ev.payload, ev.at)
                except RefereeError as err:
                    raise Divergence(ev.seq, "bad-pause", f"event {ev.seq} pauses or resumes a seat's clock "
                                     f"as the referee never would: {err.detail}") from None
            elif ev.type == SEAT_TIMED_OUT and not table.over:  # the clock's, see NOT_STEPS
                p = ev.payload if isinstance(ev.payload, dict) else {}
                seat = p.get("seat")
                try:
                    if not isinstance(seat, int) or isinstance(seat, bool):
                        raise RefereeError("the timeout names no seat")
                    derived, _ = table.propose_timeout(seat, ev.at)
                except RefereeError as err:
                    raise Divergence(ev.seq, "bad-timeout", f"event {ev.seq} times out a seat that was "
                                     f"not out of time: {err.detail}") from None
            elif table.due() is None:
                raise Divergence(ev.seq, "unexpected-referee-event",
                                 f"event {ev.seq} ({ev.type}) is the referee's but no step was due")
            elif table.due() == BOT_MOVE:
                raise Divergence(ev.seq, "diverges", f"event {ev.seq} ({ev.type}) is the referee's, but "
                                 f"seat {table.bot_to_move()}'s move was due (a bot's moves are the seat's)")
            else:
                try:
                    derived = table.step_drafts(seed, salt_key)
                except rngmod.SeedUnavailable:
                    # A random step of a game still running (a deal, a reshuffle)
                    # cannot be re-derived until the seed is out, so it is taken as
                    # logged, whole (a step may write several events: a deal, then
                    # the turn that begins). Its events are the referee events of
                    # the same append (the same ``at``) that follow while no other
                    # step has come due: if one has (a step followed at once by
                    # another), that one is derived again or taken whole in turn.
                    # A bot's move seen due midway is no other step: the position
                    # between a step's events may show a bot seat, or a seat that
                    # left, to act (the turn it ends), and a bot's move is written as
                    # its seat's, never as the referee's.
                    # Once the seed is revealed, all of it is re-derived.
                    table.apply(ev, owned=owned)
                    i += 1
                    while (i < len(events) and events[i].actor == REFEREE and events[i].at == ev.at
                           and table.due() in _MIDWAY and events[i].type not in NOT_STEPS):
                        table.apply(events[i], owned=owned)
                        i += 1
                    continue
            what = _a_step(ev.type, table)
        else:
            raise Divergence(ev.seq, "malformed", f"event {ev.seq} has an unknown actor {ev.actor!r}")
        n = len(derived)
        logged = events[i:i + n]
        _same(derived, actor, logged, ev.seq, what)
        if played:
            table.played(logged)
            played = False
        else:
            for got in logged:
                # parsed here for this replay alone: the engine may keep them uncopied
                # (unless a take-back replays them again)
                table.apply(got, owned=owned, history=history)
        # Each event is let go once replayed (the replay never looks back, and its
        # caller needs the events no more): freed while it is still in the
        # processor's cache rather than all at the end, a log's audit is about
        # 6 % faster (benchmarks/README.md, "The last few per cent").
        events[i:i + n] = _NONE * n
        i += n
    return table


def audit(text: str | bytes, payloads: dict[str, str] | None = None) -> dict:
    """The report for an exported log (see the module's docstring; ``payloads``:
    as ``read_lines`` takes them)."""
    with no_gc_pauses():
        return _audit(lambda: parse(text, payloads))


def audit_lines(lines: list[str], payloads: dict[str, str] | None = None) -> dict:
    """``audit`` of a log given as its lines (``payloads``: as ``read_lines`` takes
    them)."""
    with no_gc_pauses():
        return _audit(lambda: read_lines(lines, payloads))


def _revealed_seed(first: Event, revealed: Event) -> str:
    """What the referee kept, as the reveal shows it, checked against event 1: the
    seed itself (matching the commitment), or in a game of contributions the
    secret part (matching the commitment) and the seed it and the contributions
    recorded in event 1 give (docs/log-format.md, "The seed"). A changed
    contribution is caught here, at event 1, or (the revealed seed changed with it)
    at the first deal the replay re-derives."""
    # (a forged log's payloads may be any JSON: what is not an object names nothing)
    shown = revealed.payload if isinstance(revealed.payload, dict) else {}
    created = first.payload if isinstance(first.payload, dict) else {}
    committed, contributions = created.get("seed_commitment"), created.get("contributions")
    kept = shown.get("seed" if contributions is None else "secret")
    if not isinstance(kept, str) or rngmod.commitment(kept) != committed:
        what = "seed" if contributions is None else "secret part of the seed"
        raise Divergence(revealed.seq, "seed-mismatch", f"the revealed {what} does not match the commitment in event 1")
    if contributions is not None:
        seats = created.get("seats")
        if not entropy.recorded(contributions, len(seats) if isinstance(seats, list) else -1):
            raise Divergence(1, "bad-game", "contributions are one a seat, each null or 1 to 256 characters")
        if entropy.seed(kept, contributions) != shown.get("seed"):
            raise Divergence(1, "contributions-mismatch",
                             f"the seed revealed at event {revealed.seq} is not the one the revealed secret part "
                             "and the contributions recorded in event 1 give")
    return kept


def _seed_of(events: list[Event]) -> tuple[str | None, str | None]:
    """The seed and the salt key the log's last reveal gives, both checked (the
    seed against the commitment in event 1, every event's salt against the key);
    (None, None) while none is revealed; a Divergence where they do not hold."""
    revealed = None  # the last reveal: the usual log's last event, so looked for from the end
    for ev in reversed(events):
        if ev.type == "seed-revealed" and ev.actor == REFEREE:
            revealed = ev
            break
    if revealed is None:
        return None, None
    seed = _revealed_seed(events[0], revealed)
    # Salts are keyed by the salt key revealed with the seed; logs written
    # before salt keys existed (0.1) keyed them by the seed itself.
    key = revealed.payload.get("salt_key", seed)
    if not isinstance(key, str):
        key = None
    wrong = Salts(key).first_wrong(events) if key is not None else events[0]
    if wrong is not None:
        raise Divergence(wrong.seq, "bad-salt",
                         f"event {wrong.seq}'s salt is not the one the revealed salt key gives")
    return seed, key


def _audit(events_of) -> dict:
    report = {"valid": False, "events": 0, "first_error": None, "chain": "broken",
              "seed": "unrevealed", "result": None}
    try:
        events = events_of()
    except Divergence as err:
        report["first_error"] = {"seq": err.seq, "code": err.code, "detail": err.detail}
        # What was read before the line that failed, said as it is: the events read
        # and checked, and the seed as far as they go. A reveal read among them is
        # checked as the whole log's would be; else the reading stopped before any
        # reveal, and whether the game has one is not known ("not-reached", never
        # "unrevealed", which would say of a finished game that it runs).
        report["events"] = len(err.read)
        try:
            seed, _ = _seed_of(err.read) if err.read else (None, None)
            report["seed"] = "not-reached" if seed is None else "verified"
        except Divergence:
            report["seed"] = "mismatch"
        return report
    report["events"] = len(events)
    report["chain"] = "ok"
    try:
        seed, key = _seed_of(events)
    except Divergence as err:
        report["seed"] = "mismatch"
        report["first_error"] = {"seq": err.seq, "code": err.code, "detail": err.detail}
        return report
    if seed is not None:
        report["seed"] = "verified"
    try:
        table = _replay(events, seed, key)
    except Divergence as err:
        report["first_error"] = {"seq": err.seq, "code": err.code, "detail": err.detail}
        return report
    except Exception as err:  # an engine tripping over a forged log is a divergence too
        report["first_error"] = {"seq": None, "code": "unreadable",
                                 "detail": f"the log cannot be replayed: {type(err).__name__}: {err}"}
        return report
    # No verdict of its own for random steps taken as logged: they are taken only
    # while the seed is unrevealed (``SeedUnavailable`` needs a None seed), so
    # ``seed: unrevealed`` already says it, and ``verified`` means none was.
    report["valid"] = True
    report["result"] = table.state.result
    report["status"] = table.status
    return report
