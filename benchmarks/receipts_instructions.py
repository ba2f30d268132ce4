"""What a receipt adds to a move, in instructions: callgrind's count (valgrind) of the
same moves handed to the move lane in process, the referee signing a receipt in
every answer against the same referee signing none. Instruction counts do not
depend on the load of a shared host, as moves/s and CPU seconds do, so this is
the figure to compare before and after a change to the receipt's path
(benchmarks/README.md, "Signed receipts").

Each side runs in a process of its own under ``valgrind --tool=callgrind``, which
counts only while the moves are played (``--toggle-collect`` on libffi's call, by
which the moves are started: ctypes calls them through the interpreter's C API),
after a warm-up of both sides; the key ring looks at the store once, before. Printed: instructions a move on each side, the
difference, and the libraries (shared objects) it is spent in.

    PYTHONPATH=. python benchmarks/receipts_instructions.py [--moves 60] [--store sqlite|redis]
"""

from __future__ import annotations

import argparse
import ctypes
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = str(Path(__file__).resolve().parent.parent)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)


def child(signed: bool, url: str, n: int) -> None:
    """Play ``n`` moves through the lane, counted; the warm-up before is not."""
    from benchmarks.receipts import SEED, Bench
    from benchmarks.run import peaceful_moves

    os.environ["REFEREE_MOVE_RATE"] = "1000000/minute"
    os.environ["REFEREE_SQLITE_SYNC"] = "normal"
    bench = Bench(url, peaceful_moves(2 * n, SEED)[2][:n])
    # The ring looks at which key is current every 2 s: natively once in some 2,000
    # moves, under valgrind (about 50 times slower) once in some 40, whose new SQLite
    # connection (the schema read again, ~0.5 M instructions) would be counted as the
    # receipts' own. Looked at once here, at the warm-up, as a native process would.
    bench.receipts.ring.refresh = 3600.0
    bench.play(signed)
    bench.play(not signed)
    bench.service.receipts = bench.receipts if signed else None
    environs = bench.requests(*bench.game())
    statuses = []

    def moves():
        for env in environs:
            b"".join(bench.front(env, lambda status, headers: statuses.append(status)))

    call = ctypes.pythonapi.PyObject_CallNoArgs  # through ffi_call: callgrind counts from here
    call.argtypes, call.restype = [ctypes.py_object], ctypes.py_object
    call(moves)
    assert len(statuses) == n and all(s.startswith("201") for s in statuses), statuses[:3]


def by_object(out: str) -> tuple[int, dict[str, int]]:
    """The total and each shared object's instructions of a callgrind output."""
    text = subprocess.run(["callgrind_annotate", "--threshold=100", out], capture_output=True, text=True,
                          check=True).stdout
    total, objects = 0, {}
    for line in text.splitlines():
        found = re.match(r"\s*([\d,]+) \([ \d.]+%\)\s+(.*?)(?: \[(.*)\])?$", line)
        if not found:
            continue
        count = int(found.group(1).replace(",", ""))
        if "PROGRAM TOTALS" in found.group(2):
            total = count
        else:
            objects[_object(found.group(2), found.group(3))] = objects.get(
                _object(found.group(2), found.group(3)), 0) + count
    return total, objects


PYTHON = f"libpython{sys.version_info.major}.{sys.version_info.minor}.so.1.0"


def _object(where: str, obj: str | None) -> str:
    """The shared object a line of callgrind_annotate counts in; a function inlined
    from a header is printed without one: the interpreter's or libsodium's, by its
    source's path."""
    if obj is not None:
        return Path(obj).name
    if "/Python-" in where or where.startswith("python-build"):
        return PYTHON
    return "_sodium.abi3.so" if "/libsodium/" in where else "?"


def measure(url: str, n: int, work: str) -> dict[str, tuple[int, dict[str, int]]]:
    got = {}
    for side in ("with", "without"):
        out = f"{work}/callgrind.{side}.out"
        subprocess.run(["valgrind", "--tool=callgrind", "--collect-atstart=no", "--toggle-collect=ffi_call",
                        f"--callgrind-out-file={out}", sys.executable, __file__, "--child", side, "--url", url,
                        "--moves", str(n)], check=True, capture_output=True,
                       env={**os.environ, "PYTHONHASHSEED": "0"})
        got[side] = by_object(out)
    return got


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--moves", type=int, default=60)
    ap.add_argument("--store", choices=("sqlite", "redis"), default="sqlite")
    ap.add_argument("--child", choices=("with", "without"), help=argparse.SUPPRESS)
    ap.add_argument("--url", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        child(args.child == "with", args.url, args.moves)
        return
    work = tempfile.mkdtemp(prefix="referee-receipt-instructions-")
    redis = None
    if args.store == "sqlite":
        url = f"sqlite:///{work}/receipts.db"
    else:
        from benchmarks.run import start_redis

        redis, url = start_redis(work)
    try:
        got = measure(url, args.moves, work)
    finally:
        if redis is not None:
            redis.terminate()
            redis.wait(10)
    n = args.moves
    (w, wobj), (wo, woobj) = got["with"], got["without"]
    print(f"receipts, instructions a move ({args.store}, {n} moves through the lane, callgrind):")
    print(f"  with {w / n:12,.0f}   without {wo / n:12,.0f}   a receipt adds {(w - wo) / n:10,.0f} "
          f"({w / wo - 1:+.1%})")
    rows = sorted(((wobj.get(k, 0) - woobj.get(k, 0)) / n, k) for k in set(wobj) | set(woobj))
    for delta, name in sorted(rows, key=lambda r: -abs(r[0]))[:6]:
        print(f"    {delta:10,.0f}  {name}")


if __name__ == "__main__":
    main()
