"""`referee witness` and `referee verify-receipt`'s transparency checks against a
referee served over real HTTP: a witness cosigns a log that grows append-only; a
referee that rewrites one event of a finished game is caught (the witness refuses
its next head; the rewritten event's receipt no longer verifies in the log); two
heads of one size are caught where they meet (the witness, or verify-receipt given
both). Cosignatures are checked with PyNaCl, a second Ed25519 implementation."""

from __future__ import annotations

import base64
import json
import random
import struct
import threading

import nacl.signing
import pytest

from referee.cli import main
from referee.transparency import notes
from tests.helpers import Game
from tests.test_receipts import rewritten
from tests.test_transparency_log import moves, settled

KOD = "king-of-danger"


@pytest.fixture
def base(service):
    from werkzeug.serving import make_server

    from referee.api import create_app

    http = make_server("127.0.0.1", 0, create_app(service), threaded=True)
    thread = threading.Thread(target=http.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{http.server_port}"
    http.shutdown()


def run(capsys, *args) -> tuple[int, str]:
    code = main([*map(str, args)])
    out = capsys.readouterr()
    return code, out.out + out.err


def witness(capsys, base, tmp_path, name="one") -> tuple[int, str]:
    return run(capsys, "witness", "--referee", base, "--state", tmp_path / f"{name}.json",
               "--key", tmp_path / f"{name}.key", "--name", f"witness.example/{name}")


def cosigned_by_pynacl(whole: str, vkey: str) -> bool:
    """Whether ``whole`` carries a valid cosignature by ``vkey``, checked with PyNaCl
    from the C2SP tlog-cosignature text."""
    name, kid_hex, b64 = vkey.split("+", 2)
    raw = base64.b64decode(b64)
    assert raw[0] == 4
    text, _, sigs = whole.partition("\n\n")
    for line in sigs.splitlines():
        if line.startswith(f"\u2014 {name} "):
            blob = base64.b64decode(line.rsplit(" ", 1)[1])
            if blob[:4].hex() != kid_hex:
                continue
            (ts,) = struct.unpack(">Q", blob[4:12])
            message = f"cosignature/v1\ntime {ts}\n".encode() + (text + "\n").encode()
            try:
                nacl.signing.VerifyKey(raw[1:]).verify(message, blob[12:])
                return True
            except nacl.exceptions.BadSignatureError:
                return False
    return False


def vkey_of(said: str) -> str:
    return next(line.split(": ", 1)[1] for line in said.splitlines() if line.startswith("witness key: "))


def test_a_witness_cosigns_a_log_that_grows_and_the_receipt_needs_it(client, service, base, capsys, tmp_path):
    g = Game(client, KOD, 3, {"seed": "witnessed"})
    moves(g, 6, random.Random(1))
    settled(service)
    code, said = witness(capsys, base, tmp_path)
    assert code == 0, said
    vkey = vkey_of(said)
    assert (tmp_path / "one.key").read_text().startswith("PRIVATE+KEY+witness.example/one+")
    assert cosigned_by_pynacl(client.get("/v1/transparency/checkpoint").get_data(as_text=True), vkey)
    moves(g, 6, random.Random(2))
    settled(service)
    code, said = witness(capsys, base, tmp_path)  # a consistency proof checked, then cosigned
    assert code == 0, said
    assert vkey_of(said) == vkey  # the same key, read from its file
    # a receipt of the witnessed log, with two witnesses required, one trusted
    (tmp_path / "keys.json").write_text(client.get("/v1/keys").get_data(as_text=True))
    (tmp_path / "witnesses.txt").write_text(vkey + "\n")
    (tmp_path / "receipt.json").write_text(json.dumps(client.get(f"/v1/games/{g.id}/receipts/4").json))
    ok = ("verify-receipt", tmp_path / "receipt.json", "--keys", tmp_path / "keys.json",
          "--witness-keys", tmp_path / "witnesses.txt")
    code, said = run(capsys, *ok, "--witnesses", 1)
    assert code == 0 and "in the transparency log" in said and "cosigned by 1" in said, said
    code, said = run(capsys, *ok, "--witnesses", 2)
    assert code == 1 and "1 of the trusted witnesses" in said, said
    # a witness key file that is not the trusted one counts for nothing
    (tmp_path / "other.txt").write_text(notes.WitnessKey.generate("witness.example/other").verifier.text + "\n")
    code, said = run(capsys, "verify-receipt", tmp_path / "receipt.json", "--keys", tmp_path / "keys.json",
                     "--witness-keys", tmp_path / "other.txt", "--witnesses", 1)
    assert code == 1, said


def _rewrite_event(service, g: Game, seq: int) -> None:
    """What a dishonest referee does: one event of a finished game changed in the
    store, every hash after it made again so the game's own chain still verifies."""
    lines = rewritten(g.export(), seq, "at").splitlines()
    with service.store.immediate() as conn:
        for line in lines[seq - 1:]:
            ev = json.loads(line)
            conn.execute("UPDATE events SET body = ? WHERE game_id = ? AND seq = ?", (line, g.id, ev["seq"]))
    service.cache.clear()


def _rebuild_tree(service) -> None:
    """... and a tree made again from the logs as they are now, under the same origin."""
    with service.store.immediate() as conn:
        for table in ("tlog_nodes", "tlog_leaves", "tlog_cursors", "tlog_checkpoints", "tlog_cosignatures"):
            conn.execute(f"DELETE FROM {table}")
        conn.execute("DELETE FROM tlog_meta WHERE name IN ('size', 'cosigned')")
    service.transparency.integrate(sweep=True)


@pytest.mark.parametrize("store_url", ["sqlite"], indirect=True)
def test_a_referee_that_rewrites_a_finished_game_is_caught(client, service, base, capsys, tmp_path):
    g = Game(client, KOD, 2, {"seed": "rewritten"})
    moves(g, 4, random.Random(3))
    assert g.post(0, {"move": {"type": "resign"}}).status_code == 201
    settled(service)
    assert witness(capsys, base, tmp_path)[0] == 0
    (tmp_path / "keys.json").write_text(client.get("/v1/keys").get_data(as_text=True))
    honest = client.get(f"/v1/games/{g.id}/receipts/3").json
    (tmp_path / "honest.json").write_text(json.dumps(honest))

    # the event rewritten, the tree left alone: its new receipt's inclusion proof fails
    _rewrite_event(service, g, 3)
    forged = client.get(f"/v1/games/{g.id}/receipts/3").json
    assert forged["hash"] != honest["hash"]
    (tmp_path / "forged.json").write_text(json.dumps(forged))
    code, said = run(capsys, "verify-receipt", tmp_path / "forged.json", "--keys", tmp_path / "keys.json")
    assert code == 1 and "inclusion proof does not verify" in said, said
    assert run(capsys, "verify-receipt", tmp_path / "honest.json", "--keys", tmp_path / "keys.json")[0] == 0

    # the tree made again to hide it, and grown: the witness refuses the next head
    _rebuild_tree(service)
    Game(client, KOD, 2, {"seed": "after"})
    settled(service)
    before = (tmp_path / "one.json").read_text()
    code, said = witness(capsys, base, tmp_path)
    assert code == 1 and "REFUSED" in said and "rewritten" in said, said
    assert (tmp_path / "one.json").read_text() == before  # it keeps the head it trusted
    assert not cosigned_by_pynacl(client.get("/v1/transparency/checkpoint").get_data(as_text=True),
                                  vkey_of(said))


@pytest.mark.parametrize("store_url", ["sqlite"], indirect=True)
def test_two_heads_of_one_size_are_caught_where_they_meet(client, service, base, capsys, tmp_path):
    g = Game(client, KOD, 2, {"seed": "forked"})
    moves(g, 4, random.Random(4))
    assert g.post(0, {"move": {"type": "resign"}}).status_code == 201
    settled(service)
    assert witness(capsys, base, tmp_path)[0] == 0
    (tmp_path / "keys.json").write_text(client.get("/v1/keys").get_data(as_text=True))
    (tmp_path / "a.json").write_text(json.dumps(client.get(f"/v1/games/{g.id}/receipts/2").json))
    # another head of the same size, for someone else
    _rewrite_event(service, g, 3)
    _rebuild_tree(service)
    (tmp_path / "b.json").write_text(json.dumps(client.get(f"/v1/games/{g.id}/receipts/2").json))
    a, b = (json.loads((tmp_path / f).read_text()) for f in ("a.json", "b.json"))
    assert notes.parse_checkpoint(notes.parse_note(a["checkpoint"]).text).size == \
        notes.parse_checkpoint(notes.parse_note(b["checkpoint"]).text).size
    # each alone verifies...
    for f in ("a.json", "b.json"):
        assert run(capsys, "verify-receipt", tmp_path / f, "--keys", tmp_path / "keys.json")[0] == 0
    # ...together they show the fork
    code, said = run(capsys, "verify-receipt", tmp_path / "b.json", "--keys", tmp_path / "keys.json",
                     "--checkpoint", tmp_path / "a.json")
    assert code == 1 and "forked" in said, said
    code, said = witness(capsys, base, tmp_path)
    assert code == 1 and "forked" in said, said
