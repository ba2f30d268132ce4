"""What threads cost a move: CPU per accepted move, in process (the WSGI app called
directly: no gunicorn, no sockets, SQLite without an fsync per commit), with one
thread, with eight on every CPU the system gives, and with eight kept on one CPU.

    python benchmarks/threads.py [--rounds 3] [--moves 300]

Each configuration runs in a process of its own, in interleaved rounds; the
figures are medians of the per-round ratios. It asserts nothing: it shows where
`referee serve --pin-workers` (docs/scaling.md) gets its gain.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = str(Path(__file__).resolve().parent.parent)


def play(threads: int, moves_each: int) -> float:
    """CPU seconds of this process per accepted move, ``threads`` threads each
    playing its own Castle Danger game."""
    sys.path.insert(0, ROOT)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    work = tempfile.mkdtemp(prefix="referee-threads-")
    os.environ.update({"PROMETHEUS_MULTIPROC_DIR": tempfile.mkdtemp(), "REFEREE_SQLITE_SYNC": "normal",
                       "REFEREE_MOVE_RATE": "100000000/minute", "REFEREE_STORE": f"sqlite:///{work}/t.db"})
    sys.stderr = open(os.devnull, "w")  # the access log, as a deployment writes it
    from run import peaceful_moves

    from referee import logs
    from referee.api import create_app

    logs.configure()
    app = create_app()
    _, _, moves = peaceful_moves(moves_each + 10)

    def call(method, path, body=b"", token=None):
        env = {"REQUEST_METHOD": method, "PATH_INFO": path, "QUERY_STRING": "", "SERVER_NAME": "127.0.0.1",
               "SERVER_PORT": "8000", "SERVER_PROTOCOL": "HTTP/1.1", "wsgi.url_scheme": "http",
               "wsgi.input": io.BytesIO(body), "wsgi.errors": sys.stderr, "wsgi.multithread": True,
               "wsgi.multiprocess": False, "wsgi.run_once": False, "wsgi.version": (1, 0),
               "REMOTE_ADDR": "127.0.0.1", "CONTENT_LENGTH": str(len(body)),
               "CONTENT_TYPE": "application/json", "HTTP_HOST": "127.0.0.1:8000"}
        if token:
            env["HTTP_AUTHORIZATION"] = "Bearer " + token
        status = []
        out = b"".join(app(env, lambda s, h, e=None: status.append(s)))
        return status[0], out

    ready = threading.Barrier(threads + 1)

    def player():
        _, out = call("POST", "/v1/games", json.dumps({"game": "castle-danger", "players": ["a", "b"]}).encode())
        created = json.loads(out)
        tokens = [s["token"] for s in created["seats"]]
        ready.wait()
        for seat, move in moves[:moves_each]:
            status, out = call("POST", f"/v1/games/{created['id']}/moves", json.dumps({"move": move}).encode(),
                               tokens[seat])
            assert status.startswith("201"), out

    workers = [threading.Thread(target=player) for _ in range(threads)]
    for w in workers:
        w.start()
    ready.wait()
    start = time.process_time()
    for w in workers:
        w.join()
    return (time.process_time() - start) / (threads * moves_each)


CONFIGS = {"1 thread": (1, None), "8 threads, every CPU": (8, None), "8 threads, one CPU": (8, 0)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--moves", type=int, default=300, help="moves per thread")
    p.add_argument("--child", nargs=2, type=int, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        threads, cpu = args.child
        if cpu >= 0:
            os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[cpu]})
        print(play(threads, args.moves))
        return
    got: dict[str, list[float]] = {name: [] for name in CONFIGS}
    for _ in range(args.rounds):  # interleaved: every configuration once per round
        for name, (threads, cpu) in CONFIGS.items():
            out = subprocess.run([sys.executable, __file__, "--moves", str(args.moves), "--child", str(threads),
                                  str(-1 if cpu is None else cpu)], capture_output=True, text=True, check=True)
            got[name].append(float(out.stdout.split()[-1]))
    print(f"CPU per accepted move, in process (median of {args.rounds} interleaved rounds, "
          f"{os.cpu_count()} CPUs)")
    for name, xs in got.items():
        print(f"  {name:22} {statistics.median(xs) * 1e6:7.0f} us")
    one, every, pinned = got["1 thread"], got["8 threads, every CPU"], got["8 threads, one CPU"]
    more = statistics.median(b / a for a, b in zip(one, every, strict=True))
    crossing = statistics.median(b / a for a, b in zip(pinned, every, strict=True))
    print(f"  8 threads on every CPU / 1 thread:   {more:4.2f}x")
    print(f"  8 threads on every CPU / on one CPU: {crossing:4.2f}x")

if __name__ == "__main__":
    main()
