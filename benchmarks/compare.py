"""Two versions of the referee side by side over HTTP: which one costs a move less.

    python benchmarks/compare.py OLD NEW [--store sqlite|redis] [--rounds 6]

OLD and NEW are git revisions of this repository (``main``, ``HEAD~3``, a commit)
or folders holding a copy of it. Each is served as benchmarks/run.py serves the
referee (gunicorn gthread, one process, 8 threads, access log on), beside the bare
Flask echo, and the three take turns in interleaved rounds of 8 keep-alive clients.
Printed per round and as medians: moves/s (req/s for the echo) and the server's
CPU per request, read from /proc for the gunicorn processes (Linux only). The CPU
per move is the steadier figure: throughput follows the host's other load, the
CPU a move takes much less. Asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import run  # noqa: E402  (benchmarks/run.py: the servers, the clients, the moves)


def checkout(ref: str, into: str) -> str:
    """A folder holding ``ref``: the folder itself, or a detached git worktree
    (``into`` a folder of its own: OLD and NEW may be the same revision)."""
    if Path(ref, "referee").is_dir():
        return str(Path(ref).resolve())
    path = into
    subprocess.run(["git", "-C", run.ROOT, "worktree", "add", "--detach", "-q", path, ref], check=True)
    return path


def cpu_seconds(pid: int) -> float:
    """User and system CPU of a process and its children (gunicorn's workers)."""
    kids = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
    ticks = 0
    for p in [pid, *map(int, kids)]:
        fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("old")
    p.add_argument("new")
    p.add_argument("--store", choices=("sqlite", "redis"), default="sqlite")
    p.add_argument("--rounds", type=int, default=6)
    p.add_argument("--seconds", type=float, default=3)
    args = p.parse_args()
    work = tempfile.mkdtemp(prefix="referee-compare-")
    trees = []
    redis_proc, redis_url = run.start_redis(work)
    servers = {}
    try:
        roots = {}
        for name, ref in (("old", args.old), ("new", args.new)):
            roots[name] = checkout(ref, os.path.join(work, name))
            if roots[name].startswith(work):
                trees.append(roots[name])
        servers["echo"] = run.serve_echo(work)
        for i, name in enumerate(("old", "new")):
            url = f"sqlite:///{work}/{name}.db" if args.store == "sqlite" else redis_url.replace("/0", f"/{10 + i}")
            servers[name] = run.serve(url, work, 1, root=roots[name])
        _, _, moves = run.peaceful_moves(4000)
        rate = {k: [] for k in servers}
        cpu = {k: [] for k in servers}
        for _ in range(args.rounds):
            for name, (proc, port) in servers.items():
                before = cpu_seconds(proc.pid)
                r = run.http_round(port, 8, args.seconds, moves, echo=name == "echo")
                rate[name].append(r["rate"])
                cpu[name].append((cpu_seconds(proc.pid) - before) / max(1, r["accepted"] + r["refused"]))
            print("  " + "   ".join(f"{k} {rate[k][-1]:7.1f}/s {cpu[k][-1] * 1e6:5.0f} us" for k in servers), flush=True)
        def per_round(xs: list, ys: list) -> float:
            """The median of the rounds' ratios y / x."""
            return statistics.median(y / x for x, y in zip(xs, ys, strict=True))

        print(f"{args.store}, median of {args.rounds} interleaved rounds of {args.seconds:g} s, 8 clients:")
        for name in servers:
            ratio = "" if name == "echo" else f"   moves/s / echo req/s {per_round(rate['echo'], rate[name]):.3f}"
            print(f"  {name:4} {statistics.median(rate[name]):7.1f}/s   server CPU per request "
                  f"{statistics.median(cpu[name]) * 1e6:5.0f} us{ratio}")
        print(f"  new / old: moves/s {per_round(rate['old'], rate['new']):.3f}x, "
              f"server CPU per move {per_round(cpu['old'], cpu['new']):.3f}x")
    finally:
        for proc, _ in servers.values():
            run.stop(proc)
        redis_proc.kill()
        for path in trees:
            subprocess.run(["git", "-C", run.ROOT, "worktree", "remove", "--force", path], check=False)


if __name__ == "__main__":
    main()
