"""The audit: a log is valid only if every byte of it re-derives."""

from __future__ import annotations

import contextlib
import hashlib
import json
import subprocess
import sys

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.audit import audit
from referee.autoplay import new_table, play, random_game
from referee.events import REFEREE, Event, canonical

SEED = "audit-seed"


def export(log) -> str:
    return "".join(ev.to_json() + "\n" for ev in log)


@pytest.fixture(scope="module")
def finished():
    table, log = random_game("king-of-danger", 2, {}, SEED)
    return table, export(log)


def reseal(lines: list[dict]) -> str:
    """What a forger does: recompute every hash so the chain looks whole."""
    prev = "0" * 64
    out = []
    for d in lines:
        ev = Event.from_dict({**d, "prev": prev, "hash": ""}).sealed()
        prev = ev.hash
        out.append(ev.to_json())
    return "\n".join(out) + "\n"


def test_a_finished_game_audits(finished):
    table, text = finished
    report = audit(text)
    assert report["valid"] and report["first_error"] is None
    assert report["chain"] == "ok" and report["seed"] == "verified"
    assert report["result"] == table.state.result
    assert report["events"] == text.count("\n")


def test_an_edited_time_with_every_hash_computed_again_audits_valid_as_documented(finished):
    """What an audit does not prove (docs/auditing.md): when anything happened. A
    time moved by a second, or to another century, with the chain hashed again,
    audits valid; left unhashed, the edit is a bad hash at that event."""
    _, text = finished
    rows = [json.loads(line) for line in text.splitlines()]
    assert rows[6]["at"].endswith("Z")
    for at in (rows[6]["at"][:17] + f"{(int(rows[6]['at'][17:19]) + 1) % 60:02d}" + rows[6]["at"][19:],
               "1999-01-01T00:00:00.000000Z"):
        edited = [dict(r) for r in rows]
        edited[6]["at"] = at
        report = audit(reseal(edited))
        assert report["valid"] and report["seed"] == "verified", report
        unhashed = "".join(canonical(r).decode() + "\n" for r in edited)
        assert audit(unhashed)["first_error"]["code"] == "bad-hash"
        assert audit(unhashed)["first_error"]["seq"] == 7


def test_a_running_game_audits_with_its_seed_unrevealed():
    table, log = new_table("king-of-danger", 3, {}, SEED)
    seat = table.to_act()[0]
    play(table, seat, table.engine.legal(table.state, seat)[0], SEED, log)
    report = audit(export(log))
    assert report["valid"] and report["seed"] == "unrevealed" and report["result"] is None


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_flip_any_byte_and_the_audit_says_where(finished, data):
    _, text = finished
    raw = bytearray(text.encode())
    pos = data.draw(st.integers(0, len(raw) - 1), label="position")
    new = data.draw(st.integers(0, 255).filter(lambda b: b != raw[pos]), label="byte")
    line = raw[:pos].count(b"\n") + 1
    raw[pos] = new
    report = audit(bytes(raw))
    assert not report["valid"]
    assert report["first_error"]["seq"] == line, report["first_error"]


def test_a_forged_deal_with_a_resealed_chain_is_caught(finished):
    _, text = finished
    lines = [json.loads(x) for x in text.splitlines()]
    deal = next(d for d in lines if d["type"] == "hand-dealt")
    hand = deal["payload"]["hands"][0]
    other = deal["payload"]["hands"][1]
    hand[0], other[0] = other[0], hand[0]
    report = audit(reseal(lines))
    assert not report["valid"] and report["chain"] == "ok"
    assert report["first_error"]["seq"] == deal["seq"]


def test_an_illegal_move_with_a_resealed_chain_is_caught(finished):
    _, text = finished
    lines = [json.loads(x) for x in text.splitlines()]
    first_move = next(d for d in lines if isinstance(d["actor"], int))
    first_move["actor"] = 1 - first_move["actor"]  # the other seat "played" it
    report = audit(reseal(lines))
    assert report["first_error"]["seq"] == first_move["seq"]
    assert report["first_error"]["code"] in ("not-your-turn", "illegal-move")


def test_a_dropped_referee_event_is_caught(finished):
    _, text = finished
    lines = [json.loads(x) for x in text.splitlines()]
    i = next(i for i, d in enumerate(lines) if d["type"] == "hand-scored") if any(
        d["type"] == "hand-scored" for d in lines) else len(lines) - 2
    del lines[i]
    for n, d in enumerate(lines, start=1):
        d["seq"] = n
    report = audit(reseal(lines))
    assert not report["valid"] and report["first_error"]["seq"] == i + 1


def test_a_wrong_seed_is_caught(finished):
    _, text = finished
    lines = [json.loads(x) for x in text.splitlines()]
    lines[-1]["payload"]["seed"] = "another seed"
    report = audit(reseal(lines))
    assert report["seed"] == "mismatch" and report["first_error"]["code"] == "seed-mismatch"


def test_extra_whitespace_is_not_canonical(finished):
    _, text = finished
    first, rest = text.split("\n", 1)
    spaced = json.dumps(json.loads(first), sort_keys=True)  # ", " and ": "
    assert spaced != canonical(json.loads(first)).decode()
    report = audit(spaced + "\n" + rest)
    assert report["first_error"] == {"seq": 1, "code": "not-canonical",
                                     "detail": "line 1 is not in canonical JSON form"}


def test_each_line_is_judged_on_its_own_text(finished):
    """White space around a line's JSON is not canonical; text after it is not
    JSON; a line that is not UTF-8 is named, after any earlier line's fault."""
    _, text = finished
    lines = text.encode().splitlines()

    def first_error(changed: dict) -> dict:
        return audit(b"\n".join(changed.get(i, line) for i, line in enumerate(lines)) + b"\n")["first_error"]

    for padded in (b" " + lines[2], lines[2] + b" ", lines[2] + b"\r"):
        assert first_error({2: padded}) == {"seq": 3, "code": "not-canonical",
                                            "detail": "line 3 is not in canonical JSON form"}
    err = first_error({2: lines[2] + b"x"})
    assert err["seq"] == 3 and err["code"] == "malformed" and err["detail"].startswith("line 3 is not JSON: ")
    assert first_error({4: lines[4][:-2] + b"\xff}"}) == {"seq": 5, "code": "malformed",
                                                         "detail": "line 5 is not UTF-8"}
    err = first_error({2: b"{", 4: lines[4][:-2] + b"\xff}"})
    assert err["seq"] == 3 and err["code"] == "malformed" and err["detail"].startswith("line 3 is not JSON")


def test_names_with_characters_to_escape_audit_valid():
    table, log = new_table("castle-danger", ['Ann "the \\ first"', "Bø\u00e9 ✓ \U0001f3b2"], {}, SEED)
    play(table, 0, table.engine.parse("c1-b1; b1-a1; a1-b1"), SEED, log)
    text = export(log)
    assert '\\"the \\\\ first\\"' in text.splitlines()[0] and "✓" in text
    assert audit(text)["valid"]


def test_every_other_form_of_the_same_event_is_not_canonical(finished):
    """Same content, other text: keys out of order (the hash first or last),
    an escaped character, a number written otherwise (canonical itself, but then
    the hash no longer covers the event). Each is refused at its line."""
    _, text = finished
    lines = text.splitlines()
    d = json.loads(lines[0])
    body = {k: v for k, v in d.items() if k != "hash"}
    forms = [
        json.dumps({"hash": d["hash"], **body}, separators=(",", ":"), ensure_ascii=False),
        json.dumps({**dict(sorted(body.items())), "hash": d["hash"]}, separators=(",", ":"), ensure_ascii=False),
        lines[0].replace('"type":"game-created"', '"type":"game\\u002dcreated"'),
        lines[0].replace('"seq":1', '"seq":1.0'),
        lines[0].replace('"hash":"', '"hash": "'),
        lines[0].replace('"seq":1', '"seq":-0'),
        lines[0][:-1] + ',"type":"game-created"}',  # a key twice: the last one counts
        lines[0].replace(canonical(d["payload"]).decode(),  # the payload's keys out of order
                         json.dumps(dict(reversed(d["payload"].items())), separators=(",", ":"),
                                    ensure_ascii=False)),
        lines[0].replace('"payload":{', '"payload":{"a":1,'),  # canonical, but the hash no longer fits
        # two keys' names swapped, each value in its place: the canonical order of
        # values under keys out of order
        lines[0].replace('"prev":', '"PREV":').replace('"salt":', '"prev":').replace('"PREV":', '"salt":'),
        lines[0].replace('"actor":', '"AT":').replace('"at":', '"actor":').replace('"AT":', '"at":'),
    ]
    for form in forms:
        assert form != lines[0]
        report = audit(form + "\n" + "\n".join(lines[1:]) + "\n")
        assert report["first_error"]["seq"] == 1 and report["first_error"]["code"] in (
            "not-canonical", "seq-gap", "bad-hash"), form
    assert audit(text)["valid"]


def _read_as_specified(lines: list[str]) -> tuple[int, str | None]:
    """The reading's verdict as docs/log-format.md states it, by the standard library
    alone: the events read before the first fault, and the fault's code."""
    prev = "0" * 64
    for i, line in enumerate(lines, start=1):
        try:
            d = json.loads(line)
        except (ValueError, RecursionError):
            return i - 1, "malformed"
        if type(d) is not dict or d.keys() != {"seq", "type", "actor", "at", "payload", "prev", "salt", "hash"}:
            return i - 1, "malformed"
        if line != canonical(d).decode():
            return i - 1, "not-canonical"
        if type(d["seq"]) is not int or d["seq"] != i:
            return i - 1, "seq-gap"
        if d["prev"] != prev:
            return i - 1, "broken-chain"
        given = d.pop("hash")
        if hashlib.sha256(canonical(d)).hexdigest() != given:
            return i - 1, "bad-hash"
        prev = given
    return len(lines), None


_EDITS = st.lists(st.tuples(st.integers(0, 11), st.integers(0, 10_000), st.sampled_from(
    ['"', "\\", "{", "}", "[", "]", ",", ":", " ", "0", "1", "-1", "9" * 5, "9" * 20, ".", "e", "E", "+", "a", "\\u0041",
     "\t", "null", "true", "1.0", "1e16", "é", "", "drop"])), min_size=1, max_size=3)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits=_EDITS, rehash=st.booleans(), at_once=st.sampled_from([3, 128]))
def test_a_log_edited_anywhere_reads_as_the_standard_library_alone_reads_it(finished, edits, rehash, at_once):
    """Any line edited (a character put in, replaced or taken out), with its hash
    computed again over what it then holds or not: the reading stops at the same
    line, for the same fault, as a reading by the standard library alone (lines
    read by orjson 3 or 128 at a time, ``AT_ONCE``)."""
    from unittest import mock

    from referee import log_lines
    from referee.log_lines import Divergence, read_lines

    lines = finished[1].splitlines()[:12]
    for k, at, what in edits:
        line = lines[k]
        at %= len(line) + 1
        lines[k] = line[:at] + line[at + 1:] if what == "drop" else line[:at] + what + line[at + 1:]
        if rehash:
            with contextlib.suppress(ValueError, RecursionError, TypeError, AttributeError, KeyError):
                d = json.loads(lines[k])
                body = {key: v for key, v in d.items() if key != "hash"}
                lines[k] = lines[k].replace(d["hash"], hashlib.sha256(canonical(body)).hexdigest())
    try:
        with mock.patch.object(log_lines, "AT_ONCE", at_once):
            got = len(read_lines(lines)), None
    except Divergence as err:
        assert err.seq == len(err.read) + 1
        got = len(err.read), err.code
    assert got == _read_as_specified(lines), lines


def test_lines_read_at_once_are_each_judged_as_read_alone(finished):
    """Lines are read by one call of orjson as one JSON array (``_at_once``), a
    line's value taken from it only where the line proves the usual one. Here two
    events share line 2 and line 5 is cut inside a string: the array holds as many
    values as there are lines, the wrong ones from line 2 on."""
    from referee.log_lines import Divergence, _at_once, parse, read_lines

    lines = finished[1].splitlines()
    cut = lines[4].index('"at":"') + 10
    forged = [lines[0], lines[1] + "," + lines[2], lines[3], lines[4][:cut], lines[4][cut:], *lines[5:]]
    assert None not in _at_once(forged, 0)
    assert _read_as_specified(forged) == (1, "malformed")
    for read in (lambda: read_lines(forged), lambda: parse("\n".join(forged) + "\n")):
        with pytest.raises(Divergence) as err:
            read()
        assert (err.value.seq, err.value.code, len(err.value.read)) == (2, "malformed", 1)
        assert err.value.detail.startswith("line 2 is not JSON")
    assert [ev.hash for ev in read_lines(lines)] == [json.loads(x)["hash"] for x in lines]


def test_an_integer_past_64_bits_reads_as_the_standard_library_reads_it(finished):
    """orjson reads an integer past 64 bits as a float; a line holding one is read
    again by the standard library, which reads it as the integer it is (here the
    line is canonical, hashed again, and so breaks the chain only after it)."""
    from referee.log_lines import Divergence, read_lines

    lines = finished[1].splitlines()[:4]
    d = json.loads(lines[2])
    d["payload"] = {**d["payload"], "n": 2**64}
    body = {key: v for key, v in d.items() if key != "hash"}
    d["hash"] = hashlib.sha256(canonical(body)).hexdigest()
    lines[2] = canonical(d).decode()
    assert _read_as_specified(lines) == (3, "broken-chain")
    with pytest.raises(Divergence) as err:
        read_lines(lines)
    assert (len(err.value.read), err.value.code) == (3, "broken-chain")
    assert err.value.read[2].payload["n"] == 2**64 and type(err.value.read[2].payload["n"]) is int


# ---- the CLI -------------------------------------------------------------------------

def referee(*args, **kw):
    return subprocess.run([sys.executable, "-m", "referee.cli", *args], capture_output=True, text=True,
                          timeout=120, **kw)


def test_cli_audit_and_replay(finished, tmp_path):
    _, text = finished
    good = tmp_path / "game.jsonl"
    good.write_text(text)
    r = referee("audit", str(good))
    assert r.returncode == 0 and json.loads(r.stdout)["valid"] is True
    bad = tmp_path / "bad.jsonl"
    bad.write_text(text.replace('"hand-dealt"', '"hand-dealT"', 1))
    r = referee("audit", str(bad))
    assert r.returncode == 1 and json.loads(r.stdout)["first_error"]["code"] == "bad-hash"
    r = referee("replay", str(good))
    assert r.returncode == 0
    assert "King of Danger" in r.stdout and "[2]" in r.stdout and "result:" in r.stdout


def test_cli_export_and_games(tmp_path):
    from referee.config import Config
    from referee.system import build as build_service

    url = f"sqlite:///{tmp_path}/cli.db"
    svc = build_service(Config.load(url))
    gid = svc.create("king-of-danger", ["a", "b"], {"seed": "cli"})["id"]
    r = referee("games", "--store", url)
    assert r.returncode == 0 and gid in r.stdout and "king-of-danger" in r.stdout and "active" in r.stdout
    r = referee("export", gid, "--store", url)
    assert r.returncode == 0 and audit(r.stdout)["valid"]
    assert referee("export", "nope", "--store", url).returncode == 1


def test_a_salt_that_the_seed_does_not_give_is_caught(finished):
    _, text = finished
    lines = [json.loads(x) for x in text.splitlines()]
    lines[3]["salt"] = "0" * 64
    report = audit(reseal(lines))
    assert report["first_error"]["code"] == "bad-salt" and report["first_error"]["seq"] == 4


def _retyped(value):
    """The first whole number in a JSON value, written as 1.0 or true instead
    (equal to Python, not the same JSON); None if it has none."""
    if type(value) is int:
        return float(value) if value != 1 else True
    if isinstance(value, dict):
        for k, v in value.items():
            new = _retyped(v)
            if new is not None:
                return {**value, k: new}
    if isinstance(value, list):
        for i, v in enumerate(value):
            new = _retyped(v)
            if new is not None:
                return [*value[:i], new, *value[i + 1:]]
    return None


def test_a_payload_equal_in_value_but_not_as_written_is_caught(finished):
    """1.0 and true equal 1 in Python: a forged log that writes them where the
    referee wrote 1 is not the referee's log, whatever its chain says."""
    _, text = finished
    caught = 0
    for target in ("move", "hand-dealt", "trick-won"):
        lines = [json.loads(x) for x in text.splitlines()]
        d = next((d for d in lines if d["type"] == target and _retyped(d["payload"]) is not None), None)
        if d is None:
            continue
        d["payload"] = _retyped(d["payload"])
        report = audit(reseal(lines))
        assert not report["valid"] and report["chain"] == "ok", (target, report)
        assert report["first_error"]["seq"] == d["seq"]
        caught += 1
    assert caught >= 2


def test_a_seq_written_as_true_is_caught(finished):
    _, text = finished
    lines = [json.loads(x) for x in text.splitlines()]
    lines[0]["seq"] = True
    report = audit(reseal(lines))
    assert not report["valid"] and report["first_error"]["seq"] == 1


def test_a_seat_written_as_true_on_a_moves_later_event_is_caught(finished):
    """A move's events after its first are checked against the same seat as written:
    true is not seat 1."""
    _, text = finished
    lines = [json.loads(x) for x in text.splitlines()]
    second = next(b for a, b in zip(lines, lines[1:], strict=False)
                  if a["actor"] == 1 and type(a["actor"]) is int and b["actor"] == 1 and a["at"] == b["at"])
    second["actor"] = True
    report = audit(reseal(lines))
    assert not report["valid"] and report["first_error"]["seq"] == second["seq"], report["first_error"]


def test_an_event_rehashed_alone_breaks_the_chain_at_the_next(finished):
    """A forger changes one event (its time, which no rule reads) and recomputes
    that event's hash, but not the rest of the chain: every event still matches its
    own hash, so only the check that each ``prev`` is the previous hash can see it."""
    from datetime import datetime, timedelta

    _, text = finished
    lines = [json.loads(line) for line in text.splitlines()]
    k = next(i for i in range(1, len(lines) - 1)
             if isinstance(lines[i]["actor"], int) and isinstance(lines[i + 1]["actor"], int))
    at = datetime.strptime(lines[k]["at"], "%Y-%m-%dT%H:%M:%S.%fZ") + timedelta(milliseconds=1)
    changed = {**lines[k], "at": at.strftime("%Y-%m-%dT%H:%M:%S.%fZ")}
    # the change itself passes every other check: resealed from there on, the log is valid
    assert audit(reseal(lines[:k] + [changed] + lines[k + 1:]))["valid"]
    forged = lines[:k] + [Event.from_dict(changed).sealed().to_dict()] + lines[k + 1:]
    report = audit("".join(canonical(d).decode() + "\n" for d in forged))
    assert report["first_error"]["code"] == "broken-chain"
    assert report["first_error"]["seq"] == k + 2  # the event after the changed one, seq k + 1
    assert not report["valid"] and report["chain"] == "broken"


@pytest.mark.parametrize("line", ["[" * 2000 + "]" * 2000, '{"a":' * 50000 + "1" + "}" * 50000,
                                  '{"seq": ' + "9" * 5000 + "}"], ids=["lists", "objects", "digits"])
def test_a_line_too_deep_or_too_long_to_read_is_malformed_at_that_line(finished, line):
    _, text = finished
    lines = text.splitlines()
    report = audit("\n".join(lines[:3] + [line] + lines[3:]) + "\n")
    assert not report["valid"]
    assert report["first_error"]["code"] == "malformed" and report["first_error"]["seq"] == 4


def test_forged_payloads_of_any_json_kind_are_divergences():
    """A chain whole but for payloads that are no objects (a forger can hash
    anything): a report, never an exception."""
    prev, lines = "0" * 64, []
    for seq, (kind, payload) in enumerate([("game-created", []), ("seed-revealed", [1])], start=1):
        ev = Event(seq, kind, "referee", "2020-01-01T00:00:00.000000Z", payload, prev).sealed()
        lines.append(ev.to_json())
        prev = ev.hash
    report = audit("\n".join(lines) + "\n")
    assert not report["valid"] and report["first_error"]["code"] == "seed-mismatch"


def test_cli_audit_of_a_deeply_nested_line_is_a_report(finished, tmp_path):
    _, text = finished
    path = tmp_path / "deep.jsonl"
    path.write_text(text.splitlines()[0] + "\n" + "[" * 2000 + "]" * 2000 + "\n")
    r = referee("audit", str(path))
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    assert json.loads(r.stdout)["first_error"] == {"seq": 2, "code": "malformed",
                                                   "detail": "line 2 nests too deeply to be an event"}


def test_a_float_is_canonical_only_as_the_standard_library_writes_it(finished):
    """The audit reads lines and writes payloads with orjson where that is sure to
    agree with the standard library (referee/log_lines.py, ``written_as``). A float
    is where the two may differ: ``1e+16`` is canonical, orjson's ``1e16`` is not.
    A payload with a float written the canonical way passes the form checks (and
    then diverges from the referee's event); written orjson's way it is refused."""
    _, text = finished
    lines = [json.loads(x) for x in text.splitlines()]
    k = next(i for i, d in enumerate(lines) if isinstance(d["actor"], int) and "move" in d["payload"])
    lines[k]["payload"] = {**lines[k]["payload"], "x": 1e16, "y": 0.5}
    good = reseal(lines)
    assert '"x":1e+16,"y":0.5' in good
    report = audit(good)
    assert report["chain"] == "ok" and report["first_error"]["code"] == "diverges"
    assert report["first_error"]["seq"] == k + 1
    report = audit(good.replace('"x":1e+16', '"x":1e16'))
    assert report["first_error"] == {"seq": k + 1, "code": "not-canonical",
                                     "detail": f"line {k + 1} is not in canonical JSON form"}
    # orjson writes some floats without an exponent where the standard library
    # writes one (0.00001 and 1e-05): its text alone cannot say a float is canonical
    lines[k]["payload"] = {**lines[k]["payload"], "x": 1e-05}
    good = reseal(lines)
    assert '"x":1e-05' in good and orjson.dumps(1e-05) != b"1e-05"
    assert audit(good)["first_error"]["code"] == "diverges"
    report = audit(good.replace('"x":1e-05', '"x":' + orjson.dumps(1e-05).decode()))
    assert report["first_error"] == {"seq": k + 1, "code": "not-canonical",
                                     "detail": f"line {k + 1} is not in canonical JSON form"}


def test_salts_keyed_once_are_the_salts():
    from referee.events import Salts, salt

    # keys shorter than SHA-256's block, of one block, a byte over, and far over
    # (then hashed first, as HMAC does), counted in UTF-8 bytes: every salt ``salt``
    # gives is found right, and one off by a character is named
    for key in ("", "k", "x" * 63, "x" * 64, "x" * 65, "é" * 32, "é" * 40, "x" * 200):
        events = [Event(seq, "x", REFEREE, "t", {}, salt=salt(key, seq)) for seq in (1, 2, 99, 10**6)]
        assert Salts(key).first_wrong(events) is None
        events[3].salt = events[3].salt[:-1] + ("0" if events[3].salt[-1] != "0" else "1")
        assert Salts(key).first_wrong(events) is events[3]
    # the audit's loop over every event names the first whose salt is not its seq's
    key = "k" * 43
    events = [Event(seq, "x", REFEREE, "t", {}, salt=salt(key, seq)) for seq in range(1, 9)]
    assert Salts(key).first_wrong(events) is None
    events[5].salt, events[6].salt = salt(key, 5), ""
    assert Salts(key).first_wrong(events) is events[5]
    assert Salts("other").first_wrong(events) is events[0]


# ---- the audit's command line: light, and many files at once ---------------------------

@pytest.fixture(scope="module")
def of_bots():
    """A finished King of Danger game of two bot seats: every move in it is the referee's
    own player's, which the audit derives again (so the bots must be wired)."""
    from referee.table import Table

    created = Table.created_event("king-of-danger", "g-bots", ["A", "B"], {"target": 100}, "bots-seed",
                                  False, bots={0: "basic", 1: "random"})
    table = Table.from_created(created)
    log = [created] + table.settle_all("bots-seed")
    assert table.status == "finished" and log[-1].type == "seed-revealed"
    return export(log)


# What a pure function of a log has no use for: the web framework, the store clients,
# the job queue, the mail, and every layer of the service built on them.
HEAVY = ("flask", "werkzeug", "redis", "rq", "gunicorn", "marshmallow", "jinja2", "prometheus_client",
         "referee.system", "referee.service", "referee.store", "referee.queue", "referee.api",
         "referee.mail", "referee.web", "referee.leagues", "referee.players.store")


@pytest.mark.parametrize("command", ["audit", "replay"])
def test_the_audit_command_loads_only_the_rules_the_bots_and_the_log(of_bots, tmp_path, command):
    path = tmp_path / "bots.jsonl"
    path.write_text(of_bots)
    script = ("import json, sys\nfrom referee.cli import main\n"
              f"code = main([{command!r}, {str(path)!r}])\n"
              "print(json.dumps({'code': code, 'modules': sorted(sys.modules)}), file=sys.stderr)\n")
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    seen = json.loads(r.stderr.splitlines()[-1])
    assert seen["code"] == 0, r.stderr
    assert command != "audit" or json.loads(r.stdout)["seed"] == "verified", r.stdout
    heavy = [m for m in seen["modules"] if any(m == h or m.startswith(h + ".") for h in HEAVY)]
    assert heavy == []
    assert "referee.bots" in seen["modules"] and "referee.audit" in seen["modules"]


# What `referee audit` of every game has no use for, beyond the service (HEAVY): the
# other commands' modules, the dispute report's and the positions' words, a seat
# calendar's time zones, typing, and argparse (with gettext and locale, and shutil,
# zlib, bz2 and lzma, asked the terminal's width). Each was a millisecond or more of
# every audit's start.
NOT_FOR_AN_AUDIT = {"referee.config", "referee.disputes.arbiter", "referee.players", "referee.trust",
                    "referee.transparency", "referee.narration", "referee.disputes.words", "zoneinfo",
                    "sysconfig", "typing", "argparse", "gettext", "locale", "referee.command_line",
                    "shutil", "zlib", "bz2", "lzma"}


def test_the_audit_of_every_game_imports_nothing_it_does_not_use(tmp_path):
    games = [("king-of-danger", 3, {}), ("castle-danger", 2, {"turn_limit": 10}),
             ("king-of-the-castle", 2, {}), ("kings-keys", 3, {})]
    paths = []
    for game, players, options in games:
        _, log = random_game(game, players, options, seed=f"light-{game}")
        paths.append(tmp_path / f"{game}.jsonl")
        paths[-1].write_text(export(log))
    script = ("import json, sys\nfrom referee.cli import main\n"
              "code = main(['audit', *sys.argv[1:]])\n"
              "print(json.dumps({'code': code, 'modules': sorted(sys.modules)}), file=sys.stderr)\n")
    r = subprocess.run([sys.executable, "-c", script, *map(str, paths)], capture_output=True, text=True,
                       timeout=120)
    seen = json.loads(r.stderr.splitlines()[-1])
    assert seen["code"] == 0, r.stderr
    assert [json.loads(line)["valid"] for line in r.stdout.splitlines()] == [True] * 4
    loaded = {m for m in seen["modules"] for name in NOT_FOR_AN_AUDIT if m == name or m.startswith(name + ".")}
    assert loaded == set()
    assert {f"referee.games.{g.replace('-', '_')}.engine" for g, _, _ in games} <= set(seen["modules"])


@pytest.mark.parametrize("argv", [["audit", "a.jsonl"], ["audit", "-"], ["audit", "a b.jsonl", "-", "", "c"]])
def test_an_audit_of_files_alone_is_read_as_argparse_reads_it(argv):
    from referee.audit_commands import files_alone
    from referee.cli import parser

    assert vars(files_alone(argv)) == vars(parser().parse_args(argv)) == vars(parser("audit").parse_args(argv))


@pytest.mark.parametrize("argv", [[], ["audit"], ["audit", "--help"], ["audit", "a", "-h"], ["audit", "--", "-a"],
                                  ["audit", "-1"], ["replay", "a"], ["audit-league", "a"], ["--help", "audit"]])
def test_any_other_command_line_is_left_to_argparse(argv):
    from referee.audit_commands import files_alone

    assert files_alone(argv) is None


def test_cli_audit_of_many_files_gives_one_verdict_a_file(finished, of_bots, tmp_path):
    _, text = finished
    files = {"a.jsonl": text, "b.jsonl": of_bots,
             "c.jsonl": text.replace('"hand-dealt"', '"hand-dealT"', 1), "d.jsonl": of_bots}
    for name, body in files.items():
        (tmp_path / name).write_text(body)
    paths = [str(tmp_path / name) for name in files] + [str(tmp_path / "missing.jsonl")]
    r = referee("audit", *paths)
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    verdicts = [json.loads(line) for line in r.stdout.splitlines()]
    assert [v["file"] for v in verdicts] == paths
    assert [v["valid"] for v in verdicts] == [True, True, False, True, False]
    assert verdicts[1]["seed"] == "verified" and verdicts[1]["result"]["winners"] == [0]
    assert verdicts[2]["first_error"]["code"] == "bad-hash"
    assert verdicts[4]["first_error"]["code"] == "unreadable-file" and verdicts[4]["events"] == 0
    # each failure named on standard error, with the count
    assert f"{paths[2]}: does not audit: event " in r.stderr and f"{paths[4]}: does not audit" in r.stderr
    assert "2 of 5 files do not audit" in r.stderr
    r = referee("audit", *paths[:2], paths[3])
    assert r.returncode == 0 and r.stderr == "" and len(r.stdout.splitlines()) == 3


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text("0123456789.eE-+\"é\\ab", max_size=6),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text("0123456789.eEk", max_size=4), inner, max_size=4),
    max_leaves=12)


@settings(max_examples=400, deadline=None)
@given(_JSON)
def test_a_payload_text_is_found_canonical_exactly_where_the_standard_library_writes_it(value):
    """The reading's check of a payload's text against what the text parses to
    (orjson's writing, or the standard library's where the text may hold a float: a
    digit then ".", "e" or "E") says yes exactly for the standard library's text,
    whatever orjson writes."""
    from referee.events import parsed_canonical_text
    from referee.log_lines import _payload_canonical

    texts = {parsed_canonical_text(value), json.dumps(value, sort_keys=True)}
    with contextlib.suppress(TypeError):
        texts.add(orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode())
    for text in texts:
        try:
            parsed = orjson.loads(text)
        except orjson.JSONDecodeError:
            parsed = json.loads(text)
        assert _payload_canonical(parsed, text) == (text == parsed_canonical_text(parsed)), text


def test_payload_texts_found_canonical_in_one_file_serve_the_next_and_prove_nothing_else(finished, of_bots):
    """``referee audit`` of many files remembers the payload texts found canonical
    in any of them (``payloads``): each file's report is the one it has alone, a
    text written otherwise than one remembered (a space more) is still refused."""
    _, text = finished
    move = next(json.loads(x) for x in text.splitlines() if '"move":' in x)
    written = json.dumps(move["payload"], sort_keys=True, separators=(",", ":"))
    spaced = text.replace(written, written.replace(",", ", ", 1), 1)
    assert spaced != text and audit(spaced)["first_error"]["code"] == "not-canonical"
    payloads: dict[str, str] = {}
    for log in (text, of_bots, spaced, text, spaced):
        assert audit(log, payloads) == audit(log)
    assert written in payloads


def test_cli_replay_of_a_forged_log_says_why_it_does_not_audit_and_tells_nothing(finished, tmp_path):
    _, text = finished
    lines = [json.loads(x) for x in text.splitlines()]
    move = next(d for d in lines if d["type"] == "card-played")
    hidden = next(c for hand in lines[1]["payload"]["face_down"] for c in hand)  # a card nobody may play yet
    move["payload"]["move"]["card"] = move["payload"]["card"] = hidden
    forged = tmp_path / "forged.jsonl"
    forged.write_text(reseal(lines))
    r = referee("replay", str(forged))
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    assert r.stdout == ""  # not one event told as fact
    assert f"does not audit, so it is not replayed: event {move['seq']}: illegal-move: " in r.stderr, r.stderr
    r = referee("replay", str(tmp_path / "missing.jsonl"))
    assert r.returncode == 1 and "cannot be read" in r.stderr and "Traceback" not in r.stderr


def test_an_edited_export_reports_what_was_read_before_the_line_that_fails(finished):
    """A finished game's export edited at event 20: the report counts the 19 events read
    and checked before it, and does not call the seed unrevealed (the reading stopped
    before the reveal: whether the game has one is not known)."""
    _, text = finished
    lines = text.splitlines()
    assert json.loads(lines[-1])["type"] == "seed-revealed"
    edited = lines[:19] + [lines[19].replace('"at":"', '"at":"1', 1)] + lines[20:]
    report = audit("\n".join(edited) + "\n")
    assert report["first_error"]["seq"] == 20 and report["first_error"]["code"] == "bad-hash"
    assert (report["valid"], report["events"], report["chain"], report["seed"]) == (False, 19, "broken", "not-reached")
    # a line slipped in after the reveal: every event before it read, the reveal checked
    report = audit(text + lines[-1] + "\n")
    assert report["first_error"]["seq"] == len(lines) + 1 and report["first_error"]["code"] == "seq-gap"
    assert (report["events"], report["seed"]) == (len(lines), "verified")
    # the same after a reveal of another seed (every hash computed again): the seed as read
    rows = [json.loads(x) for x in lines]
    rows[-1]["payload"]["seed"] = "another"
    forged = reseal(rows)
    report = audit(forged + forged.splitlines()[-1] + "\n")
    assert (report["events"], report["seed"], report["first_error"]["code"]) == (len(lines), "mismatch", "seq-gap")
    assert audit("")["events"] == 0 and audit("")["seed"] == "not-reached"


def test_cli_audit_of_an_edited_export_says_what_was_read(finished, tmp_path):
    _, text = finished
    lines = text.splitlines()
    path = tmp_path / "edited.jsonl"
    path.write_text("\n".join(lines[:9] + [lines[9].replace('"at":"', '"at":"1', 1)] + lines[10:]) + "\n")
    r = referee("audit", str(path))
    report = json.loads(r.stdout)
    assert r.returncode == 1 and (report["events"], report["seed"]) == (9, "not-reached")
    assert r.stderr == f"{path}: does not audit: event 10: bad-hash: event 10's hash does not match its content\n"
