"""The transparency log's channels (the checkpoint, the leaves, the proofs, each
event's place, the fuller receipts) show no hidden card of any seat, no seed and
no salt key while a random game runs: a leaf is a game's id, an event's number
and its hash, and an event's hash covers its secret salt."""

from __future__ import annotations

import random
import re

from tests.helpers import Game, strings
from tests.test_http_play import kod_hidden
from tests.test_transparency_log import settled

T = "/v1/transparency"


def channels(client, g: Game) -> list:
    """Every answer of the transparency endpoints about ``g``, as anyone gets them."""
    checkpoint = client.get(f"{T}/checkpoint").get_data(as_text=True)
    size = int(checkpoint.split("\n")[1])
    out: list = [checkpoint, client.get(f"{T}/games/{g.id}").json]
    for start in range(0, size, 1000):
        out.append(client.get(f"{T}/leaves", query_string={"start": start, "end": min(size, start + 1000)}).json)
    version = g.summary()["version"]
    for seq in range(1, version + 1):
        out.append(client.get(f"/v1/games/{g.id}/receipts/{seq}").json)
        proof = client.get(f"{T}/proof/inclusion", query_string={"game": g.id, "seq": seq, "size": size})
        if proof.status_code == 200:
            out.append(proof.json)
    out.append(client.get(f"{T}/proof/consistency", query_string={"from": 1, "to": size}).json)
    return out


def words(answer) -> set[str]:
    """The strings of an answer, and every word of a text answer (the note)."""
    if isinstance(answer, str):
        return set(re.split(r"[\s\n]+", answer))
    return strings(answer)


def test_the_transparency_channels_hide_every_hand_and_secret(client, service):
    g = Game(client, "king-of-danger", 3, {"seed": "tlog-leaks"})
    record = service.store.record(g.id)
    secrets = [record.seed, record.salt_secret]
    rnd = random.Random(11)
    checked = 0
    for _ in range(40):
        s = g.summary()
        if s["status"] != "active":
            break
        seat = rnd.choice(s["to_act"])
        legal = [m for m in g.legal(seat) if m["type"] not in ("resign", "offer-draw", "take-back")]
        assert g.post(seat, {"move": rnd.choice(legal)}).status_code == 201
        if rnd.random() < 0.25:
            settled(service)
            admin = g.get("/view", "admin").json["view"]
            hidden = set()
            for who in range(3):
                hidden |= kod_hidden(admin, who)
            for answer in channels(client, g):
                seen = words(answer)
                assert not (hidden & seen), hidden & seen
                text = answer if isinstance(answer, str) else repr(answer)
                assert not any(secret and secret in text for secret in secrets)
                checked += 1
    assert checked > 20
