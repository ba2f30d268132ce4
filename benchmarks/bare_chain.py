"""The bare process ``benchmarks/audit_cli.py`` times ``referee audit`` against: it
reads each JSON Lines file given, parses each line and recomputes the hash chain
(each event's hash the SHA-256 of its canonical JSON without the hash, each
``prev`` the hash before), and prints one verdict a file. Nothing of the referee is
imported: what no audit of the same files can beat, started as a process the same way.

    python benchmarks/bare_chain.py A.jsonl [B.jsonl ...]
"""

import hashlib
import json
import sys

CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def chain_holds(path: str) -> bool:
    prev = "0" * 64
    with open(path, "rb") as fh:
        lines = fh.read().decode("utf-8").splitlines()
    for line in lines:
        event = json.loads(line)
        given = event.pop("hash")
        if event["prev"] != prev or hashlib.sha256(CANONICAL.encode(event).encode()).hexdigest() != given:
            return False
        prev = given
    return True


def main(paths: list[str]) -> int:
    failed = 0
    for path in paths:
        ok = chain_holds(path)
        failed += not ok
        print(f"{path}: {'ok' if ok else 'broken'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
