"""A league of version 2 in the pure core: invited players join or decline, the
organiser's start records each joiner's entropy, and round 1's lots are drawn from
the seed derived from the league's secret part and those contributions, as a
game's deal is (referee/entropy.py). The audit re-derives all of it: a changed
contribution, a forged decline or a start without its contributions fails."""

from __future__ import annotations

import json

import pytest

from referee import entropy
from referee.events import canonical_text
from referee.leagues import LeagueConflict, audit_league
from referee.leagues.league import NotInvited
from referee.leagues.pairing import draw_lots

from .helpers import AT, Run, players
from .test_audit import first_error, lines, reseal


def invited_run(entropies: dict, n: int = 5, declines: tuple = ("p4",)) -> Run:
    run = Run(name="V2", game="castle-danger", options={"turn_limit": 3}, format="swiss", players=[],
              invited=players(n), organiser="org", league_version=2, rounds=2)
    for p in players(n):
        if p["player"] in declines:
            run.commit(run.league.propose_decline(p["player"], at=AT))
        else:
            run.commit(run.league.propose_join(p, at=AT))
    run.commit(run.league.propose_start(entropies, at=AT))
    return run


def test_the_lots_come_from_the_secret_part_and_the_joiners_entropy():
    run = invited_run({"p0": "dice from my desk", "p2": "ÆØÅ 42"}).play_all()
    started = next(e for e in run.events if e.type == "league-started")
    assert started.payload["contributions"] == [
        {"player": "p0", "entropy": "dice from my desk"}, {"player": "p1", "entropy": None},
        {"player": "p2", "entropy": "ÆØÅ 42"}, {"player": "p3", "entropy": None}]
    paired = next(e for e in run.events if e.type == "round-paired")
    derived = entropy.seed("league-seed", ["dice from my desk", None, "ÆØÅ 42", None])
    assert paired.payload["lots"] == draw_lots(["p0", "p1", "p2", "p3"], derived, paired.seq)
    report = audit_league(run.bundle())
    assert report["valid"] and report["seed"] == "verified", report["first_error"]
    assert {row["player"] for row in report["standings"]} == {"p0", "p1", "p2", "p3"}  # never p4


def test_a_changed_contribution_fails_the_audit():
    run = invited_run({"p0": "mine"}).play_all()
    rows = lines(run.bundle())
    start = next(r for r in rows if r["log"] == "league" and r["event"]["type"] == "league-started")
    seq = start["event"]["seq"]
    # a contribution that draws other lots (the forger's aim), the chain resealed
    changed = next(c for c in ("theirs", "other", "more", "again")
                   if draw_lots(["p0", "p1", "p2", "p3"], entropy.seed("league-seed", [c, None, None, None]), seq + 1)
                   != draw_lots(["p0", "p1", "p2", "p3"], entropy.seed("league-seed", ["mine", None, None, None]), seq + 1))
    start["event"]["payload"]["contributions"][0]["entropy"] = changed
    err = first_error("".join(canonical_text(r) + "\n" for r in reseal(rows)))
    assert err["where"] == f"league event {seq + 1}" and err["code"] == "diverges", err
    # a start that leaves a joiner out of its contributions fails at the start itself
    rows = lines(run.bundle())
    start = next(r for r in rows if r["log"] == "league" and r["event"]["type"] == "league-started")
    del start["event"]["payload"]["contributions"][1]
    err = first_error("".join(canonical_text(r) + "\n" for r in reseal(rows)))
    assert err["where"] == f"league event {seq}" and err["code"] == "diverges", err


def test_a_forged_join_or_decline_fails_the_audit():
    run = invited_run({}).play_all()
    rows = lines(run.bundle())
    decline = next(r for r in rows if r["log"] == "league" and r["event"]["type"] == "player-declined")
    decline["event"]["payload"]["player"] = "stranger"  # nobody invited them
    err = first_error("".join(canonical_text(r) + "\n" for r in reseal(rows)))
    assert err["code"] == "refused" and "invitation" in err["detail"], err
    rows = lines(run.bundle())
    created = next(r for r in rows if r["log"] == "league" and r["event"]["type"] == "league-created")
    created["event"]["payload"]["invited"] = created["event"]["payload"]["invited"][:3]  # p3 was never asked
    err = first_error("".join(canonical_text(r) + "\n" for r in reseal(rows)))
    assert err["code"] == "refused" and err["where"].startswith("league event"), err


def test_nobody_joins_uninvited_or_after_the_start_and_the_start_needs_enough():
    run = Run(name="V2", game="castle-danger", options={"turn_limit": 3}, format="swiss", players=[],
              invited=players(3), organiser="org", league_version=2, rounds=2)
    with pytest.raises(NotInvited):
        run.league.propose_join({"player": "x", "name": "X"})
    run.commit(run.league.propose_join(players(3)[0], at=AT))
    with pytest.raises(LeagueConflict):
        run.league.propose_start()  # one joined: too few
    assert run.league.due() is None and run.state.rounds == []  # nothing paired meanwhile
    run.commit(run.league.propose_join(players(3)[1], at=AT))
    run.commit(run.league.propose_start({}, at=AT))
    with pytest.raises(LeagueConflict):
        run.league.propose_join(players(3)[2])
    with pytest.raises(LeagueConflict):
        run.league.propose_decline("p2")
    assert json.loads(canonical_text(run.events[0].payload))["league_version"] == 2
