"""`referee verify-receipt` offline, `referee keys`, and the key kept in the store:
made once however many processes start at once, rotated with old receipts still
verifying. Both stores."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time

import pytest

from referee.cli import main
from tests.helpers import Game
from tests.test_receipts import ALTERED, rewritten

KOD = "king-of-danger"


def verify_receipt(capsys, *args) -> tuple[int, str]:
    code = main(["verify-receipt", *map(str, args)])
    out = capsys.readouterr()
    return code, out.out + out.err


def played(client, moves: int = 2) -> tuple[Game, list[dict]]:
    g = Game(client, KOD, 2, {"seed": "verify"})
    got = [g.created["receipt"]]
    for _ in range(moves):
        seat = g.summary()["to_act"][0]
        got.append(g.post(seat, {"move": g.legal(seat)[0]}).json["receipt"])
    return g, got


def test_a_receipt_verifies_offline_with_the_keys_and_the_log(client, capsys, tmp_path):
    g, got = played(client)
    keys, log, receipt = tmp_path / "keys.json", tmp_path / "game.jsonl", tmp_path / "receipt.json"
    keys.write_text(client.get("/v1/keys").get_data(as_text=True))
    log.write_text(g.export())
    receipt.write_text(json.dumps(got[-1]))
    code, said = verify_receipt(capsys, receipt, "--keys", keys)
    assert code == 0 and "signature holds" in said
    code, said = verify_receipt(capsys, receipt, "--keys", keys, "--log", log)
    assert code == 0 and "held" in said
    # an answer holding the receipt is read as the receipt it holds
    answer = tmp_path / "answer.json"
    answer.write_text(json.dumps({"version": 9, "receipt": got[1]}))
    assert verify_receipt(capsys, answer, "--keys", keys, "--log", log)[0] == 0
    # the log edited after the receipt: contradicted, saying where
    edited = tmp_path / "edited.jsonl"
    edited.write_text(rewritten(g.export(), got[-1]["seq"], "at"))
    code, said = verify_receipt(capsys, receipt, "--keys", keys, "--log", edited)
    assert code == 1 and "contradicted" in said and f"event {got[-1]['seq']}" in said
    # an earlier receipt is still held by that log: the edit came after its event
    early = tmp_path / "early.json"
    early.write_text(json.dumps(got[0]))
    assert verify_receipt(capsys, early, "--keys", keys, "--log", edited)[0] == 0
    # a log that stops before the receipt's event, or another game's log
    short = tmp_path / "short.jsonl"
    short.write_text("".join(g.export().splitlines(keepends=True)[: got[-1]["seq"] - 1]))
    code, said = verify_receipt(capsys, receipt, "--keys", keys, "--log", short)
    assert code == 1 and "holds no event" in said
    other = tmp_path / "other.jsonl"
    other.write_text(Game(client, KOD, 2).export())
    code, said = verify_receipt(capsys, receipt, "--keys", keys, "--log", other)
    assert code == 1 and "no log of" in said


@pytest.mark.parametrize("field", list(ALTERED))
def test_a_forged_or_altered_receipt_is_refused(client, capsys, tmp_path, field):
    g, got = played(client, 1)
    keys, receipt = tmp_path / "keys.json", tmp_path / "receipt.json"
    keys.write_text(client.get("/v1/keys").get_data(as_text=True))
    receipt.write_text(json.dumps({**got[-1], field: ALTERED[field](got[-1])}))
    code, said = verify_receipt(capsys, receipt, "--keys", keys)
    assert code == 1 and "refused" in said and ("key_id" if field == "key_id" else "signature") in said


def test_a_receipt_signed_by_another_key_or_missing_a_field_is_refused(client, capsys, tmp_path):
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from referee.trust.receipts import message

    g, got = played(client, 1)
    keys = tmp_path / "keys.json"
    keys.write_text(client.get("/v1/keys").get_data(as_text=True))
    real = got[-1]
    mine = Ed25519PrivateKey.generate()  # a forger's key, claiming the referee's key id
    import base64

    forged = {**real, "at": "2000-01-01T00:00:00.000000Z"}
    forged["signature"] = base64.b64encode(mine.sign(message(forged["game"], forged["seq"], forged["hash"],
                                                             forged["at"]))).decode()
    for bad in (forged, {k: v for k, v in real.items() if k != "hash"}, {**real, "seq": "2"}, "nonsense"):
        path = tmp_path / "bad.json"
        path.write_text(json.dumps(bad))
        code, said = verify_receipt(capsys, path, "--keys", keys)
        assert code == 1 and "refused" in said, (bad, said)
    path = tmp_path / "good.json"
    path.write_text(json.dumps(real))
    code, said = verify_receipt(capsys, path)  # no keys given: nothing to check with
    assert code == 1 and "--keys" in said


def test_the_keys_may_come_from_the_referee_itself(service, capsys, tmp_path):
    from werkzeug.serving import make_server

    from referee.api import create_app

    http = make_server("127.0.0.1", 0, create_app(service), threaded=True)
    thread = threading.Thread(target=http.serve_forever, daemon=True)
    thread.start()
    try:
        g, got = played(create_app(service).test_client(), 1)
        receipt = tmp_path / "receipt.json"
        receipt.write_text(json.dumps(got[-1]))
        base = f"http://127.0.0.1:{http.server_port}"
        for where in (base, base + "/", base + "/v1/keys"):
            assert verify_receipt(capsys, receipt, "--keys", where)[0] == 0
        code, said = verify_receipt(capsys, receipt, "--keys", base + "/v1/nothing")
        assert code == 1 and "cannot read the keys" in said
    finally:
        http.shutdown()


def test_a_rotated_key_still_verifies_its_old_receipts(client, service, store_url, capsys, tmp_path):
    g, before = played(client, 1)
    old_keys = tmp_path / "old-keys.json"
    old_keys.write_text(client.get("/v1/keys").get_data(as_text=True))
    assert main(["keys", "rotate", "--store", store_url]) == 0  # as an operator would, from another process
    rotated = json.loads(capsys.readouterr().out)
    service.receipts.ring.refresh = 0.1  # this process takes the rotation up at its next look (2 s by default)
    time.sleep(0.2)
    seat = g.summary()["to_act"][0]
    after = g.post(seat, {"move": g.legal(seat)[0]}).json["receipt"]
    assert after["key_id"] == rotated["key_id"] != before[-1]["key_id"]
    listed = client.get("/v1/keys").json["keys"]
    assert [k["key_id"] for k in listed] == [before[-1]["key_id"], rotated["key_id"]]
    assert listed[0]["until"] == listed[1]["since"] and listed[1]["until"] is None
    assert main(["keys", "list", "--store", store_url]) == 0
    assert json.loads(capsys.readouterr().out)["keys"] == listed
    keys, log = tmp_path / "keys.json", tmp_path / "game.jsonl"
    keys.write_text(json.dumps({"keys": listed}))
    log.write_text(g.export())
    for receipt in (*before, after):
        path = tmp_path / "receipt.json"
        path.write_text(json.dumps(receipt))
        assert verify_receipt(capsys, path, "--keys", keys, "--log", log)[0] == 0, receipt
    path.write_text(json.dumps(after))
    code, said = verify_receipt(capsys, path, "--keys", old_keys)  # the new key is not in the old listing
    assert code == 1 and "key_id" in said
    # the receipt of an old event asked for now is signed by the new key, and holds too
    assert g.get(f"/receipts/{before[0]['seq']}").json["key_id"] == rotated["key_id"]


READY = """
import os, sys, time
from referee.store import open_store
from referee.trust.keys import ring_of
print("ready", flush=True)
while not os.path.exists(sys.argv[2]):
    time.sleep(0.001)
print(ring_of(open_store(sys.argv[1])).current().key_id, flush=True)
"""


def test_processes_starting_at_once_make_one_key(store_url, tmp_path):
    """Ten processes open a new store and find no key, and each makes one at the same
    moment: the store keeps one, and every process signs with it. (Opening a new
    SQLite file at once is part of a first start too: each adds the file's later
    columns under the write lock.)"""
    go = tmp_path / "go"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    procs = [subprocess.Popen([sys.executable, "-c", READY, store_url, str(go)], stdout=subprocess.PIPE,
                              text=True, env=env) for _ in range(10)]
    try:
        for p in procs:
            assert p.stdout.readline().strip() == "ready"
        go.write_text("")
        ids = [p.stdout.readline().strip() for p in procs]
    finally:
        for p in procs:
            p.wait(60)
    assert [p.returncode for p in procs] == [0] * len(procs)
    assert len(set(ids)) == 1 and len(ids[0]) == 16, ids
    from referee.store import open_store
    from referee.trust.keys import ring_of

    assert [k["key_id"] for k in ring_of(open_store(store_url)).keys()] == ids[:1]
