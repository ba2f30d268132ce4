"""The referee standing alone: what work on a log needs when no service runs (an
audit, a replay, an audit worker), and nothing of the house around it.

An audit is a pure function of a log: the rules (referee/games), the reading of
the log (referee/log_lines.py) and, for bot seats and the moves a timeout owes,
the referee's own players (referee/bots), whose moves the audit derives again.
``referee.system.wire`` is what a serving process needs, and importing it pulls
in the web framework, the store clients, the job queue, mail and the leagues'
keeping: about half a second before the first line of a log is read. This module
imports none of those, so ``referee audit`` starts in the time the rules take to
load (benchmarks/audit_cli.py; tests/test_audit.py holds its imports to that).
"""

from __future__ import annotations

from referee import bots, table


def wire() -> None:
    """Hand the referee's own players to the table (idempotent): all an audit or a
    replay needs wired. ``referee.system.wire`` calls it too."""
    table.use_bots(bots)
