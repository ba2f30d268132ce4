"""``referee witness`` (docs/running.md, "Running a witness"): one run fetches the
referee's latest checkpoint, checks it is the referee's and that it extends the
last one this witness saw (a consistency proof it verifies itself), remembers it,
cosigns it and posts the cosignature. A rewritten, rolled-back or forked tree is
refused, said, and not cosigned; the state keeps the head seen before.

Light, as ``verify-receipt``: it runs on the witness's machine and loads no
store, service or web framework."""

from __future__ import annotations

import json
import os
import sys
import time


def add(sub) -> None:
    sp = sub.add_parser("witness", help="check the referee's transparency log grew append-only, and cosign its head")
    sp.add_argument("--referee", required=True, help="the referee's URL (https://HOST)")
    sp.add_argument("--state", required=True, help="FILE: the last checkpoint this witness saw (made if missing)")
    sp.add_argument("--key", help="FILE: the witness's private key, made if missing (default: STATE.key)")
    sp.add_argument("--name", help="the witness's name when its key is made (default: witness.HOSTNAME)")
    sp.set_defaults(fn=cmd_witness)


def _get(url: str, as_json: bool = True):
    from urllib.request import urlopen

    with urlopen(url, timeout=30) as answer:  # noqa: S310 - the URL the operator gave
        body = answer.read().decode()
    return json.loads(body) if as_json else body


def _post(url: str, body: dict) -> tuple[int, dict]:
    from urllib.error import HTTPError
    from urllib.request import Request, urlopen

    req = Request(url, data=json.dumps(body).encode(), method="POST",  # noqa: S310
                  headers={"Content-Type": "application/json"})
    try:
        with urlopen(req, timeout=30) as answer:  # noqa: S310 - the URL the operator gave
            return answer.status, json.loads(answer.read() or b"{}")
    except HTTPError as err:
        try:
            return err.code, json.loads(err.read() or b"{}")
        except ValueError:
            return err.code, {}


def load_key(path: str, name: str | None):
    """The witness's key from ``path``, made (and written, owner-only) if missing."""
    # socket here, not at the top: only a new witness asks its host's name, and every
    # `referee` command (an audit of a season's logs too) would pay for it at its start
    import socket

    from referee.transparency import notes

    if os.path.exists(path):
        with open(path, encoding="utf-8") as fh:
            return notes.WitnessKey.parse(fh.read())
    key = notes.WitnessKey.generate(name or f"witness.{socket.gethostname() or 'local'}")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(key.text)
    return key


def _save(path: str, state: dict) -> None:
    tmp = f"{path}.tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(state, fh, indent=2)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def cmd_witness(args) -> int:
    from referee.transparency import checking, notes
    from referee.trust import verify

    def no(why: str) -> int:
        print(f"referee witness: {why}", file=sys.stderr)
        return 1

    base = args.referee.rstrip("/")
    try:
        key = load_key(args.key or f"{args.state}.key", args.name)
    except (OSError, notes.BadNote) as err:
        return no(f"cannot read or make the key: {err}")
    print(f"witness key: {key.verifier.text}")
    try:
        keys = verify.public_keys(_get(f"{base}/v1/keys"))
        whole = _get(f"{base}/v1/transparency/checkpoint", as_json=False)
    except (OSError, ValueError) as err:
        return no(f"cannot reach the referee: {err}")
    except verify.Refused as err:
        return no(f"the referee's keys: {err.detail}")
    try:
        note, head = checking.signed_checkpoint(whole, keys)
        seen = None
        if os.path.exists(args.state):
            with open(args.state, encoding="utf-8") as fh:
                seen = notes.parse_checkpoint(json.load(fh)["checkpoint"])
        if seen is not None:
            proof = None
            if seen.size < head.size and seen.size > 0:
                proof = _get(f"{base}/v1/transparency/proof/consistency?from={seen.size}&to={head.size}")["hashes"]
            checking.extends(seen, head, proof)
    except checking.Caught as err:
        print(f"referee witness: REFUSED, not cosigned: {err}", file=sys.stderr)
        print(f"referee witness: the checkpoint shown:\n{whole}", file=sys.stderr)
        return 1
    except (OSError, ValueError, KeyError, notes.BadNote) as err:
        return no(f"cannot read the state or the proof: {err}")
    _save(args.state, {"checkpoint": note.text, "seen_at": int(time.time())})
    line = key.cosign(note.text, int(time.time()))
    status, answer = _post(f"{base}/v1/transparency/witness",
                           {"size": head.size, "key": key.verifier.text, "cosignature": line})
    if status != 201:
        return no(f"the referee kept no cosignature ({status}): {answer.get('detail', answer)}")
    print(f"cosigned {head.origin} at size {head.size} ({answer.get('cosignatures')} witness(es) now)")
    return 0
