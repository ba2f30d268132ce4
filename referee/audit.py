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
  event's salt is the one derived from it.

While a game runs its seed is secret, so its random steps (deals) cannot be
re-derived yet: they are taken as logged and the report says ``seed: unrevealed``.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import json
import re
import threading
from json.encoder import encode_basestring

import orjson

from referee import rng as rngmod
from referee.events import REFEREE, Event, Salts, canonical_text, parsed_canonical_text
from referee.games import engine as engine_by_name
from referee.games.base import RefereeError
from referee.table import BOT_MOVE, SEAT_TIMED_OUT, Table, bot_kinds

FIELDS = {"seq", "type", "actor", "at", "payload", "prev", "salt", "hash"}

# Referee events that are no step of the game's rules (written on an admin's or a
# clock's say, not because the engine owed them): never part of a random step
# taken as logged. Each is checked by a branch of its own in ``_replay``.
NOT_STEPS = {"game-aborted", "clock-changed", "seat-replaced", SEAT_TIMED_OUT}


class Divergence(Exception):
    def __init__(self, seq: int, code: str, detail: str):
        super().__init__(detail)
        self.seq, self.code, self.detail = seq, code, detail


def _scalar_text(value) -> str:
    """canonical_text of one field's value, without the encoder's per-call setup for
    the usual string or integer (``actor``, ``at`` and ``hash`` of every line)."""
    if type(value) is str:
        return encode_basestring(value)
    if type(value) is int:
        return int.__repr__(value)
    return canonical_text(value)


def _loads(line: str):
    """The value of a line, as json.loads gives it, by orjson (twice as fast); None
    when orjson does not take the line (not JSON, or what only the standard library
    reads: NaN, an integer past 64 bits, a lone surrogate). json.loads then says
    what is wrong with it, or takes it.

    Where orjson takes a line its value is the standard library's: every line must
    then be the canonical JSON of that value as the standard library writes it
    (``_parse``), and that text parses back to the one value in both."""
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        return None


_SORTED = orjson.OPT_SORT_KEYS


def _written_as(value, text: str) -> bool:
    """Whether ``text`` is the canonical JSON of ``value``, where ``text`` is the
    canonical JSON of some value (``_same``: a line ``_parse`` checked) or holds no
    float (``_usual_body``). orjson writes the value first (three times as fast as
    the standard library); where its text is ``text`` the answer is yes. Without a
    float, orjson's text is the standard library's to the byte (keys sorted by code
    point; strings, integers, true, false and null written alike). With one, that
    text parses back to ``value`` exactly (an integer as an integer, true as true,
    a number with a point as a float), and a canonical text is the canonical text
    of what it parses to. Where orjson's text differs (it writes some floats
    otherwise, ``1e16`` for ``1e+16``) or it cannot write the value, the standard
    library decides."""
    try:
        if orjson.dumps(value, option=_SORTED).decode() == text:
            return True
    except TypeError:  # a key that is no string, an integer past 64 bits
        pass
    return parsed_canonical_text(value) == text


# A number with a point or an exponent where a value starts: a float, or a string
# that looks like one (``_usual_body``).
_FLOAT = re.compile(r"[:,\[]-?[0-9]+[.eE]|^-?[0-9]+[.eE]")


# How many payload texts found canonical an audit remembers: a game repeats many
# (the same step, the same answer), and each is then not encoded again. A log the
# API takes (16 MiB) has fewer lines than this.
KNOWN_PAYLOADS = 65536


def _usual_body(d: dict, line: str, known: dict[str, str]) -> tuple[str, str] | None:
    """The canonical JSON of the event's body (what its hash covers), and its
    payload's text, if ``line``, parsed as ``d`` (its "hash" still in it), is the
    usual line and canonical; None if that is not sure (then the body is encoded
    whole, see ``_parse``).

    The usual line has no backslash: then each string in it is written as is,
    between quotes, since there is nothing in it to escape (a '"' or a control
    character would need one), which is also how the encoder writes it. The fields
    around the payload are written again that way (integers as the encoder writes
    them) and must be the line's start and end; what is between them is the
    payload's text, canonical if it was found so before in this log (the canonical
    JSON of some value, so of the one it parses to) or if it is what encoding the
    payload gives. The line is then exactly the canonical JSON of ``d``.

    The payload is encoded by orjson first (``_written_as``) when its text holds
    no float: for a value without one, orjson's text is the standard library's to
    the byte (keys sorted by code point, strings, integers, true, false and null
    written alike); only a float may be written otherwise (``1e16``)."""
    actor, at, given, prev, salt, seq, kind = (d["actor"], d["at"], d["hash"], d["prev"], d["salt"],
                                               d["seq"], d["type"])
    if ("\\" in line or type(seq) is not int
            or not type(at) is type(given) is type(prev) is type(salt) is type(kind) is str):
        return None
    if type(actor) is int:
        actor_text = int.__repr__(actor)
    elif type(actor) is str:
        actor_text = '"' + actor + '"'
    else:
        return None
    before = '{"actor":' + actor_text + ',"at":"' + at + '"'
    head = before + ',"hash":"' + given + '","payload":'
    tail = ',"prev":"' + prev + '","salt":"' + salt + '","seq":' + int.__repr__(seq) + ',"type":"' + kind + '"}'
    if not (line.startswith(head) and line.endswith(tail)):
        return None
    text = line[len(head):len(line) - len(tail)]
    if text not in known:
        payload = d["payload"]
        if not (parsed_canonical_text(payload) == text if _FLOAT.search(text) else _written_as(payload, text)):
            return None
        if len(known) < KNOWN_PAYLOADS:
            known[text] = text
    else:
        text = known[text]  # one string for every event with this payload
    return before + ',"payload":' + line[len(head):], text


@contextlib.contextmanager
def no_gc_pauses():
    """An audit keeps every parsed event alive to its end and makes no reference
    cycles, so the cyclic collector's repeated scans of them (a tenth or more of an
    audit's time) find nothing: it waits until the audit ends (the last of those
    running at once in this process). Reference counting frees everything as usual."""
    global _auditing, _gc_was_on
    with _gc_lock:
        if _auditing == 0:
            _gc_was_on = gc.isenabled()
            gc.disable()
        _auditing += 1
    try:
        yield
    finally:
        with _gc_lock:
            _auditing -= 1
            if _auditing == 0 and _gc_was_on:
                gc.enable()


_gc_lock = threading.Lock()
_auditing = 0  # audits running in this process
_gc_was_on = True


def _parse(text: str | bytes, read: list | None = None) -> list[Event]:
    raw = text.encode() if isinstance(text, str) else text
    try:  # one decode for the whole log; line by line only to name a line that is not UTF-8
        whole = raw.decode("utf-8")
    except UnicodeDecodeError:
        whole = None
    lines = whole.split("\n") if whole is not None else raw.split(b"\n")
    if lines and not lines[-1]:
        lines.pop()
    return _events(lines, read)


def usual_line(line: str, payloads: dict[str, str]) -> tuple[dict, tuple[str, str]] | None:
    """``(the event, (its body's canonical text, its payload's))`` if ``line`` is the usual line of
    an event and canonical (``_usual_body``), ``d`` with its "hash" still in it;
    None if that is not sure (``_events`` then reads the line the long way). For a
    reader that has the line first (a league's bundle, referee/leagues/bundle.py),
    so it is read once."""
    d = _loads(line)
    if type(d) is not dict or d.keys() != FIELDS:
        return None
    found = _usual_body(d, line, payloads)
    return None if found is None else (d, found)


def _events(lines: list, read: list | None = None) -> list[Event]:
    """The events of a log's lines (str, or bytes where the whole was no UTF-8),
    every line checked (see the module's docstring); ``read``: for each line, what
    ``usual_line`` gave for it already, or None."""
    events = []
    prev = "0" * 64
    payloads: dict[str, str] = {}  # payload texts found canonical (see _usual_body)
    i = 0
    try:
        for i, line in enumerate(lines, start=1):
            if read is not None and read[i - 1] is not None:
                d, found = read[i - 1]
            else:
                if type(line) is bytes:
                    try:
                        line = line.decode("utf-8")
                    except UnicodeDecodeError:
                        raise Divergence(i, "malformed", f"line {i} is not UTF-8") from None
                d = _loads(line)
                if d is None:
                    try:
                        d = json.loads(line)  # anything else, answered (or refused) as json.loads does
                    except json.JSONDecodeError as err:
                        raise Divergence(i, "malformed", f"line {i} is not JSON: {err}") from None
                    except ValueError:  # Python reads no integer of more than 4,300 digits
                        raise Divergence(i, "malformed", f"line {i} holds an integer too long to read") from None
                if type(d) is not dict or d.keys() != FIELDS:
                    raise Divergence(i, "malformed", f"line {i} must have exactly the fields {sorted(FIELDS)}")
                # One canonical form per event: the body's (what the hash covers); the
                # line must be exactly that with "hash" in its sorted place (after "at").
                found = _usual_body(d, line, payloads)  # (what usual_line gave, where it was read)
            given = d.pop("hash")  # what is left is the body, no second dict built
            body, text = found if found is not None else (None, None)
            if body is None:
                body = parsed_canonical_text(d)
                head = '{"actor":' + _scalar_text(d["actor"]) + ',"at":' + _scalar_text(d["at"]) + ","
                if (not body.startswith(head)
                        or line != head + '"hash":' + _scalar_text(given) + "," + body[len(head):]):
                    raise Divergence(i, "not-canonical", f"line {i} is not in canonical JSON form")
            seq = d["seq"]
            if type(seq) is not int or seq != i:  # true is not 1, nor 1.0
                raise Divergence(i, "seq-gap", f"line {i} has seq {seq!r}, expected {i}")
            if d["prev"] != prev:
                raise Divergence(i, "broken-chain", f"event {i}'s prev is not event {i - 1}'s hash")
            if hashlib.sha256(body.encode()).hexdigest() != given:
                raise Divergence(i, "bad-hash", f"event {i}'s hash does not match its content")
            ev = _Logged(seq, d["type"], d["actor"], d["at"], d["payload"], prev, d["salt"], given, line)
            ev.text = text
            events.append(ev)
            prev = given
    except RecursionError:  # a line nested deeper than the parser or the encoder can go
        raise Divergence(i, "malformed", f"line {i} nests too deeply to be an event") from None
    if not events:
        raise Divergence(1, "malformed", "the log is empty")
    return events


class _Logged(Event):
    """An event read from a log line, with its payload's text where the line was
    the usual one (``text``; else None, and ``_payload_text`` cuts it)."""

    __slots__ = ("text",)


def _payload_text(ev: Event) -> str:
    """The payload as the log writes it: cut from the line (already checked to be
    canonical JSON). Inside a JSON string a quote is always escaped, so the bare
    key ``"payload":`` is the line's own, and the last ``,"prev":"`` is the key that
    follows the payload (a payload's own "prev" keys come before it)."""
    if type(ev) is _Logged and ev.text is not None:
        return ev.text
    line = ev.frozen
    if line is None:
        return parsed_canonical_text(ev.payload)
    return line[line.index('"payload":') + 10:line.rindex(',"prev":"')]


def _same(derived: list, actor, logged: list[Event], seq: int, what: str) -> None:
    """The derived drafts (or events), written as ``actor``, are the logged ones."""
    if len(logged) < len(derived):
        raise Divergence(seq, "missing-events", f"{what} writes {len(derived)} events; the log ends first")
    for d, got in zip(derived, logged, strict=False):
        # Equal as written, not only as Python values: 1.0 == 1 and true == 1 in
        # Python, so a log that says "seat": true or "cost": 1.0 where the referee
        # wrote 1 would pass a value comparison though its bytes are not the
        # referee's. The canonical texts must be the same.
        if (d.type != got.type or actor != got.actor or type(actor) is not type(got.actor)
                or not _written_as(d.payload, _payload_text(got))):
            raise Divergence(got.seq, "diverges",
                             f"event {got.seq} should be {d.type} {json.dumps(d.payload, sort_keys=True)[:300]}"
                             f" but the log has {got.type} {json.dumps(got.payload, sort_keys=True)[:300]}")


def _replay(events: list[Event], seed: str | None, salt_key: str | None = None) -> tuple[Table, bool]:
    first = events[0]
    if first.type != "game-created" or first.actor != REFEREE:
        raise Divergence(1, "not-a-game", "the first event must be the referee's game-created")
    try:
        p = first.payload
        expected = Table.created_event(p["game"], p["id"], [s["name"] for s in p["seats"]],
                                       p["options"], "x", p["stacked"], first.at,
                                       bots={s["seat"]: s["bot"] for s in p["seats"] if "bot" in s},
                                       accounts={s["seat"]: s["player"] for s in p["seats"] if "player" in s},
                                       rated=p.get("rated", True) is not False)
    except (RefereeError, KeyError, TypeError) as err:
        raise Divergence(1, "bad-game", f"the game cannot be created as logged: {err}") from None
    # The seed commitment is the log's own; the engine version may be older than
    # today's engine (a log audited years later), which changes no rule: an older
    # game lacks the house rules added since, and is replayed under the reading it
    # was played under (``Engine.later_options``).
    made_by = p.get("engine_version")
    options = expected.payload["options"]
    if isinstance(p.get("options"), dict):
        options = engine_by_name(p["game"]).options_as_logged(options, p["options"], made_by)
    want = {**expected.payload, "options": options, "seed_commitment": p.get("seed_commitment"),
            "engine_version": made_by}
    if want != p:
        raise Divergence(1, "bad-game", "the first event's options are not as the engine completes them")
    table = Table.from_created(first)
    unverified = False
    i = 1
    while i < len(events):
        ev = events[i]
        if isinstance(ev.actor, int) and not isinstance(ev.actor, bool):
            move = ev.payload.get("move") if isinstance(ev.payload, dict) else None
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
                        unverified = True
                        derived = table.engine.decide(table.state, ev.actor, move)
                elif due is None:  # what move_drafts does then, without asking due() again
                    derived = table.engine.decide(table.state, ev.actor, move)
                else:
                    # only the drafts: the logged events, once equal, are applied
                    derived = table.move_drafts(ev.actor, move)
            except RefereeError as err:
                rule = err.extra.get("rule")
                raise Divergence(ev.seq, err.code, f"seat {ev.actor}'s move {json.dumps(move)} was refused: "
                                 f"{err.detail}" + (f" (rule {rule})" if rule else "")) from None
            what = f"seat {ev.actor}'s move"
        elif ev.actor == REFEREE:
            if ev.type == "game-aborted" and not table.over:  # see NOT_STEPS
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
                    # Once the seed is revealed, all of it is re-derived.
                    unverified = True
                    table.apply(ev, owned=True)
                    i += 1
                    while (i < len(events) and events[i].actor == REFEREE and events[i].at == ev.at
                           and table.due() is None and events[i].type not in NOT_STEPS):
                        table.apply(events[i], owned=True)
                        i += 1
                    continue
            what = {"game-aborted": "the abort", "clock-changed": "the clock's change",
                     "seat-replaced": "the seat's replacement", SEAT_TIMED_OUT: "the timeout"}.get(
                ev.type, f"the referee's step {table.due()!r}")
        else:
            raise Divergence(ev.seq, "malformed", f"event {ev.seq} has an unknown actor {ev.actor!r}")
        _same(derived, ev.actor, events[i:i + len(derived)], ev.seq, what)
        for got in events[i:i + len(derived)]:
            # parsed here for this replay alone: the engine may keep them uncopied
            table.apply(got, owned=True)
        i += len(derived)
    return table, unverified


def audit(text: str | bytes) -> dict:
    """The report for an exported log (see the module's docstring)."""
    with no_gc_pauses():
        return _audit(lambda: _parse(text))


def audit_lines(lines: list[str], read: list | None = None) -> tuple[dict, list[Event]]:
    """``audit`` of a log given as its lines (``read``: what ``usual_line`` gave
    for each, or None), and its events (empty if it is refused before its replay).
    The events have been replayed: their payloads are the engines' to keep, so read
    only their envelope (type, seq, hash), or read a line again for its payload."""
    kept: list[Event] = []

    def events() -> list[Event]:
        kept[:] = _events(lines, read)
        return kept

    with no_gc_pauses():
        return _audit(events), kept


def _audit(events_of) -> dict:
    report = {"valid": False, "events": 0, "first_error": None, "chain": "broken",
              "seed": "unrevealed", "result": None}
    try:
        events = events_of()
    except Divergence as err:
        report["first_error"] = {"seq": err.seq, "code": err.code, "detail": err.detail}
        return report
    report["events"] = len(events)
    report["chain"] = "ok"
    seed = key = None
    revealed = [e for e in events if e.type == "seed-revealed" and e.actor == REFEREE]
    if revealed:
        # (a forged log's payloads may be any JSON: what is not an object names nothing)
        shown = revealed[-1].payload if isinstance(revealed[-1].payload, dict) else {}
        committed = events[0].payload.get("seed_commitment") if isinstance(events[0].payload, dict) else None
        seed = shown.get("seed")
        if not isinstance(seed, str) or rngmod.commitment(seed) != committed:
            report["seed"] = "mismatch"
            report["first_error"] = {"seq": revealed[-1].seq, "code": "seed-mismatch",
                                     "detail": "the revealed seed does not match the commitment in event 1"}
            return report
        # Salts are keyed by the salt key revealed with the seed; logs written
        # before salt keys existed (0.1) keyed them by the seed itself.
        key = shown.get("salt_key", seed)
        if not isinstance(key, str):
            key = None
        salt_for = Salts(key) if key is not None else None
        for ev in events:
            if salt_for is None or ev.salt != salt_for(ev.seq):
                report["seed"] = "mismatch"
                report["first_error"] = {"seq": ev.seq, "code": "bad-salt",
                                         "detail": f"event {ev.seq}'s salt is not the one the revealed salt key gives"}
                return report
        report["seed"] = "verified"
    try:
        table, unverified = _replay(events, seed, key)
    except Divergence as err:
        report["first_error"] = {"seq": err.seq, "code": err.code, "detail": err.detail}
        return report
    except Exception as err:  # an engine tripping over a forged log is a divergence too
        report["first_error"] = {"seq": None, "code": "unreadable",
                                 "detail": f"the log cannot be replayed: {type(err).__name__}: {err}"}
        return report
    if unverified:
        report["seed"] = "unrevealed"
    report["valid"] = True
    report["result"] = table.state.result
    report["status"] = table.status
    return report
