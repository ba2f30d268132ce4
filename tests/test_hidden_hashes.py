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


def test_knowing_the_seed_of_a_private_game_does_not_reveal_hidden_content(client):
    """A seat may know the seed of a seeded game (the organiser shared it, or it was
    weak enough to find from the commitment). The salts are keyed by a secret of the
    server, not by the seed, so the seed still lets no guess be checked."""
    from referee.events import salt as salt_for

    seed = "weak"
    g = Game(client, "castle-danger", 2, {"variant": "hidden-danger", "seed": seed})
    assert g.post(0, {"moves": [{"type": "smuggle", "piece": "B"}, {"type": "end"}]}).status_code == 201
    full = g.get("/events", "admin").json["events"][1]
    seen = g.get("/events", 1).json["events"][1]

    def payload_with(kind):
        p = dict(full["payload"])
        p["move"] = {"type": "smuggle", "piece": kind}
        if "piece" in p:
            p["piece"] = kind
        return p

    assert matching_kinds(seen, payload_with, salt_for(seed, seen["seq"])) == []
    assert matching_kinds(seen, payload_with, full["salt"]) == ["B"]


def test_the_salt_key_is_revealed_with_the_seed_and_audited(client):
    import json

    from referee.audit import audit
    from referee.events import salt as salt_for
    from tests.test_audit import reseal

    g = Game(client, "king-of-danger", 2, {"seed": 11})
    g.post(0, {"move": {"type": "resign"}})
    lines = [json.loads(x) for x in g.export().splitlines()]
    reveal = lines[-1]
    assert reveal["type"] == "seed-revealed" and reveal["payload"]["seed"] == "11"
    key = reveal["payload"]["salt_key"]
    assert len(key) == 64 and key != "11"
    assert all(e["salt"] == salt_for(key, e["seq"]) for e in lines)
    assert audit("".join(json.dumps(x, sort_keys=True, separators=(",", ":")) + "\n" for x in lines))["seed"] == "verified"
    # a reveal naming another key does not verify the salts the hashes were made with
    lines[-1]["payload"]["salt_key"] = "0" * 64
    report = audit(reseal(lines))
    assert report["valid"] is False and report["first_error"]["code"] == "bad-salt"


def test_a_log_whose_salts_the_seed_keys_still_audits():
    """Logs written before salt keys (0.1.0) keyed every salt by the seed and
    revealed only the seed; the audit still verifies them."""
    from referee.audit import audit
    from referee.autoplay import random_game

    _, log = random_game("king-of-danger", 2, seed="old-style")
    assert "salt_key" not in log[-1].payload
    report = audit("".join(e.to_json() + "\n" for e in log))
    assert report["valid"] is True and report["seed"] == "verified"


def test_one_wrong_salt_is_caught_at_its_event(client):
    """Every salt is checked against the revealed key, not only the reveal's."""
    import json

    from referee.audit import audit
    from tests.test_audit import reseal

    g = Game(client, "castle-danger", 2, {"variant": "hidden-danger", "seed": 12})
    assert g.post(0, {"moves": [{"type": "smuggle", "piece": "Z"}, {"type": "end"}]}).status_code == 201
    g.post(1, {"move": {"type": "resign"}})
    lines = [json.loads(x) for x in g.export().splitlines()]
    assert audit(reseal(lines))["seed"] == "verified"
    lines[1]["salt"] = "f" * 64  # the smuggle's salt, as a forger wanting another kind would need
    report = audit(reseal(lines))
    assert report["valid"] is False and report["seed"] == "mismatch"
    assert report["first_error"] == {"seq": 2, "code": "bad-salt",
                                     "detail": report["first_error"]["detail"]}


def test_the_salt_key_is_shown_nowhere_while_the_game_runs(client, service):
    g = Game(client, "king-of-the-castle", 3, {"squires": "choose", "seed": "k"})
    key = service.record(g.id).salt_secret
    seat = g.summary()["to_act"][0]
    answers = [g.created, g.summary(), g.get("/view", "admin").json, g.get("/events", "admin").json,
               g.get("/view", seat).json, g.get("/events", seat).json, g.get("/legal", seat).json]
    assert key and all(key not in json_text(a) for a in answers)
    assert key not in g.export()


def json_text(obj) -> str:
    import json

    return json.dumps(obj)


def test_a_forged_reveal_whose_salt_key_is_not_a_string_is_refused(client):
    """A salt key that is no text keys no salt: the audit refuses the log at event
    1 (bad-salt), whether its salts were keyed by a salt key or (0.1.0) by the
    seed, however whole the chain is made again."""
    import json

    from referee.audit import audit
    from referee.autoplay import random_game
    from tests.test_audit import reseal

    g = Game(client, "king-of-danger", 2, {"seed": 13})
    g.post(0, {"move": {"type": "resign"}})
    keyed = [json.loads(x) for x in g.export().splitlines()]
    _, log = random_game("king-of-danger", 2, seed="old-style")
    by_seed = [e.to_dict() for e in log]
    for lines in (keyed, by_seed):
        assert audit(reseal(lines))["seed"] == "verified"
        for key in (7, None, True, ["k"], {"key": "k"}):
            lines[-1]["payload"]["salt_key"] = key
            report = audit(reseal(lines))
            assert report["valid"] is False and report["seed"] == "mismatch", (key, report)
            assert (report["first_error"]["seq"], report["first_error"]["code"]) == (1, "bad-salt")
