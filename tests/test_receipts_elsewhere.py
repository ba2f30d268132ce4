"""Receipts checked as a client in another language would check them: with two
Ed25519 implementations, libsodium's (PyNaCl, which the referee signs with) and
OpenSSL's (``cryptography``, which ``referee verify-receipt`` checks with), the
message bytes built from the contract's text ("Signed receipts"), nothing of the
referee's own code. Every channel that carries a receipt: the answers, the receipt
asked for, the e-mail notices and the webhooks. Both stores. And the signature is
OpenSSL's to the byte, as it was when OpenSSL signed."""

from __future__ import annotations

import base64
import json
import random

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from nacl.exceptions import BadSignatureError
from nacl.signing import VerifyKey

from referee.cli import main
from referee.mail import sending
from tests.helpers import Game

# The contract: Ed25519 over the UTF-8 bytes of
# "castle-referee/receipt/v1\n" + game + "\n" + seq + "\n" + hash + "\n" + at, seq in decimal.


def contract_message(receipt: dict) -> bytes:
    return "\n".join(["castle-referee/receipt/v1", receipt["game"], str(receipt["seq"]), receipt["hash"],
                      receipt["at"]]).encode("utf-8")


def nacl_holds(keys_document: dict, receipt: dict) -> bool:
    """Whether the receipt's signature holds under libsodium and under OpenSSL (the
    two always agree: else the test fails here)."""
    listed = {k["key_id"]: k for k in keys_document["keys"]}
    key = listed.get(receipt["key_id"])
    if key is None or key["algorithm"] != "ed25519":
        return False
    public, signature = base64.b64decode(key["public_key"]), base64.b64decode(receipt["signature"])
    try:
        VerifyKey(public).verify(contract_message(receipt), signature)
        sodium = True
    except BadSignatureError:
        sodium = False
    try:
        Ed25519PublicKey.from_public_bytes(public).verify(signature, contract_message(receipt))
        openssl = True
    except InvalidSignature:
        openssl = False
    assert sodium == openssl, receipt
    return sodium


def test_pynacl_checks_every_answers_receipt_and_refuses_an_altered_one(client):
    g = Game(client, "kings-keys", 3, {"seed": "elsewhere"})
    got = [g.created["receipt"]]
    rnd = random.Random(1)
    for _ in range(6):
        seat = g.summary()["to_act"][0]
        move = rnd.choice([m for m in g.legal(seat) if m["type"] != "resign"])
        got.append(g.post(seat, {"move": move}).json["receipt"])
    got += [g.get(f"/receipts/{seq}").json for seq in range(1, g.summary()["version"] + 1)]
    keys = client.get("/v1/keys").json
    events = {json.loads(line)["seq"]: json.loads(line) for line in g.export().splitlines()}
    for receipt in got:
        assert nacl_holds(keys, receipt), receipt
        assert (receipt["hash"], receipt["at"]) == (events[receipt["seq"]]["hash"], events[receipt["seq"]]["at"])
    one = got[1]
    for field, value in (("game", one["game"] + "x"), ("seq", one["seq"] + 1), ("hash", "f" * 64),
                         ("at", "1999-12-31T23:59:59.999999Z")):
        assert not nacl_holds(keys, {**one, field: value}), field


def test_pynacl_checks_the_receipt_of_every_e_mail_and_webhook_notice(client, service, smtp, hooks, tmp_path):
    players = [{"name": "Ann", "email": "ann@example.org"}, {"name": "Bob", "webhook": hooks.url}]
    g = Game(client, "king-of-danger", players, {"seed": "elsewhere-notices", "target": 3},
             spectators={"webhook": hooks.url}, organiser={"email": "org@example.org"})
    rnd = random.Random(2)
    for _ in range(300):
        sending.deliver_due(service)
        s = g.summary()
        if s["status"] != "active":
            break
        seat = s["to_act"][0]
        assert g.post(seat, {"move": rnd.choice([m for m in g.legal(seat) if m["type"] != "resign"])}).status_code == 201
    sending.deliver_due(service)
    keys = client.get("/v1/keys").json
    events = {json.loads(line)["seq"]: json.loads(line) for line in g.export().splitlines()}
    hooked = hooks.json()
    assert len(hooked) >= 4 and {h["to"] for h in hooked} == {"seat", "spectators"}
    for body in hooked:  # a webhook: the receipt of the version it tells of
        receipt = body["receipt"]
        assert receipt["seq"] == body["version"] and receipt["hash"] == events[body["version"]]["hash"]
        assert nacl_holds(keys, receipt)
    mails = smtp.inbox.messages
    assert {str(m["To"]) for m in mails} == {"ann@example.org", "org@example.org"}
    for mail in mails:  # an e-mail: its last line, the receipt of the version its subject names
        text = mail.get_content()
        line = text.rstrip("\n").splitlines()[-1]
        assert line.startswith("receipt: ")
        receipt = json.loads(line.removeprefix("receipt: "))
        assert f"(#{receipt['seq']})" in mail["Subject"] and receipt["hash"] == events[receipt["seq"]]["hash"]
        assert nacl_holds(keys, receipt)
    # the e-mail as a player saves it is what `referee verify-receipt` reads
    saved, keys_file = tmp_path / "notice.eml", tmp_path / "keys.json"
    saved.write_bytes(mails[-1].as_bytes())
    keys_file.write_text(json.dumps(keys))
    assert main(["verify-receipt", str(saved), "--keys", str(keys_file)]) == 0


def test_a_receipts_signature_is_openssls_to_the_byte(client, service, store_url):
    """Ed25519 is deterministic: the referee's signer (libsodium) gives exactly the
    bytes OpenSSL gives with the same key over the same message, for every receipt
    and for messages of any text (an operator holding the stored key can check it)."""
    import sqlite3

    g = Game(client, "castle-danger", 2, {"seed": "elsewhere-bytes"})
    seat = g.summary()["to_act"][0]
    answered = g.post(seat, {"move": g.legal(seat)[0]}).json["receipt"]
    if store_url.startswith("sqlite"):
        with sqlite3.connect(store_url.removeprefix("sqlite:///")) as conn:
            record = conn.execute("SELECT record FROM referee_keys WHERE key_id = ?",
                                  (answered["key_id"],)).fetchone()[0]
    else:
        record = service.store.r.hget("{referee:keys}", "key:" + answered["key_id"]).decode()
    openssl = Ed25519PrivateKey.from_private_bytes(base64.b64decode(json.loads(record)["private"]))
    assert base64.b64decode(answered["signature"]) == openssl.sign(contract_message(answered))
    key = service.receipts.ring.current()
    rnd = random.Random(3)
    for size in (0, 1, 63, 64, 65, 200, 5000):
        message = "".join(chr(rnd.choice([rnd.randrange(32, 127), rnd.randrange(160, 0x2FFF)]))
                          for _ in range(size)).encode()
        assert key.sign(message) == openssl.sign(message), size


@pytest.mark.parametrize("who", [0, None])
def test_a_notice_receipt_tells_no_more_than_its_reader_may_see(client, service, hooks, who, monkeypatch):
    """The receipt in a seat's or the spectators' webhook is the receipt anyone may
    ask for of that event: game, seq, hash and time, nothing of the payload."""
    monkeypatch.setenv("REFEREE_WEBHOOK_ALLOW_PRIVATE", "1")
    entry = {"name": "Ann", "webhook": hooks.url}
    g = Game(client, "king-of-danger", [entry, "Bob"] if who == 0 else ["Ann", "Bob"], {"seed": "elsewhere-hidden"},
             **({} if who == 0 else {"spectators": {"webhook": hooks.url}}))
    sending.deliver_due(service)
    (body,) = hooks.json()
    assert body["receipt"] == g.get(f"/receipts/{body['version']}").json
    assert set(body["receipt"]) == {"game", "seq", "hash", "at", "key_id", "signature"}
