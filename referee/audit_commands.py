"""`referee audit`, `referee audit-league` and `referee replay`: pure functions of
exported logs. They load only the rules, the bots and the log
(referee/standalone.py), never the service's web framework, stores or queue, so
that a season of exports audits without paying for a server's start each time."""

from __future__ import annotations

import json
import sys
from types import SimpleNamespace


def _read_log(path: str) -> bytes:
    """A log's bytes: the file, or standard input for ``-`` (``referee export ID | referee audit -``)."""
    if path == "-":
        return sys.stdin.buffer.read()
    with open(path, "rb") as fh:
        return fh.read()


def _why_not(report: dict) -> str:
    """A report's first divergence in one line, for standard error."""
    err = report["first_error"]
    where = f"event {err['seq']}" if err["seq"] is not None else "the log"
    return f"{where}: {err['code']}: {err['detail']}"


def cmd_audit(args) -> int:
    """One verdict a file: with one file its report, as ``POST /v1/audit`` answers; with
    several, one line each, the report with the file's name (JSON Lines, in the order
    given). 0 when every file audits, else 1, each failure named on standard error.
    A pure function of the logs: only the rules, the bots and the log are loaded
    (referee/standalone.py), never the service's web framework, stores or queue."""
    from referee import standalone
    from referee.audit import audit

    standalone.wire()  # bot seats' moves are derived again by the referee's own players
    failed = 0
    # The payload texts found canonical in any file: games of a kind repeat them, and
    # one reading for all the files checks each text once (of the 26,701 payloads of
    # 100 finished games of the four kinds, 6,635 differ; 21,041 were checked with a
    # reading per file).
    payloads: dict[str, str] = {}
    for path in args.files:
        try:
            report = audit(_read_log(path), payloads)
        except OSError as err:  # no such file, a folder, unreadable: a verdict too
            report = {"valid": False, "events": 0, "chain": "broken", "seed": "not-reached",
                      "result": None, "first_error": {"seq": None, "code": "unreadable-file",
                                                      "detail": f"the file cannot be read: {err.strerror}"}}
        if len(args.files) == 1:
            print(json.dumps(report, indent=2, sort_keys=True))
        else:
            print(json.dumps({"file": path, **report}, sort_keys=True), flush=True)
        if not report["valid"]:
            failed += 1
            print(f"{path}: does not audit: {_why_not(report)}", file=sys.stderr)
    if len(args.files) > 1 and failed:
        print(f"{failed} of {len(args.files)} files do not audit", file=sys.stderr)
    return 1 if failed else 0


def cmd_audit_league(args) -> int:
    """A league's bundle: 0 when everything matches, else 1 and the first divergence."""
    from referee import standalone
    from referee.leagues import audit_league

    standalone.wire()  # as `referee audit`: the rules, the bots and the logs, no service
    try:
        raw = _read_log(args.file)
    except OSError as err:
        print(f"{args.file}: the file cannot be read: {err.strerror}", file=sys.stderr)
        return 1
    report = audit_league(raw)
    print(json.dumps(report, indent=2, sort_keys=True))
    err = report["first_error"]
    if err is not None:
        print(f"first divergence: {err['where']}: {err['code']}: {err['detail']}", file=sys.stderr)
    return 0 if report["valid"] else 1


def cmd_replay(args) -> int:
    from referee import standalone
    from referee.audit import audit
    from referee.events import Event
    from referee.games.base import ADMIN
    from referee.narration import holders
    from referee.table import Table

    # Audited first: a replay tells the game as fact, so it tells only a log the
    # rules derive (a forged move would be printed as played, and the replay then
    # trip over what follows from it). A running game's log audits too.
    try:
        raw = _read_log(args.file)
    except OSError as err:
        print(f"{args.file}: the file cannot be read: {err.strerror}", file=sys.stderr)
        return 1
    standalone.wire()  # a bot seat's moves are derived again by the referee's own players
    report = audit(raw)
    if not report["valid"]:
        print(f"{args.file}: does not audit, so it is not replayed: {_why_not(report)}", file=sys.stderr)
        return 1
    events = [Event.from_dict(json.loads(line)) for line in raw.decode("utf-8").split("\n") if line.strip()]
    table = Table.from_created(events[0])
    eng = table.engine
    created = events[0].payload
    print(f"{eng.title}: game {created['id']}, "
          + ", ".join(f"seat {s['seat']} {s['name']}" for s in created["seats"]))
    for ev in events[1:]:
        table.apply(ev, history=events)
        print(f"[{ev.seq}] {ev.at}  {holders(table).narrate(eng, ev)}")  # who held each seat then
        if args.boards:
            print(eng.render(table.state, ADMIN))
    print()
    print(eng.render(table.state, ADMIN))
    if table.state.result:
        print(f"result: {json.dumps(table.state.result)}")
    return 0


def files_alone(argv: list[str]) -> SimpleNamespace | None:
    """``referee audit FILE...`` read without argparse when every word after ``audit``
    is a file (or ``-``) and none could be an option: the arguments argparse reads
    from it, without argparse's ~4 ms on every start (argparse, gettext and locale
    imported, the parsers made), which a script auditing one export a run pays each
    time. None for any other command line: help, options and errors are argparse's."""
    if len(argv) < 2 or argv[0] != "audit" or any(w.startswith("-") and w != "-" for w in argv[1:]):
        return None
    return SimpleNamespace(command="audit", files=list(argv[1:]), fn=cmd_audit)


def add(sub) -> None:
    """The three commands, on the `referee` command's subparsers."""
    sp = sub.add_parser("audit", help="verify exported logs (JSON Lines), one verdict a file")
    sp.add_argument("files", nargs="+", metavar="FILE",
                    help="an export, or - for standard input; several: one report line each, exit 1 if any fails")
    sp.set_defaults(fn=cmd_audit)

    sp = sub.add_parser("audit-league", help="verify a league's export (its bundle)")
    sp.add_argument("file", help="the bundle (GET /v1/leagues/ID/export)")
    sp.set_defaults(fn=cmd_audit_league)

    sp = sub.add_parser("replay", help="print an exported game step by step")
    sp.add_argument("file")
    sp.add_argument("--boards", action="store_true", help="print the position after every event")
    sp.set_defaults(fn=cmd_replay)
