"""``referee keys`` and ``referee verify-receipt`` (docs/trust.md). What they load
is imported where it is used: ``verify-receipt`` runs on a verifier's machine,
offline, and loads no store, service or web framework."""

from __future__ import annotations

import json
import sys


def add(sub) -> None:
    """The commands, on the ``referee`` command's subparsers."""
    sp = sub.add_parser("keys", help="the referee's signing keys: list them, or rotate the current one")
    which = sp.add_subparsers(dest="keys_command", required=True)
    for name, fn, words in (
            ("list", cmd_keys_list, "print every key's public half, as GET /v1/keys answers"),
            ("rotate", cmd_keys_rotate, "make a new current key; the old one stays listed, with its until")):
        kp = which.add_parser(name, help=words)
        kp.add_argument("--store", help="sqlite:///PATH (default sqlite:///referee.db) or redis://HOST:PORT/DB;"
                                        " else $REFEREE_STORE")
        kp.set_defaults(fn=fn)

    sp = sub.add_parser("verify-receipt", help="check a receipt's signature, and that an export holds its event")
    sp.add_argument("receipt", help="RECEIPT.json: the receipt, an answer or webhook body holding it, or a "
                                    "saved e-mail notice (- for standard input)")
    sp.add_argument("--keys", help="KEYS.json (what GET /v1/keys answers) or the referee's URL "
                                   "(https://HOST or https://HOST/v1/keys)")
    sp.add_argument("--log", help="an export (GET .../export, or a league's bundle) that must hold the receipt's event")
    sp.set_defaults(fn=cmd_verify_receipt)


def _ring(args):
    from referee.config import Config
    from referee.store import open_store
    from referee.trust.keys import ring_of

    return ring_of(open_store(Config.load(args.store, None).store))


def cmd_keys_list(args) -> int:
    print(json.dumps({"keys": _ring(args).keys()}, indent=2))
    return 0


def cmd_keys_rotate(args) -> int:
    ring = _ring(args)
    key = ring.rotate()
    print(json.dumps(key.listed(), indent=2))
    print(f"key {key.key_id} signs from now on (every process takes it up within a few seconds); "
          "the keys before it stay listed in GET /v1/keys", file=sys.stderr)
    return 0


def _read(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    with open(path, encoding="utf-8") as fh:
        return fh.read()


def _keys_document(where: str):
    if where.startswith(("http://", "https://")):
        from urllib.parse import urlsplit
        from urllib.request import urlopen

        url = where.rstrip("/") + "/v1/keys" if urlsplit(where).path in ("", "/") else where
        with urlopen(url, timeout=30) as answer:  # noqa: S310 - a URL the user gave
            return json.load(answer)
    return json.loads(_read(where))


def cmd_verify_receipt(args) -> int:
    """0 when the signature holds (and, with --log, the log holds the event);
    else 1, saying what does not hold."""
    from referee.trust import verify

    def no(why: str) -> int:
        print(f"referee verify-receipt: {why}", file=sys.stderr)
        return 1

    try:
        receipt = verify.receipt_in(_read(args.receipt))
    except (OSError, UnicodeDecodeError) as err:
        return no(f"cannot read the receipt: {err}")
    if args.keys is None:
        return no("no keys to check the signature with: give --keys KEYS.json or the referee's URL")
    try:
        keys = verify.public_keys(_keys_document(args.keys))
        verify.check_signature(receipt, keys)
    except (OSError, ValueError) as err:
        return no(f"cannot read the keys: {err}")
    except verify.Refused as err:
        return no(f"refused: {err.field}: {err.detail}")
    print(f"signature holds: game {receipt['game']}, event {receipt['seq']}, hash {receipt['hash']}, "
          f"at {receipt['at']}, signed by key {receipt['key_id']}")
    if args.log is None:
        return 0
    try:
        with open(args.log, "rb") as fh:
            text = fh.read()
    except OSError as err:
        return no(f"cannot read the log: {err}")
    found = verify.check_receipts(text, [receipt])[0]
    if found["status"] != verify.HELD:
        return no(f"contradicted: {found['detail']}")
    print(f"held: {found['detail']}")
    return 0
