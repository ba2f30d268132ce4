"""A long fuzzing campaign against the API's own OpenAPI document.

    python benchmarks/fuzz_campaign.py [--examples 5000] [--seconds S] [--only EXPR]

Runs tests/test_schema_fuzz.py with many examples per operation (the suite runs
it with 100) and prints, per operation, the requests sent, the 5xx answers and the
refused requests that changed a log (both must be 0), then the pytest outcome.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--examples", type=int, default=5000, help="generated requests per operation")
    p.add_argument("--seconds", type=float, default=None,
                   help="stop after this long and print what was sent so far (a busy machine)")
    p.add_argument("--only", default=None,
                   help="a pytest -k expression choosing operations, e.g. 'board.svg or log' "
                        "(the check that the live games are still sound always runs)")
    args = p.parse_args()
    select = ["-k", f"({args.only}) or live_games_are_still_sound"] if args.only else []
    tally = Path(tempfile.mkdtemp()) / "tally.json"
    env = {**os.environ, "REFEREE_FUZZ_EXAMPLES": str(args.examples), "REFEREE_FUZZ_TALLY": str(tally),
           "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    started = time.monotonic()
    run = subprocess.Popen([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0",
                            str(ROOT / "tests" / "test_schema_fuzz.py"), *select], env=env, cwd=ROOT,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    cut_short = False
    try:
        out, err = run.communicate(timeout=args.seconds)
    except subprocess.TimeoutExpired:
        # The tally is saved as the run goes, so a cut-short campaign still counts.
        run.kill()
        out, err = run.communicate()
        cut_short = True
    took = time.monotonic() - started
    rows = json.loads(tally.read_text()) if tally.exists() else {}
    print(f"{'operation':<45} {'requests':>9} {'5xx':>5} {'changed':>8}")
    total = {"requests": 0, "5xx": 0, "changed": 0}
    for op, row in sorted(rows.items()):
        print(f"{op:<45} {row['requests']:>9} {row['5xx']:>5} {row['changed']:>8}")
        for k in total:
            total[k] += row[k]
    print(f"{'all':<45} {total['requests']:>9} {total['5xx']:>5} {total['changed']:>8}")
    if cut_short:
        print(f"cut short after {took:.0f} s (--seconds): the figures above are what was sent")
        return 1 if total["5xx"] or total["changed"] else 0
    print(f"pytest: {out.strip().splitlines()[-1] if out.strip() else err[-500:]} ({took:.0f} s)")
    if run.returncode != 0:
        print(out[-4000:])
    return run.returncode


if __name__ == "__main__":
    sys.exit(main())
