"""A hash must not betray what the redaction hides.

Without salts, a seat shown a redacted event and its hash can hash every guess
of the hidden part and compare: a smuggled piece is one of three kinds. Salts
(secret until the game ends) close that; after the end everything verifies."""

from __future__ import annotations

from referee.events import Event
from tests.helpers import Game


def matching_kinds(ev: dict, payload_for, salt: str) -> list[str]:
    """The kinds whose guessed payload, hashed with ``salt``, gives the event's hash."""
    return [kind for kind in "ZBC"
            if Event.from_dict({**ev, "payload": payload_for(kind), "salt": salt}).compute_hash() == ev["hash"]]


def test_a_smuggled_kind_cannot_be_recovered_from_the_hash(client):
    g = Game(client, "castle-danger", 2, {"variant": "hidden-danger", "seed": "salty"})
    smuggle = {"type": "smuggle", "piece": "C"}
    assert smuggle in g.legal(0)
    assert g.post(0, {"moves": [smuggle, {"type": "end"}]}).status_code == 201
    full = g.get("/events", "admin").json["events"][1]
    seen = g.get("/events", 1).json["events"][1]
    assert seen["salt"] is None and "piece" not in str(seen["payload"]["move"])

    def payload_with(kind):  # the attacker's best guess: the admin's payload, kind swapped
        p = dict(full["payload"])
        p["move"] = {"type": "smuggle", "piece": kind}
        if "piece" in p:
            p["piece"] = kind
        return p

    # a seat does not know the salt: no guess verifies
    assert matching_kinds(seen, payload_with, "") == []
    # with the salt (revealed at the end) the true kind, and only it, verifies
    assert matching_kinds(seen, payload_with, full["salt"]) == ["C"]


def test_after_the_end_every_event_is_shown_whole_and_verifies(client):
    g = Game(client, "king-of-danger", 2, {"seed": "salty2"})
    g.post(0, {"move": {"type": "resign"}})
    events = g.get("/events", None, limit=1000).json["events"]
    assert all(e["salt"] for e in events)
    for e in events:
        assert Event.from_dict(e).compute_hash() == e["hash"]
