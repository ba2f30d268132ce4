"""The transparency endpoints (docs/api.md, "Transparency log"), both stores: the
checkpoint as a signed note whose signature PyNaCl (a second Ed25519
implementation) accepts, proofs that verify against it, the leaves, the fuller
receipt, witnesses' cosignatures (made here with PyNaCl), and every refusal,
which names its field and changes nothing."""

from __future__ import annotations

import base64
import hashlib
import json
import random
import struct
import time

import nacl.signing
import pytest

from referee.transparency import merkle, notes
from referee.transparency.keeping import MAX_WITNESSES
from referee.transparency.log import MAX_LEAVES
from tests.helpers import Game
from tests.test_transparency_log import moves, settled

KOD = "king-of-danger"
T = "/v1/transparency"


def current_key(client) -> bytes:
    return base64.b64decode(client.get("/v1/keys").json["keys"][-1]["public_key"])


def checkpoint(client) -> tuple[str, notes.Checkpoint]:
    r = client.get(f"{T}/checkpoint")
    assert r.status_code == 200 and r.mimetype == "text/plain"
    whole = r.get_data(as_text=True)
    text, _, sigs = whole.partition("\n\n")
    origin = text.split("\n")[0]
    public = current_key(client)
    kid = hashlib.sha256(origin.encode() + b"\n\x01" + public).digest()[:4]
    line = sigs.split("\n")[0]
    assert line.startswith(f"\u2014 {origin} ")
    raw = base64.b64decode(line.rsplit(" ", 1)[1])
    assert raw[:4] == kid and len(raw) == 68
    nacl.signing.VerifyKey(public).verify((text + "\n").encode(), raw[4:])  # raises if it does not hold
    return whole, notes.parse_checkpoint(text + "\n")


class PyNaClWitness:
    """A witness written here from the C2SP tlog-cosignature text, on PyNaCl."""

    def __init__(self, name: str):
        self.name, self.key = name, nacl.signing.SigningKey.generate()
        public = bytes(self.key.verify_key)
        self.kid = hashlib.sha256(name.encode() + b"\n\x04" + public).digest()[:4]
        typed = base64.b64encode(b"\x04" + public).decode()
        self.vkey = f"{name}+{self.kid.hex()}+{typed}"

    def cosign(self, checkpoint_text: str, timestamp: int | None = None) -> str:
        timestamp = int(time.time()) if timestamp is None else timestamp
        message = f"cosignature/v1\ntime {timestamp}\n".encode() + checkpoint_text.encode()
        sig = self.key.sign(message).signature
        return f"\u2014 {self.name} " + base64.b64encode(self.kid + struct.pack(">Q", timestamp) + sig).decode()


def problem(r, status: int, field: str) -> None:
    assert r.status_code == status, r.get_data()[:300]
    assert r.mimetype == "application/problem+json"
    assert r.json.get("field") == field, r.json


@pytest.fixture
def played(client, service):
    g = Game(client, KOD, 3, {"seed": "tlog-api"})
    moves(g, 10, random.Random(7))
    settled(service)
    return g


def test_the_checkpoint_and_proofs(client, service, played):
    g = played
    whole, cp = checkpoint(client)
    events = client.get(f"/v1/games/{g.id}/events", query_string={"limit": 1000}).json["events"]
    assert cp.size == len(events)
    for ev in events:
        r = client.get(f"{T}/proof/inclusion", query_string={"game": g.id, "seq": ev["seq"], "size": cp.size})
        assert r.status_code == 200, r.json
        leaf = merkle.leaf_hash(f"{g.id}\n{ev['seq']}\n{ev['hash']}".encode())
        assert merkle.verify_inclusion(r.json["index"], cp.size, leaf,
                                       [base64.b64decode(h) for h in r.json["hashes"]], cp.root)
    leaves = client.get(f"{T}/leaves", query_string={"start": 0, "end": cp.size}).json["leaves"]
    assert leaves == [f"{g.id}\n{ev['seq']}\n{ev['hash']}" for ev in events]
    # the tree grows; the old head is the start of the new one
    moves(g, 5, random.Random(8))
    settled(service)
    _, new = checkpoint(client)
    assert new.size > cp.size
    r = client.get(f"{T}/proof/consistency", query_string={"from": cp.size, "to": new.size})
    assert r.status_code == 200
    assert merkle.verify_consistency(cp.size, new.size, cp.root, new.root,
                                     [base64.b64decode(h) for h in r.json["hashes"]])


def test_a_receipt_once_integrated_has_its_place_in_a_checkpoint(client, service, played):
    g = played
    r = client.get(f"/v1/games/{g.id}/receipts/3")
    assert r.status_code == 200
    got = r.json
    assert {"index", "checkpoint", "inclusion"} <= set(got)
    note = notes.parse_note(got["checkpoint"])
    cp = notes.parse_checkpoint(note.text)
    assert notes.signed_by(note, cp.origin, current_key(client))
    leaf = merkle.leaf_hash(f"{g.id}\n3\n{got['hash']}".encode())
    assert merkle.verify_inclusion(got["index"], cp.size, leaf, [base64.b64decode(h) for h in got["inclusion"]],
                                   cp.root)


def test_witnesses_cosign_and_the_checkpoint_shows_it(client, service, played):
    whole, cp = checkpoint(client)
    w = PyNaClWitness("witness.example/one")
    r = client.post(f"{T}/witness", json={"size": cp.size, "key": w.vkey, "cosignature": w.cosign(cp.text)})
    assert r.status_code == 201, r.json
    assert r.json["cosignatures"] == 1
    again, _ = checkpoint(client)
    note = notes.parse_note(again)
    assert notes.cosignature_by(note, notes.parse_vkey(w.vkey)) is not None
    # the fuller receipt names this cosigned checkpoint
    got = client.get(f"/v1/games/{played.id}/receipts/2").json
    assert notes.cosignature_by(notes.parse_note(got["checkpoint"]), notes.parse_vkey(w.vkey)) is not None


def test_refusals_name_their_field_and_change_nothing(client, service, played):
    whole, cp = checkpoint(client)
    w = PyNaClWitness("witness.example/two")
    other = PyNaClWitness("witness.example/three")
    cases = [
        ("get", f"{T}/proof/inclusion", {"game": played.id, "seq": 1, "size": cp.size + 5}, 400, "size"),
        ("get", f"{T}/proof/inclusion", {"game": played.id, "seq": 999, "size": cp.size}, 404, "seq"),
        ("get", f"{T}/proof/inclusion", {"game": played.id, "seq": "x", "size": 1}, 400, "seq"),
        ("get", f"{T}/proof/consistency", {"from": 3, "to": cp.size + 1}, 400, "to"),
        ("get", f"{T}/proof/consistency", {"from": cp.size, "to": 2}, 400, "from"),
        ("get", f"{T}/leaves", {"start": 0, "end": cp.size + 1}, 400, "end"),
        ("get", f"{T}/leaves", {"start": 0, "end": MAX_LEAVES + 1}, 400, "end"),
        ("get", f"{T}/leaves", {"start": -1, "end": 1}, 400, "start"),
        ("post", f"{T}/witness", {"size": cp.size, "key": "nonsense", "cosignature": w.cosign(cp.text)}, 400, "key"),
        ("post", f"{T}/witness", {"size": cp.size, "key": other.vkey, "cosignature": w.cosign(cp.text)}, 400,
         "cosignature"),
        ("post", f"{T}/witness", {"size": cp.size, "key": w.vkey, "cosignature": w.cosign(cp.text + "x")}, 400,
         "cosignature"),
        ("post", f"{T}/witness", {"size": cp.size + 1, "key": w.vkey, "cosignature": w.cosign(cp.text)}, 400, "size"),
    ]
    if cp.size > MAX_LEAVES:
        cases.pop(6)
    for method, path, params, status, field in cases:
        r = (client.get(path, query_string=params) if method == "get" else client.post(path, json=params))
        problem(r, status, field)
    assert checkpoint(client)[0] == whole  # no cosignature kept from any of them
    assert len(client.get(f"{T}/leaves", query_string={"start": 0, "end": 1}).json["leaves"]) == 1


def test_witnesses_are_capped_and_rate_limited(client, service, played, monkeypatch):
    _, cp = checkpoint(client)
    for i in range(MAX_WITNESSES):
        w = PyNaClWitness(f"witness.example/{i}")
        r = client.post(f"{T}/witness", json={"size": cp.size, "key": w.vkey, "cosignature": w.cosign(cp.text)},
                        environ_base={"REMOTE_ADDR": f"10.0.0.{i}"})
        assert r.status_code == 201, r.json
    w = PyNaClWitness("witness.example/one-too-many")
    r = client.post(f"{T}/witness", json={"size": cp.size, "key": w.vkey, "cosignature": w.cosign(cp.text)},
                    environ_base={"REMOTE_ADDR": "10.0.1.1"})
    problem(r, 409, "key")
    assert len(notes.parse_note(checkpoint(client)[0]).signatures) == 1 + MAX_WITNESSES
    # one address posting on and on is turned away
    monkeypatch.setenv("REFEREE_WITNESS_RATE", "3/hour")
    codes = [client.post(f"{T}/witness", json={"size": cp.size, "key": "x", "cosignature": "y"},
                         environ_base={"REMOTE_ADDR": "10.9.9.9"}).status_code for _ in range(5)]
    assert codes[:3] == [400, 400, 400] and codes[3:] == [429, 429]


def test_where_a_games_events_are(client, service, played):
    _, cp = checkpoint(client)
    r = client.get(f"{T}/games/{played.id}")
    assert r.status_code == 200
    got = r.json
    assert got["checkpoint"] == cp.size
    assert [p["seq"] for p in got["events"]] == list(range(1, cp.size + 1))
    assert all(p["in_checkpoint"] and p["witnesses"] == 0 for p in got["events"])
    w = PyNaClWitness("witness.example/places")
    assert client.post(f"{T}/witness", json={"size": cp.size, "key": w.vkey,
                                              "cosignature": w.cosign(cp.text)}).status_code == 201
    assert all(p["witnesses"] == 1 for p in client.get(f"{T}/games/{played.id}").json["events"])
    problem(client.get(f"{T}/games/no-such-game"), 404, "game_id")


def test_text_that_is_no_utf8_is_refused_not_a_500(client, service, played):
    _, cp = checkpoint(client)
    w = PyNaClWitness("witness.example/surrogate")
    for body, field in (({"size": cp.size, "key": "witness\ud800+01020304+AAAA", "cosignature": "x"}, "key"),
                        ({"size": cp.size, "key": w.vkey, "cosignature": "\u2014 w \ud800"}, "cosignature")):
        r = client.post(f"{T}/witness", data=json.dumps(body), content_type="application/json")
        problem(r, 400, field)


def test_an_empty_log_has_a_checkpoint_of_size_zero(client):
    _, cp = checkpoint(client)
    assert cp.size == 0 and cp.root == merkle.EMPTY_ROOT
    problem(client.get(f"{T}/leaves", query_string={"start": 0, "end": 1}), 400, "end")
    assert client.get(f"{T}/proof/consistency", query_string={"from": 0, "to": 0}).json == {"hashes": []}


def test_a_fuller_receipt_is_held_by_the_audit_as_any_receipt(client, service):
    g = Game(client, KOD, 2, {"seed": "tlog-audit"})
    moves(g, 3, random.Random(5))
    assert g.post(0, {"move": {"type": "resign"}}).status_code == 201
    settled(service)
    fuller = client.get(f"/v1/games/{g.id}/receipts/2").json
    assert "inclusion" in fuller
    body = (json.dumps({"receipt": fuller}) + "\n" + g.export()).encode()
    r = client.post("/v1/audit", data=body, content_type="application/jsonl")
    assert r.status_code == 200, r.json
    assert [x["status"] for x in r.json["receipts"]] == ["held"]
