"""A long fuzzing campaign against the API's own OpenAPI document.

    python benchmarks/fuzz_campaign.py [--examples 5000]

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
    args = p.parse_args()
    tally = Path(tempfile.mkdtemp()) / "tally.json"
    env = {**os.environ, "REFEREE_FUZZ_EXAMPLES": str(args.examples), "REFEREE_FUZZ_TALLY": str(tally),
           "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    started = time.monotonic()
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          str(ROOT / "tests" / "test_schema_fuzz.py")], env=env, cwd=ROOT,
                         capture_output=True, text=True)
    took = time.monotonic() - started
    rows = json.loads(tally.read_text()) if tally.exists() else {}
    print(f"{'operation':<45} {'requests':>9} {'5xx':>5} {'changed':>8}")
    total = {"requests": 0, "5xx": 0, "changed": 0}
    for op, row in sorted(rows.items()):
        print(f"{op:<45} {row['requests']:>9} {row['5xx']:>5} {row['changed']:>8}")
        for k in total:
            total[k] += row[k]
    print(f"{'all':<45} {total['requests']:>9} {total['5xx']:>5} {total['changed']:>8}")
    print(f"pytest: {run.stdout.strip().splitlines()[-1] if run.stdout.strip() else run.stderr[-500:]}"
          f" ({took:.0f} s)")
    if run.returncode != 0:
        print(run.stdout[-4000:])
    return run.returncode


if __name__ == "__main__":
    sys.exit(main())
