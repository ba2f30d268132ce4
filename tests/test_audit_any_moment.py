"""Every game audits valid at every moment, not only once it is over.

While a game runs its seed is secret, so random referee steps cannot be
re-derived yet; the audit must take each such step whole (a step may write
several events: a deal and the turn that begins) and check everything else."""

from __future__ import annotations

import random

import pytest

from referee.audit import audit
from referee.autoplay import new_table, random_game

CONFIGS = [
    ("king-of-danger", 3, {}),
    ("castle-danger", 2, {"variant": "hidden-danger", "turn_limit": 12}),
    ("king-of-the-castle", 3, {"squires": "random"}),
    ("king-of-the-castle", 2, {"squires": "choose"}),
    ("king-of-the-castle", 4, {"squires": "letters"}),
    ("kings-keys", 3, {"wild_cards": True}),
]


def text(events) -> str:
    return "".join(e.to_json() + "\n" for e in events)


def played(game, players, options, seed):
    """A random game played as the service plays it: each move one append, then
    each referee step one append. Returns the log and the length after every append
    (the moments an export can show)."""
    rnd = random.Random(seed)
    table, log = new_table(game, players, options, seed)  # created, then the first deal
    moments = [1, len(log)]
    while not table.over or table.due():
        if table.due():
            events, fork = table.propose_step(seed)
        else:
            seat = rnd.choice(table.to_act())
            legal = [m for m in table.engine.legal(table.state, seat) if m["type"] != "resign"]
            events, fork = table.propose(seat, [rnd.choice(legal)], seed=seed)
        table.commit(fork)
        log += events
        moments.append(len(log))
    return log, moments


@pytest.mark.parametrize(("game", "players", "options"), CONFIGS,
                         ids=[f"{g}-{p}-{'-'.join(map(str, o.values()))}" for g, p, o in CONFIGS])
def test_every_moment_of_a_game_audits_valid(game, players, options):
    log, moments = played(game, players, options, f"moments-{game}-{players}")
    rnd = random.Random(game)
    # every early moment (the first deals and turns), then a sample of the rest
    cuts = sorted(set(moments[:40]) | set(rnd.sample(moments, min(len(moments), 25))))
    for n in cuts:
        report = audit(text(log[:n]))
        assert report["valid"], (n, log[n - 1].type, report["first_error"])
        assert report["seed"] == ("verified" if log[n - 1].type == "seed-revealed" else "unrevealed")


@pytest.mark.parametrize("seed", range(4))
def test_a_step_that_passes_a_left_seats_turn_is_taken_whole_while_the_seed_is_secret(seed):
    """A seat that resigns from a table of five plays on as the referee's (house rule
    on_resign play-on): its moves are the seat's, and a step the referee takes after
    one (a card lost, the turn ended, the next begun and drawn for) passes a moment
    where that seat is still to act. While the seed is secret the step is taken as
    logged, whole: that moment is no bot's move owed."""
    rnd = random.Random(seed)
    table, log = new_table("king-of-the-castle", 5, {"squires": "letters"}, f"left-seat-{seed}")
    moments, resign_at = [len(log)], rnd.randint(5, 40)
    moves = 0
    while not table.over or table.due():
        if table.due():
            events, fork = table.propose_step(f"left-seat-{seed}")
        else:
            seat = rnd.choice(table.to_act())
            legal = [m for m in table.engine.legal(table.state, seat) if m["type"] != "resign"]
            move = {"type": "resign"} if moves == resign_at else rnd.choice(legal)
            events, fork = table.propose(seat, [move], seed=f"left-seat-{seed}")
            moves += 1
        table.commit(fork)
        log += events
        moments.append(len(log))
    left = next(i for i, e in enumerate(log) if e.type == "resigned")
    assert table.state.left and any(isinstance(e.actor, int) and e.actor in table.state.left
                                    for e in log[left + 1:])  # the left seat played on
    for n in (m for m in moments if m > left):
        report = audit(text(log[:n]))
        assert report["valid"], (n, report["first_error"])


def test_a_running_game_still_refuses_a_forged_move():
    """Taking random steps as logged must not make the audit trust anything else."""
    import json

    from tests.test_audit import reseal

    _, log = random_game("king-of-the-castle", 3, {}, seed="forged-moment")
    lines = [json.loads(e.to_json()) for e in log[:60]]
    moves = [i for i, d in enumerate(lines) if isinstance(d["actor"], int)]
    victim = lines[moves[1]]
    victim["actor"] = (victim["actor"] + 1) % 3  # the move made by another seat
    report = audit(reseal(lines))
    assert report["valid"] is False and report["first_error"]["seq"] == victim["seq"]


def test_a_referee_event_no_step_owed_is_not_taken_as_part_of_a_random_step():
    """A random step is taken as logged only as far as it goes: its own events,
    written in one append (one ``at``). A referee event appended later that no rule
    owed (here a second draw for the player whose turn began) is refused, not
    swallowed into the deal before it."""
    import json

    from referee.autoplay import new_table
    from tests.test_audit import reseal

    _, log = new_table("king-of-the-castle", 3, {}, seed="forged-draw")
    assert [e.type for e in log[1:]] == ["dealt", "turn-began", "drew"]
    lines = [json.loads(e.to_json()) for e in log]
    assert audit(reseal(lines))["valid"] is True
    forged = {**lines[-1], "seq": len(lines) + 1, "at": "2099-01-01T00:00:00.000000Z"}
    report = audit(reseal(lines + [forged]))
    assert report["valid"] is False
    assert report["first_error"]["seq"] == forged["seq"]
    assert report["first_error"]["code"] == "unexpected-referee-event"


# ---- the property, end to end: random games through the API, the admin's export
# taken at random moments, each export audited by POST /v1/audit --------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

ALL_GAMES = [
    ("king-of-danger", 2, {}), ("king-of-danger", 4, {}),
    ("castle-danger", 2, {}), ("castle-danger", 2, {"variant": "hidden-danger"}),
    ("king-of-the-castle", 2, {"squires": "random"}), ("king-of-the-castle", 3, {"squires": "choose"}),
    ("king-of-the-castle", 5, {"squires": "letters"}),
    ("kings-keys", 3, {}), ("kings-keys", 4, {"wild_cards": True}),
]


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    """One app for every example; its audit rate limit (60 a minute by default)
    raised, as an organiser auditing in bulk would."""
    import os

    from referee.api import create_app
    from referee.queue import InlineQueue
    from referee.store.sqlite import SqliteStore
    from referee.system import assemble

    store = SqliteStore(str(tmp_path_factory.mktemp("moments") / "moments.db"))
    app = create_app(assemble(store, InlineQueue()))
    app.testing = True
    before = os.environ.get("REFEREE_AUDIT_RATE")
    os.environ["REFEREE_AUDIT_RATE"] = "100000/minute"
    yield app.test_client()
    if before is None:
        del os.environ["REFEREE_AUDIT_RATE"]
    else:
        os.environ["REFEREE_AUDIT_RATE"] = before


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=st.sampled_from(ALL_GAMES),
       seed=st.one_of(st.text(min_size=1, max_size=12), st.integers(0, 10**12)),
       moves=st.integers(0, 120),
       every=st.integers(1, 15),
       rnd=st.randoms(use_true_random=False))
def test_the_admins_export_audits_valid_at_any_moment(api, config, seed, moves, every, rnd):
    from tests.helpers import Game

    game, players, options = config
    g = Game(api, game, players, {**options, "seed": seed})

    def audited():
        r = api.post("/v1/audit", data=g.export().encode(), content_type="application/jsonl")
        assert r.status_code == 200, r.json
        assert r.json["valid"], r.json["first_error"]
        return r.json

    report = audited()  # the deal only
    assert report["seed"] == "unrevealed"
    for n in range(1, moves + 1):
        s = g.summary()
        if s["status"] != "active":
            break
        seat = rnd.choice(s["to_act"])
        legal = [m for m in g.legal(seat) if m["type"] != "resign"]
        assert g.post(seat, {"move": rnd.choice(legal)}).status_code == 201
        if n % every == 0 or n <= 3:
            audited()
    if g.summary()["status"] == "active" and rnd.random() < 0.5:
        assert g.post(rnd.choice(g.summary()["to_act"]), {"move": {"type": "resign"}}).status_code == 201
    report = audited()
    over = g.summary()["status"] == "finished"
    assert report["seed"] == ("verified" if over else "unrevealed")
