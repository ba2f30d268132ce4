"""``referee dispute EXPORT --seq N``: everything an arbiter needs about event N
of an exported log, in words: the position before it as each seat saw it, the
event and the rule that allowed it (or the refusal it, or the same move by
another seat, would have met), the clocks and deadlines around it, and every
dispute and ruling of the game so far. It reads the export alone, as an audit
does, so an arbiter can work from a file anyone may check."""

from __future__ import annotations

import json
import sys

from referee import clock as clockmod
from referee.disputes.words import decision_words
from referee.events import REFEREE, Event
from referee.games.base import RefereeError
from referee.narration import holders, moment, named
from referee.table import Table

AROUND = 3  # events shown on each side of the one disputed


def add(sub) -> None:
    """The command, on the ``referee`` command's subparsers."""
    sp = sub.add_parser("dispute", help="print what an arbiter needs about one event of an exported log")
    sp.add_argument("file", help="the game's export (JSON Lines)")
    sp.add_argument("--seq", type=int, required=True, help="the event disputed")
    sp.set_defaults(fn=cmd_dispute)


def cmd_dispute(args) -> int:
    try:
        with open(args.file, encoding="utf-8") as fh:
            events = [Event.from_dict(json.loads(line)) for line in fh if line.strip()]
    except (OSError, ValueError, KeyError, TypeError) as err:
        print(f"cannot read {args.file}: {err}", file=sys.stderr)
        return 1
    if not events or events[0].type != "game-created":
        print("the file holds no game's log", file=sys.stderr)
        return 1
    if not 1 <= args.seq <= len(events):
        print(f"--seq is an event of this log: 1 to {len(events)}", file=sys.stderr)
        return 1
    sys.stdout.write(report(events, args.seq))
    return 0


def report(events: list[Event], seq: int) -> str:
    """The arbiter's report on event ``seq`` of the log ``events`` (its whole export)."""
    first = events[0].payload
    before = Table.replay(events[:max(seq - 1, 1)])
    eng = before.engine
    names = holders(before).before(seq)
    ev = events[seq - 1]
    out = [f"{eng.title}, game {first['id']}: event {seq} of {len(events)}",
           "Seats: " + ", ".join(f"{s} {n}" for s, n in enumerate(names)), ""]
    out.append(f"== The event ({moment(ev.at)})")
    out.append(f"[{seq}] {ev.type} by {_actor(ev.actor, names)}: {holders(before).narrate(eng, ev)}")
    out.append("payload: " + json.dumps(ev.payload, sort_keys=True))
    out += [""] + _rule(before, ev, names) + [""]
    if seq > 1:
        out.append(f"== The position before event {seq}, as each seat saw it")
        for seat in range(len(names)):
            out += [f"-- {names[seat]} (seat {seat})", eng.render(before.state, seat).rstrip("\n"), ""]
        out += ["-- a spectator", eng.render(before.state, None).rstrip("\n"), ""]
    out.append("== Around it")
    for other in events[max(1, seq - 1 - AROUND):min(len(events), seq + AROUND)]:
        mark = ">>" if other.seq == seq else "  "
        out.append(f"{mark} [{other.seq}] {other.at}  {holders(before).narrate(eng, other)}")
    out += [""] + _clocks(before, ev) + [""]
    out += _disputes(Table.replay(events), names)
    return "\n".join(out) + "\n"


def _actor(actor, names: list[str]) -> str:
    if isinstance(actor, int) and 0 <= actor < len(names):
        return f"{names[actor]} (seat {actor})"
    return str(actor)


def _rule(before: Table, ev: Event, names: list[str]) -> list[str]:
    """Why the referee took the event: a move judged against the rules at that
    point (the events it derives, its seat's other legal moves, and what the same
    move by every other seat would have met), or the referee's own step."""
    out = ["== The rule"]
    move = ev.payload.get("move") if isinstance(ev.payload, dict) else None
    if not isinstance(ev.actor, int) or move is None:
        if ev.actor == REFEREE:
            due = before.due()
            out.append(f"a referee event; the step due before it: {due or 'none (an admin or a clock wrote it)'}")
        else:
            out.append("a seat's own act, no move of the game (a vote, an answer or a dispute)")
        return out
    eng = before.engine
    try:
        drafts = before.move_drafts(ev.actor, move)
        said = "allowed: the rules derive " + ", ".join(d.type for d in drafts) + " from it"
    except RefereeError as err:
        rule = err.extra.get("rule")
        said = f"REFUSED by the rules now: {named(err.detail, names)}" + (f" (rule {rule})" if rule else "")
    out.append(f"{names[ev.actor]}'s move {eng.format(move)!r}: {said}")
    legal = eng.legal(before.state, ev.actor) if before.due() is None else []
    others = [eng.format(m) for m in legal if m != move]
    if others:
        out.append(f"{names[ev.actor]}'s other legal moves then: " + "; ".join(others[:40])
                   + (f" (and {len(others) - 40} more)" if len(others) > 40 else ""))
    for seat in range(len(names)):
        if seat == ev.actor:
            continue
        try:
            before.move_drafts(seat, move)
            out.append(f"the same move by {names[seat]}: allowed too")
        except RefereeError as err:
            rule = err.extra.get("rule")
            out.append(f"the same move by {names[seat]} would have met: {named(err.detail, names)}"
                       + (f" (rule {rule})" if rule else ""))
    return out


def _clocks(before: Table, ev: Event) -> list[str]:
    out = ["== Clocks"]
    if before.clock is None:
        return out + ["no clock"]
    out.append(f"clock: {json.dumps(before.clock, sort_keys=True)}"
               + ("; paused" if before.paused or before.held else ""))
    for d in clockmod.deadlines(before):
        late = " (after it)" if ev.at > d["deadline"] else ""
        out.append(f"seat {d['seat']}'s deadline before the event: {moment(d['deadline'])}{late}")
    return out


def _disputes(table: Table, names: list[str]) -> list[str]:
    out = ["== Disputes and rulings"]
    if not table.ledger.disputes:
        return out + ["none"]
    for d in table.ledger.disputes:
        about = f"event {d['seq']}" if d.get("seq") else "the game as a whole"
        out.append(f"dispute {d['id']} by {_actor(d['by'], names)} about {about}, {moment(d['at'])}: "
                   f"\u201c{d['text']}\u201d")
        ruling = d.get("ruling")
        if ruling is None:
            out.append("  open")
        else:
            out.append(f"  ruled at event {ruling['seq']}, {moment(ruling['at'])}: "
                       f"{decision_words(ruling['decision'])} \u2014 \u201c{ruling['text']}\u201d")
    return out
