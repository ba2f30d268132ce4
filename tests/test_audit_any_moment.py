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
