"""Audit speed with the seed derived from the seats' entropy, against the audit before it.

    python benchmarks/fair_deals.py [--before REV] [--rounds 15]

One game of King of Danger (2 seats, target 1,000: about 9,000 events and 200
deals, each re-dealt by the audit from the seed) is played in memory as this
tree plays it: the seats' contributions in its first event, the seed derived from
them and the referee's secret part, the secret part revealed at the end. The same
game is also written as the referee wrote it before contributions (no
contributions, the commitment to the seed itself, the seed alone revealed; every
hash computed again): the same deals, the same moves.

Two fresh processes each hold one log and audit it on demand: "before" runs the
audit of revision REV (default: where this branch left main, ``git merge-base
HEAD main``, its files copied out with ``git archive``) on the log in the older
form; "with" runs this tree's audit on the log with contributions. They take
interleaved rounds (31: a round is about a second, and a shared host's slow
seconds move a median of fewer), the side going first alternating, and the figure is the
median of the per-round ratios (before's time / with's time: the audit's speed
with the derivation over its speed before), timed in each process's own CPU
seconds: on a shared host a process waiting for a core is no slower, and the
wall clock's ratios spread several times wider (shown beside). Goal: >= 0.97. Shown only: this
tree's audit of the older form, against the audit before (what an older export's
audit costs now).
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = str(Path(__file__).resolve().parent.parent)
SECRET, SALT_KEY = "5e" * 32, "a1" * 32
CONTRIBUTIONS = ["ann's own entropy", "0f" * 32]

# A process that audits one log whenever it reads a line, and answers with the seconds
# it took, on the wall clock and of its own CPU (the referee at ROOT, whatever its
# revision: it needs only ``audit``).
WORKER = """
import sys, time
sys.path.insert(0, sys.argv[1])
from referee import system
system.wire()
from referee.audit import audit
text = open(sys.argv[2], encoding="utf-8").read()
report = audit(text)
print("ready" if report["valid"] and report["seed"] == "verified" else "invalid " + repr(report), flush=True)
for _ in sys.stdin:
    t0, c0 = time.perf_counter(), time.process_time()
    audit(text)
    print(time.perf_counter() - t0, time.process_time() - c0, flush=True)
"""


def game_with_contributions() -> list:
    """The game as this tree plays it (its events)."""
    from referee.bots import candidates
    from referee.table import Table

    created = Table.created_event("king-of-danger", "g-fair", ["ann", "bob"], {"target": 1000}, SECRET, False,
                                  salt_key=SALT_KEY, contributions=CONTRIBUTIONS)
    table = Table.from_created(created)
    log = [created] + table.settle_all(SECRET, salt_key=SALT_KEY)
    rnd = random.Random(7)
    while not table.over:
        seat = rnd.choice(table.to_act())
        events, fork = table.propose(seat, [rnd.choice(candidates(table.engine, table.state, seat))],
                                     seed=SECRET, salt_key=SALT_KEY)
        table.commit(fork)
        log += events + table.settle_all(SECRET, salt_key=SALT_KEY)
    return log


def in_older_form(log: list) -> str:
    """The same game as the referee wrote it before contributions: the seed committed
    to and revealed alone, every hash computed again (the salts keep their key)."""
    from referee import rng
    from referee.events import GENESIS, Event

    lines = [json.loads(ev.to_json()) for ev in log]
    seed = lines[-1]["payload"]["seed"]
    first = {k: v for k, v in lines[0]["payload"].items() if k != "contributions"}
    lines[0]["payload"] = {**first, "seed_commitment": rng.commitment(seed)}
    lines[-1]["payload"] = {"seed": seed, "salt_key": SALT_KEY}
    prev, out = GENESIS, []
    for d in lines:
        ev = Event.from_dict({**d, "prev": prev, "hash": ""}).sealed()
        prev = ev.hash
        out.append(ev.to_json() + "\n")
    return "".join(out)


def worker(root: str, path: str) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", WORKER, root, path], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    ready = proc.stdout.readline().strip()
    if ready != "ready":
        raise SystemExit(f"the audit at {root} does not find its log valid: {ready}")
    return proc


def timed(proc: subprocess.Popen) -> tuple[float, float]:
    """One audit by ``proc``: (wall seconds, CPU seconds)."""
    proc.stdin.write("go\n")
    proc.stdin.flush()
    wall, cpu = proc.stdout.readline().split()
    return float(wall), float(cpu)


def interleaved(a: subprocess.Popen, b: subprocess.Popen, rounds: int) -> tuple[list, list]:
    ta, tb = [], []
    for k in range(rounds):
        if k % 2 == 0:
            ta.append(timed(a))
            tb.append(timed(b))
        else:
            tb.append(timed(b))
            ta.append(timed(a))
    return ta, tb


def med(times: list, which: int) -> float:
    return statistics.median(t[which] for t in times)


def ratio(before: list, after: list, which: int) -> tuple[float, list]:
    """The median of the rounds' before / after (0: wall clock, 1: CPU), and the
    rounds' quartiles."""
    ratios = [b[which] / a[which] for b, a in zip(before, after, strict=True)]
    return statistics.median(ratios), statistics.quantiles(ratios, n=4)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--before", default=None, help="the revision whose audit is 'before' (default: the "
                                                  "merge-base of HEAD and main)")
    p.add_argument("--rounds", type=int, default=31)
    args = p.parse_args()
    if ROOT not in sys.path:
        sys.path.insert(0, ROOT)
    from referee import system

    system.wire()
    before = args.before or subprocess.run(["git", "-C", ROOT, "merge-base", "HEAD", "main"], check=True,
                                           capture_output=True, text=True).stdout.strip()
    log = game_with_contributions()
    work = tempfile.mkdtemp(prefix="referee-fair-deals-")
    tree = f"{work}/before"  # a copy of the revision's files (git archive): no worktree to clean up
    Path(tree).mkdir()
    archive = subprocess.run(["git", "-C", ROOT, "archive", before], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", tree], input=archive, check=True)
    procs = []
    try:
        Path(work, "with.jsonl").write_text("".join(ev.to_json() + "\n" for ev in log), encoding="utf-8")
        Path(work, "older.jsonl").write_text(in_older_form(log), encoding="utf-8")
        old = worker(tree, f"{work}/older.jsonl")
        new = worker(ROOT, f"{work}/with.jsonl")
        now_old = worker(ROOT, f"{work}/older.jsonl")
        procs = [old, new, now_old]
        t_old, t_new = interleaved(old, new, args.rounds)
        deals = sum(1 for ev in log if ev.type == "hand-dealt")
        print(f"audit with the seed derived from the seats' entropy: a King of Danger log of {len(log)} "
              f"events, {deals} deals; median of {args.rounds} interleaved rounds, each side a fresh process")
        cpu, quartiles = ratio(t_old, t_new, 1)
        print(f"  with {med(t_new, 1) * 1e3:7.1f} ms CPU ({med(t_new, 0) * 1e3:.1f} ms on the clock); before "
              f"({before[:7]}, the log in its older form) {med(t_old, 1) * 1e3:7.1f} ms CPU "
              f"({med(t_old, 0) * 1e3:.1f} ms on the clock)")
        print(f"  GOAL audit speed with the derivation / before (CPU): {cpu:5.3f}   "
              f"(goal >= 0.97: {'met' if cpu >= 0.97 else 'NOT met'}; the rounds' quartiles "
              f"{quartiles[0]:5.3f} and {quartiles[2]:5.3f})")
        wall, quartiles = ratio(t_old, t_new, 0)
        print(f"  the same on the clock, shown only: {wall:5.3f} (quartiles {quartiles[0]:5.3f} and "
              f"{quartiles[2]:5.3f})")
        t_old, t_now = interleaved(old, now_old, args.rounds)
        print(f"  an older export's audit now / before (CPU), shown only: {ratio(t_old, t_now, 1)[0]:5.3f}")
    finally:
        for proc in procs:
            proc.stdin.close()
            proc.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
