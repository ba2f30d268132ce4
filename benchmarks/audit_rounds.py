"""Interleaved rounds of the bare parse-and-hash loop and an audit over one text,
timed in a process that holds nothing but that text.

The service never audits in the process that serves moves: each API process
hands audits to a pool of spawned worker processes that do audits only
(referee/audit_pool.py). ``benchmarks/run.py`` and ``benchmarks/bundle_audit.py``
build their log or bundle in their own process first (a game of 20,000 events
played move by move, a league of 105 games), so an audit timed there runs on the
heap that building left behind, which no audit worker has. So both sides are
timed here, in a fresh process as a pool worker is, side by side, and that is
the goal's figure; the benchmarks show the figure taken in their own process
beside it. The two differ by a few percent either way from run to run (once, in
a script of its own, the in-process figure was a tenth lower).

    python benchmarks/audit_rounds.py log|bundle FILE ROUNDS

prints ``{"bare": [s...], "audit": [s...], "ratios": [...], "report": {...}}``:
per round the bare loop's time, the audit's, and bare / audit (the audit's lines
per second over the loop's); the side that goes first alternates.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = str(Path(__file__).resolve().parent.parent)


def rounds(kind: str, text: str, count: int) -> dict:
    """The rounds, in this process (see the module's docstring)."""
    from benchmarks.run import bare_loop
    from referee.audit import audit
    from referee.leagues import audit_league

    judge = audit_league if kind == "bundle" else audit
    report = judge(text)
    assert report["valid"], report["first_error"]
    bare, full, ratios = [], [], []
    for k in range(count):
        took = {}
        for side in (("bare", "audit") if k % 2 == 0 else ("audit", "bare")):
            t0 = time.perf_counter()
            if side == "bare":
                bare_loop(text)
            else:
                judge(text)
            took[side] = time.perf_counter() - t0
        bare.append(took["bare"])
        full.append(took["audit"])
        ratios.append(took["bare"] / took["audit"])
    return {"bare": bare, "audit": full, "ratios": ratios, "report": report}


def in_fresh_process(kind: str, text: str, count: int) -> dict:
    """``rounds`` run by a new Python process given only the text (in a file)."""
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        out = subprocess.run([sys.executable, str(Path(__file__).resolve()), kind, f.name, str(count)],
                             capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def main(argv: list[str]) -> None:
    kind, path, count = argv
    if kind not in ("log", "bundle"):
        raise SystemExit("usage: audit_rounds.py log|bundle FILE ROUNDS")
    text = Path(path).read_text(encoding="utf-8")
    print(json.dumps(rounds(kind, text, int(count))))


if __name__ == "__main__":
    if ROOT not in sys.path:
        sys.path.insert(0, ROOT)
    main(sys.argv[1:])
