"""Receipts checked as a client in another language would check them: with a second
Ed25519 implementation (PyNaCl, libsodium's), the message bytes built from the
contract's text ("Signed receipts"), nothing of the referee's own code. Every
channel that carries a receipt: the answers, the receipt asked for, the e-mail
notices and the webhooks. Both stores."""

from __future__ import annotations

import base64
import json
import random

import pytest
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
    listed = {k["key_id"]: k for k in keys_document["keys"]}
    key = listed.get(receipt["key_id"])
    if key is None or key["algorithm"] != "ed25519":
        return False
    try:
        VerifyKey(base64.b64decode(key["public_key"])).verify(contract_message(receipt),
                                                              base64.b64decode(receipt["signature"]))
    except BadSignatureError:
        return False
    return True


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
