"""``POST /v1/audit``'s receipts: the body is an export as ever, and may begin with
receipts, one line each, ``{"receipt": RECEIPT}`` (docs/api.md, "Auditing"). The
log after them is audited as it always is, and the report says of each receipt
whether the log holds its event (``held``) or not (``contradicted``).

Lines before the export keep the body what it was (an export's text, in the same
media types): a client that sends an export alone is answered as before, and
generated clients keep the one body they know. A receipt's signature is checked
here, against the referee's own keys, before anything is audited: one that does
not hold is refused (400, naming it), since it is no word of the referee's.
"""

from __future__ import annotations

import json
import re
from functools import partial

from referee.games.base import MalformedMove
from referee.trust import verify

MAX_RECEIPTS = 256  # receipts checked beside one log (each signature on the request's thread)
_RECEIPT_LINE = re.compile(rb'[ \t]*\{[ \t]*"receipt"[ \t]*:')  # a line that begins as one


def receipts_before(service, body: bytes) -> tuple[list[dict], bytes]:
    """The receipts the body begins with, each signed by one of the referee's keys,
    and the export after them (the body as it came when it begins with none)."""
    if not _RECEIPT_LINE.match(body):
        return [], body
    receipts, at = [], 0
    while _RECEIPT_LINE.match(body, at):
        end = body.find(b"\n", at)
        end = len(body) if end < 0 else end + 1
        where = f"receipts[{len(receipts)}]"
        if len(receipts) == MAX_RECEIPTS:
            raise MalformedMove(f"at most {MAX_RECEIPTS} receipts beside one log", field="receipts")
        try:
            line = json.loads(body[at:end])
        except (ValueError, RecursionError):
            line = None
        if not isinstance(line, dict) or set(line) != {"receipt"}:
            raise MalformedMove(f"line {len(receipts) + 1} is no line {{\"receipt\": {{...}}}}", field=where)
        receipts.append(line["receipt"])
        at = end
    known = verify.public_keys({"keys": service.receipts.keys() if service.receipts is not None else []})
    for i, receipt in enumerate(receipts):
        try:
            verify.check_signature(receipt, known)
        except verify.Refused as err:
            field = f"receipts[{i}]" + (f".{err.field}" if err.field != "receipt" else "")
            raise MalformedMove(f"receipt {i} is refused: {err.detail}", field=field) from None
    return receipts, body[at:]


def with_receipts(receipts: list[dict], audit):
    """The audit to run (``audit``, or a game's when None), checking ``receipts``
    against the same log where it runs (the audit pool); as it was without any."""
    if not receipts:
        return audit
    from referee import audit as auditmod

    return partial(verify.audit_with_receipts, receipts=receipts, audit=audit or auditmod.audit)
