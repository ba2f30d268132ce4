"""``referee audit`` as a whole process against a bare process that parses and
hashes the same files (``benchmarks/bare_chain.py``: each line parsed, the hash
chain recomputed, nothing of the referee imported).

    python benchmarks/audit_cli.py [--rounds 15] [--before REV]

Two figures, each the median of per-round ratios bare / audit (the audit's speed
over the bare process's) in interleaved rounds, one process of each side per
round, the side going first alternating:

1. one log of 20,001 events (a Castle Danger game nobody ends, as
   ``benchmarks/run.py`` plays it): ``referee audit LOG``. Goal >= 0.33. Shown
   beside it, in the same rounds: ``referee audit`` of the revision before (default:
   where the branch left main, its files copied out with ``git archive``).
2. 100 logs in one run: ``referee audit`` given all 100 files, against one bare
   process given the same 100. The logs are finished games of random legal moves,
   25 of each game (King of Danger of 3, Castle Danger of 2 with a turn limit of
   10, King of the Castle of 2, King's Keys of 3), 26,701 lines. Goal >= 0.6. The
   revision before is shown beside it too, in the same rounds.

Each process is timed by the CPU it used (user + system, from ``wait4``): on a
shared host a process waiting for a core is not slower, and the wall clock's rounds
spread far more. The wall clock's ratio is shown beside each. A process's time is
its whole life: interpreter start, imports, reading, the audit, the verdicts.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = str(Path(__file__).resolve().parent.parent)
BARE = str(Path(__file__).resolve().parent / "bare_chain.py")
# what the installed ``referee`` command runs (its console script), from a given tree
REFEREE = "import sys; from referee.cli import main; sys.exit(main())"
GOALS = {"one": 0.33, "many": 0.6}
GAMES = [("king-of-danger", 3, {}), ("castle-danger", 2, {"turn_limit": 10}),
         ("king-of-the-castle", 2, {}), ("kings-keys", 3, {})]


def env_of(tree: str) -> dict:
    """The environment of a child running the package of ``tree`` (not whichever copy
    happens to be installed), its bytecode cached as an installed package's is: with
    PYTHONDONTWRITEBYTECODE set (some shells and containers set it) every start would
    compile every module again, about 30 ms of the referee's start (a warm-up run of
    each side writes the cache first)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "PYTHONPATH": os.pathsep.join(filter(None, [tree, os.environ.get("PYTHONPATH")]))}


def timed(cmd: list[str], tree: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one whole process running the package of ``tree``
    (from its folder: ``python -c`` looks there first); it must exit 0."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env_of(tree), cwd=tree, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{cmd[:4]}... exited {proc.returncode}")
    return wall, usage.ru_utime + usage.ru_stime


def interleaved(sides: dict[str, tuple[list[str], str]], rounds: int) -> dict[str, list]:
    """Each side's (wall, CPU) per round, the sides in turn, the first one rotating;
    after one run of each that is not timed (it writes the bytecode cache)."""
    names = list(sides)
    times = {name: [] for name in names}
    for name in names:
        timed(*sides[name])
    for k in range(rounds):
        order = names[k % len(names):] + names[:k % len(names)]
        for name in order:
            times[name].append(timed(*sides[name]))
    return times


def ratio(bare: list, audit: list, which: int) -> float:
    """The median of the rounds' bare / audit (0: wall clock, 1: CPU)."""
    return statistics.median(b[which] / a[which] for b, a in zip(bare, audit, strict=True))


def med(times: list, which: int) -> float:
    return statistics.median(t[which] for t in times)


def long_log(path: Path) -> int:
    from benchmarks.run import peaceful_moves

    _, log, _ = peaceful_moves(20000)
    path.write_text("".join(ev.to_json() + "\n" for ev in log), encoding="utf-8")
    return len(log)


def many_logs(folder: Path, games: list, count: int = 100) -> tuple[list[str], int]:
    from referee.autoplay import random_game

    folder.mkdir()
    paths, lines = [], 0
    for k in range(count):
        game, players, options = games[k % len(games)]
        _, log = random_game(game, players, options, f"audit-cli-{game}-{k}")
        path = folder / f"{k:03d}-{game}.jsonl"
        path.write_text("".join(ev.to_json() + "\n" for ev in log), encoding="utf-8")
        paths.append(str(path))
        lines += len(log)
    return paths, lines


def in_process(work: Path) -> None:
    """Where a mix's time goes, shown only: each game's 25 logs audited in this process
    against the bare reading in this process (best of three), no start counted."""
    sys.path.insert(0, str(Path(BARE).parent))
    import bare_chain

    from referee.audit import audit

    folder = work / f"many-{len(GAMES)}"
    print("  in one process, no start counted (best of 3), each game's 25 logs: audit / bare speed")
    for game, _, _ in GAMES:
        paths = sorted(str(p) for p in folder.glob(f"*-{game}.jsonl"))
        texts = [Path(p).read_bytes() for p in paths]
        best = [float("inf"), float("inf")]
        for _ in range(3):
            start = time.process_time()
            for text in texts:
                audit(text)
            best[0] = min(best[0], time.process_time() - start)
            start = time.process_time()
            for path in paths:
                bare_chain.chain_holds(path)
            best[1] = min(best[1], time.process_time() - start)
        lines = sum(text.count(b"\n") for text in texts)
        print(f"    {game:<20} {lines:6d} lines: audit {best[0] * 1e3:5.0f} ms, bare {best[1] * 1e3:4.0f} ms, "
              f"{best[1] / best[0]:5.3f} ({best[0] / lines * 1e6:4.1f} against {best[1] / lines * 1e6:4.1f} µs a line)")


def load() -> str:
    """The host's load (1, 5 and 15 minutes), printed with the figures: on a shared
    host they move with it."""
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg()) + f" on {os.cpu_count()} cores"


def verdict(value: float, goal: float) -> str:
    return "met" if value >= goal else "NOT met"


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=15)
    p.add_argument("--before", default=None, help="the revision whose `referee audit` is shown beside "
                                                  "(default: the merge-base of HEAD and main); '' for none")
    args = p.parse_args(argv)
    if ROOT not in sys.path:
        sys.path.insert(0, ROOT)
    from referee import standalone

    standalone.wire()
    print(f"at the start: {load()}", flush=True)
    work = Path(tempfile.mkdtemp(prefix="referee-audit-cli-"))
    try:
        here = ROOT
        one = work / "long.jsonl"
        events = long_log(one)
        sides = {"bare": ([sys.executable, BARE, str(one)], here),
                 "audit": ([sys.executable, "-c", REFEREE, "audit", str(one)], here)}
        before = args.before
        if before is None:
            before = subprocess.run(["git", "-C", ROOT, "merge-base", "HEAD", "main"], check=True,
                                    capture_output=True, text=True).stdout.strip()
        if before:
            tree = work / "before"  # the revision's files (git archive): no worktree to clean up
            tree.mkdir()
            archive = subprocess.run(["git", "-C", ROOT, "archive", before], check=True,
                                     capture_output=True).stdout
            subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
            sides["before"] = ([sys.executable, "-c", REFEREE, "audit", str(one)], str(tree))
        t = interleaved(sides, args.rounds)
        cpu, wall = ratio(t["bare"], t["audit"], 1), ratio(t["bare"], t["audit"], 0)
        print(f"referee audit of one log of {events} events, a whole process against the bare "
              f"parse-and-hash process (median of {args.rounds} interleaved rounds)")
        print(f"  audit {med(t['audit'], 1) * 1e3:6.0f} ms CPU ({med(t['audit'], 0) * 1e3:.0f} ms on the clock); "
              f"bare {med(t['bare'], 1) * 1e3:6.0f} ms CPU ({med(t['bare'], 0) * 1e3:.0f} ms on the clock)")
        print(f"  GOAL audit speed / bare speed (CPU): {cpu:5.3f}   (goal >= {GOALS['one']}: "
              f"{verdict(cpu, GOALS['one'])}); on the clock, shown only: {wall:5.3f}")
        if before:
            print(f"  before ({before[:7]}): {med(t['before'], 1) * 1e3:6.0f} ms CPU, "
                  f"{ratio(t['bare'], t['before'], 1):5.3f} of the bare speed "
                  f"({ratio(t['bare'], t['before'], 0):5.3f} on the clock), shown only")

        for label, games, goal in (("finished games, 25 of each game", GAMES, GOALS["many"]),
                                   ("finished Castle Danger games of 2, turn limit 10", GAMES[1:2], None)):
            paths, lines = many_logs(work / f"many-{len(games)}", games)
            sides = {"bare": ([sys.executable, BARE, *paths], here),
                     "audit": ([sys.executable, "-c", REFEREE, "audit", *paths], here)}
            if before and goal is not None:  # the revision before, beside the goal's figure
                sides["before"] = ([sys.executable, "-c", REFEREE, "audit", *paths], str(work / "before"))
            t = interleaved(sides, args.rounds)
            cpu, wall = ratio(t["bare"], t["audit"], 1), ratio(t["bare"], t["audit"], 0)
            print(f"referee audit of {len(paths)} logs in one run ({lines} lines: {label}) against one "
                  f"bare process given the same files")
            print(f"  audit {med(t['audit'], 1) * 1e3:6.0f} ms CPU ({med(t['audit'], 0) * 1e3:.0f} ms on the "
                  f"clock); bare {med(t['bare'], 1) * 1e3:6.0f} ms CPU ({med(t['bare'], 0) * 1e3:.0f} ms on the clock)")
            if goal is not None:
                print(f"  GOAL audit speed / bare speed (CPU): {cpu:5.3f}   (goal >= {goal}: "
                      f"{verdict(cpu, goal)}); on the clock, shown only: {wall:5.3f}")
                if "before" in t:
                    print(f"  before ({before[:7]}): {med(t['before'], 1) * 1e3:6.0f} ms CPU, "
                          f"{ratio(t['bare'], t['before'], 1):5.3f} of the bare speed "
                          f"({ratio(t['bare'], t['before'], 0):5.3f} on the clock), shown only")
            else:
                print(f"  audit speed / bare speed (CPU), shown only: {cpu:5.3f}; on the clock: {wall:5.3f}")
        in_process(work)
        print(f"at the end: {load()}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
