"""An exported log's lines read and checked: each line the canonical JSON of an
event, ``seq`` running 1, 2, 3..., every ``prev`` the previous ``hash``, every
``hash`` the SHA-256 of its event (referee/audit.py replays what this reads; a
league's bundle reads its lines with it too, referee/leagues/bundle.py).

Lines are parsed by orjson, and a payload's canonical form is checked by orjson's
text where that is sure to be the standard library's; the standard library
decides everywhere else (docs/architecture.md, "How an audit reads a log")."""

from __future__ import annotations

import contextlib
import gc
import hashlib
import json
import threading
from json.encoder import encode_basestring

import orjson

from referee.events import Event, canonical_text, parsed_canonical_text

FIELDS = {"seq", "type", "actor", "at", "payload", "prev", "salt", "hash"}

class Divergence(Exception):
    def __init__(self, seq: int, code: str, detail: str):
        super().__init__(detail)
        self.seq, self.code, self.detail = seq, code, detail
        # raised by ``read_lines``: the events read and checked before the line that
        # failed (a report says what was read: referee/audit.py)
        self.read: list[Event] = []


def _scalar_text(value) -> str:
    """canonical_text of one field's value, without the encoder's per-call setup for
    the usual string or integer (``actor``, ``at`` and ``hash`` of every line)."""
    if type(value) is str:
        return encode_basestring(value)
    if type(value) is int:
        return int.__repr__(value)
    return canonical_text(value)


def _loads(line: str):
    """The value of a line, as json.loads gives it, by orjson (twice as fast); None
    when orjson does not take the line (not JSON, or what only the standard library
    reads: NaN, a number past a double's range, a lone surrogate). json.loads then
    says what is wrong with it, or takes it.

    Where orjson takes a line its value is the standard library's, but for an
    integer past 64 bits, which orjson reads as a float. A value read by orjson is
    kept only for a line proven the usual one (``read_lines``): the canonical JSON
    of that value as the standard library writes it, a text that parses back to the
    one value in both; an integer past 64 bits, read as a float, is never written
    so (the float's text has a point or an exponent), and every other line is
    read again by the standard library alone (``_read_slowly``)."""
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        return None


_SORTED = orjson.OPT_SORT_KEYS


def written_as(value, text: str) -> bool:
    """Whether ``text`` is the canonical JSON of ``value``, where ``text`` is the
    canonical JSON of some value (``_same``: a line ``read_lines`` checked) or holds
    no float (``_payload_canonical``). orjson writes the value first (three times
    as fast as the standard library); where its text is ``text`` the answer is
    yes. Without a float, orjson's text is the standard library's to the byte
    (keys sorted by code point; strings, integers, true, false and null written
    alike). With one, that text parses back to ``value`` exactly (an integer as an
    integer, true as true, a number with a point as a float), and a canonical text
    is the canonical text of what it parses to. Where orjson's text differs (it
    writes some floats otherwise, ``1e16`` for ``1e+16``) or it cannot write the
    value, the standard library decides."""
    try:
        if orjson.dumps(value, option=_SORTED).decode() == text:
            return True
    except TypeError:  # a key that is no string, an integer past 64 bits
        pass
    return parsed_canonical_text(value) == text


# A digit followed by a point or an exponent's "e": every float written in JSON has
# one (its integer part ends in a digit, then its fraction or exponent begins); so
# may a string, which then goes the standard library's way too (``_payload_canonical``).
# Looked for as "0." in the text's UTF-8 with every digit made "0" and every point,
# "e" or "E" made "." (no byte of a character beyond ASCII is one of them): one pass
# of a table in C, 0.36 µs for the mean payload of 91 characters against 0.68 µs for
# the regular expression [0-9][.eE] (whose scan was 7 % of a reading's instructions).
_DIGIT_POINT = bytes.maketrans(b"0123456789.eE", b"0000000000...")


# How many payload texts found canonical an audit remembers: a game repeats many
# (the same step, the same answer), and each is then not encoded again. A log the
# API takes (16 MiB) has fewer lines than this. Only texts of at most
# KNOWN_LENGTH characters are remembered: the ones that repeat are short (a move,
# a step's answer; none longer than 256 in 100 games of the four kinds), and so
# texts remembered across the many logs of one `referee audit` hold at most
# 65536 x 512 characters.
KNOWN_PAYLOADS = 65536
KNOWN_LENGTH = 512


@contextlib.contextmanager
def no_gc_pauses():
    """An audit holds a log's parsed events until each is replayed and makes no
    reference cycles, so the cyclic collector's repeated scans of them (a tenth or
    more of an audit's time) find nothing: it waits until the audit ends (the last
    of those running at once in this process). Reference counting frees everything
    as usual."""
    global _auditing, _gc_was_on
    with _gc_lock:
        if _auditing == 0:
            _gc_was_on = gc.isenabled()
            gc.disable()
        _auditing += 1
    try:
        yield
    finally:
        with _gc_lock:
            _auditing -= 1
            if _auditing == 0 and _gc_was_on:
                gc.enable()


_gc_lock = threading.Lock()
_auditing = 0  # audits running in this process
_gc_was_on = True


def parse(text: str | bytes, payloads: dict[str, str] | None = None) -> list[Event]:
    """The events of a log's text, every line checked (``read_lines``; ``payloads``
    as it takes them)."""
    raw = text.encode() if isinstance(text, str) else text
    try:  # one decode for the whole log; line by line only to name a line that is not UTF-8
        whole = raw.decode("utf-8")
    except UnicodeDecodeError:
        whole = None
    lines = whole.split("\n") if whole is not None else raw.split(b"\n")
    if lines and not lines[-1]:
        lines.pop()
    return read_lines(lines, payloads)


def _payload_canonical(payload, text: str) -> bool:
    """Whether ``text``, cut from a line between the usual fields around it, is the
    canonical JSON of ``payload``, what the line parsed to there: orjson writes it
    first (as ``written_as`` does, its bytes against the text's) unless the text may
    hold a float (``_DIGIT_POINT``), which the standard library then writes."""
    # surrogatepass: a lone surrogate (only json.loads reads one) gives bytes no UTF-8
    # orjson writes, so the standard library decides that text
    written = text.encode("utf-8", "surrogatepass")
    # (find, not ``in``: ``in`` first asks whether b"0." is an integer, and pays for the error)
    if written.translate(_DIGIT_POINT).find(b"0.") < 0:
        try:
            if orjson.dumps(payload, option=_SORTED) == written:
                return True
        except TypeError:  # a key that is no string, an integer past 64 bits
            pass
    return parsed_canonical_text(payload) == text


def _read_slowly(i: int, line: str | bytes) -> tuple[str, object]:
    """Line ``i`` and its value as the standard library reads it: for a line orjson
    does not take (bytes: a log that is no UTF-8 as a whole; what only json.loads
    reads or can name the fault of), and for every line that is not the usual one
    (``read_lines``' long way), which orjson may read otherwise (an integer past 64
    bits as a float)."""
    if type(line) is bytes:
        try:
            line = line.decode("utf-8")
        except UnicodeDecodeError:
            raise Divergence(i, "malformed", f"line {i} is not UTF-8") from None
    try:
        return line, json.loads(line)  # anything else, answered (or refused) as json.loads does
    except json.JSONDecodeError as err:
        raise Divergence(i, "malformed", f"line {i} is not JSON: {err}") from None
    except ValueError:  # Python reads no integer of more than 4,300 digits
        raise Divergence(i, "malformed", f"line {i} holds an integer too long to read") from None


def _read_alone(i: int, line: str | bytes) -> tuple[str, object]:
    """Line ``i`` and its value, read by itself (orjson, or ``_read_slowly``)."""
    d = _loads(line) if type(line) is str else None
    return (line, d) if d is not None else _read_slowly(i, line)


# How many lines are read by one call of orjson (``_at_once``): few enough that
# what it makes is still in the processor's cache when the lines are checked (a
# whole log of 20,001 lines at once was read 20 % slower than a line at a time).
AT_ONCE = 128


def _at_once(lines: list, start: int) -> list:
    """The values of the next AT_ONCE lines from ``start`` (or those left), read by
    one call of orjson as one JSON array, their newlines made commas: one call
    instead of one a line, 6 ms less of the 120 ms of reading 100 logs. None for
    each where orjson does not read them so, or reads another number of values.

    ``read_lines`` takes a line's value from the array only where the line proves
    the usual one, and reads any other line alone: so every line before it in the
    array was one JSON value by itself (else the reading stopped there), and the
    array's value at its place is its own if it is one JSON value by itself, as a
    line proven the usual one is."""
    part = lines[start:start + AT_ONCE]
    try:
        values = orjson.loads("[" + ",".join(part) + "]")
    except (orjson.JSONDecodeError, TypeError):  # not JSON so, or lines of bytes
        values = ()
    return values if len(values) == len(part) else [None] * len(part)


def _body_the_long_way(i: int, d: dict, line: str) -> str:
    """The canonical JSON of the body of line ``i`` (``d``, parsed, without its
    "hash"), the line being exactly that with "hash" in its sorted place (after
    "at"); else not canonical."""
    given = d.pop("hash")
    body = parsed_canonical_text(d)
    head = '{"actor":' + _scalar_text(d["actor"]) + ',"at":' + _scalar_text(d["at"]) + ","
    if not body.startswith(head) or line != head + '"hash":' + _scalar_text(given) + "," + body[len(head):]:
        raise Divergence(i, "not-canonical", f"line {i} is not in canonical JSON form")
    return body


def read_lines(lines: list, payloads: dict[str, str] | None = None) -> list[Event]:
    """The events of a log's lines (str, or bytes where the whole was no UTF-8),
    every line checked (see the module's docstring); ``payloads``: the payload
    texts found canonical so far, shared by the logs of one bundle or of one
    `referee audit` of many files (games of a kind repeat them).

    One canonical form per event: the body's (what the hash covers), and the line
    exactly that with "hash" in its sorted place. The usual line is checked
    without encoding it again: it has no backslash, so each string in it is
    written as is, between quotes (there is nothing in it to escape: a '"' or a
    control character would need one), which is how the encoder writes it too.
    Its fields around the payload are written again that way (integers as the
    encoder writes them), and the line must be exactly them around the text at the
    payload's place: the payload's text, canonical if it was found so before (the
    canonical JSON of some value, so of the one it parses to) or if it is what
    encoding the payload gives (``_payload_canonical``). The line is then exactly
    the canonical JSON of its event, and its body the same fields around the same
    text without its "hash". Any other line is encoded whole
    (``_body_the_long_way``). This check is written out in the loop, not called,
    since it runs for every line of every audit."""
    events = []
    prev = "0" * 64
    if payloads is None:
        payloads = {}
    sha256 = hashlib.sha256
    i = k = 0
    values = ()
    try:
        for i, line in enumerate(lines, start=1):
            if k == len(values):  # the next lines' values, read at once (``_at_once``)
                values, k = _at_once(lines, i - 1), 0
            d = values[k]
            k += 1
            if d is None:  # not read at once, or a line of JSON null
                line, d = _read_alone(i, line)
            body = text = None
            if type(d) is dict and len(d) == 8 and "\\" not in line:
                # The fields in the line's order (orjson keeps it), named as the canonical
                # order has them: where the line proves to be written so (below), it is the
                # canonical JSON of these fields so named, and so parsed to them, so named.
                # One unpacking, not eight look-ups and a check of the keys.
                actor, at, given, payload, logged_prev, salt, seq, kind = d.values()
                if type(seq) is int and type(at) is type(given) is type(logged_prev) is type(salt) is type(kind) is str:
                    # each part built in one go (an f-string), not piece by piece
                    if type(actor) is str:
                        pre = f'{{"actor":"{actor}","at":"{at}"'
                    elif type(actor) is int:
                        pre = f'{{"actor":{actor},"at":"{at}"'
                    else:
                        pre = None  # an actor of no usual kind: the long way
                    tail = f',"prev":"{logged_prev}","salt":"{salt}","seq":{seq},"type":"{kind}"}}'
                    if pre is not None:
                        # between ',"hash":"…","payload":' and the tail: the payload's text
                        # if the line is exactly these written again around it (one
                        # comparison, faster than asking for its start and its end)
                        cut = line[len(pre) + len(given) + 21:-len(tail)]
                        if line == f'{pre},"hash":"{given}","payload":{cut}{tail}':
                            text = payloads.get(cut)  # one string for every event with this payload
                            if text is None and _payload_canonical(payload, cut):
                                text = cut
                                if len(payloads) < KNOWN_PAYLOADS and len(cut) <= KNOWN_LENGTH:
                                    payloads[cut] = cut
                            if text is not None:  # what the hash covers: the line without its "hash"
                                body = f'{pre},"payload":{text}{tail}'
            if body is None:
                # its own value, not the array's (``_at_once``), and the standard library's:
                # the value a line not proven the usual one is judged by
                line, d = _read_slowly(i, line)
                if type(d) is not dict or d.keys() != FIELDS:
                    raise Divergence(i, "malformed", f"line {i} must have exactly the fields {sorted(FIELDS)}")
                actor, at, given, logged_prev, salt, seq, kind, payload = (
                    d["actor"], d["at"], d["hash"], d["prev"], d["salt"], d["seq"], d["type"], d["payload"])
                body = _body_the_long_way(i, d, line)
            if type(seq) is not int or seq != i:  # true is not 1, nor 1.0
                raise Divergence(i, "seq-gap", f"line {i} has seq {seq!r}, expected {i}")
            if logged_prev != prev:
                raise Divergence(i, "broken-chain", f"event {i}'s prev is not event {i - 1}'s hash")
            if sha256(body.encode()).hexdigest() != given:
                raise Divergence(i, "bad-hash", f"event {i}'s hash does not match its content")
            ev = _Logged(seq, kind, actor, at, payload, prev, salt, given, line)
            ev.text = text
            events.append(ev)
            prev = given
    except RecursionError:  # a line nested deeper than the parser or the encoder can go
        err = Divergence(i, "malformed", f"line {i} nests too deeply to be an event")
        err.read = events
        raise err from None
    except Divergence as err:
        err.read = events
        raise
    if not events:
        raise Divergence(1, "malformed", "the log is empty")
    return events


class _Logged(Event):
    """An event read from a log line, with its payload's text where the line was
    the usual one (``text``; else None, and ``payload_text`` cuts it)."""

    __slots__ = ("text",)


def payload_text(ev: Event) -> str:
    """The payload as the log writes it: cut from the line (already checked to be
    canonical JSON). Inside a JSON string a quote is always escaped, so the bare
    key ``"payload":`` is the line's own, and the last ``,"prev":"`` is the key that
    follows the payload (a payload's own "prev" keys come before it)."""
    if type(ev) is _Logged and ev.text is not None:
        return ev.text
    line = ev.frozen
    if line is None:
        return parsed_canonical_text(ev.payload)
    return line[line.index('"payload":') + 10:line.rindex(',"prev":"')]
