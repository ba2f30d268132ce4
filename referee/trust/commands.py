"""``referee keys`` and ``referee verify-receipt`` (docs/trust.md). What they load
is imported where it is used: ``verify-receipt`` runs on a verifier's machine,
offline, and loads no store, service or web framework (with a receipt that holds a
checkpoint, it also checks the event's place in the transparency log:
referee/transparency/checking.py)."""

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
    sp.add_argument("--witnesses", type=int, default=0,
                    help="N: require N cosignatures, by witnesses of --witness-keys, on the receipt's checkpoint")
    sp.add_argument("--witness-keys", help="FILE: the witnesses trusted, one C2SP verifier key a line")
    sp.add_argument("--checkpoint", action="append", default=[],
                    help="FILE: a checkpoint seen elsewhere (a note, or a receipt holding one); one of the "
                         "receipt's size with another root is a fork (may be given again)")
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


def _in_the_log(args, receipt: dict, keys: dict) -> str | None:
    """The transparency log's part (docs/trust.md): the receipt's event is in its
    signed checkpoint, the witnesses trusted cosigned it, and no checkpoint given
    forks it. None when all holds; else what does not."""
    from referee.transparency import checking, notes
    from referee.trust import verify

    try:
        note, head = checking.included(receipt, keys)
        print(f"in the transparency log: leaf {receipt['index']} of the checkpoint of size {head.size} "
              f"({head.origin})")
        for path in args.checkpoint:
            text = _read(path)
            other = verify.receipt_in(text) if text.lstrip().startswith("{") else None
            whole = other.get("checkpoint") if isinstance(other, dict) else text
            if not isinstance(whole, str):
                return f"{path} holds no checkpoint"
            _, seen = checking.signed_checkpoint(whole, keys)
            if checking.forked(head, seen):
                return (f"forked: the referee signed two heads of size {head.size} with different roots "
                        f"(the receipt's and {path}'s)")
        if args.witnesses:
            if not args.witness_keys:
                return "--witnesses needs --witness-keys FILE"
            trusted = checking.witness_keys(_read(args.witness_keys))
            names = checking.cosigned_by(note, trusted)
            if len(names) < args.witnesses:
                return (f"{len(names)} of the trusted witnesses cosigned the receipt's checkpoint "
                        f"({', '.join(names) or 'none'}); {args.witnesses} required")
            print(f"cosigned by {len(names)} trusted witness(es): {', '.join(names)}")
    except checking.Caught as err:
        return str(err)
    except (OSError, UnicodeDecodeError) as err:
        return f"cannot read: {err}"
    except notes.BadNote as err:
        return f"not a checkpoint: {err}"
    return None


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
    if "checkpoint" in receipt or args.witnesses or args.checkpoint:
        held = _in_the_log(args, receipt, keys)
        if held is not None:
            return no(held)
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
