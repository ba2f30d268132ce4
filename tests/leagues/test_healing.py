"""Healing leagues (referee/leagues/healing.py), in one process on both stores: what a
league owes is marked before the write that makes the debt, the heal reads the
marked leagues alone and pays each debt once, and a mark is never lost to a
heal that looked a moment too early.

The same faults caused by real processes killed with -9 are in
test_league_restarts.py."""

from __future__ import annotations

import time

import pytest

from referee.caller import Caller
from referee.leagues import healing, running
from referee.leagues.keeping import leagues_of
from referee.players import accounts
from referee.queue import InlineQueue
from referee.store import open_store
from referee.system import assemble
from tests.leagues.test_leagues_jobs import KOD, Died, Held, bots, types
from tests.leaguetools import started

ROUND_ROBIN = {"game": "king-of-danger", "options": KOD, "format": "round-robin"}


def people(service, *names) -> list[str]:
    return [accounts.register(service, {"name": n})["id"] for n in names]


def play_out(service, game_id: str) -> None:
    """The players of a game move (the first legal move each time) until it ends."""
    for _ in range(500):
        summary = service.summary(game_id)
        if summary["status"] != "active":
            return
        seat = Caller(summary["to_act"][0])
        service.submit(game_id, seat, {"move": service.legal(game_id, seat)["moves"][0]})
    raise AssertionError(f"game {game_id} did not end")


def games_of(service, league_id: str, number: int) -> list[dict]:
    return running.view(service, league_id)["rounds"][number - 1]["games"]


def test_a_mark_only_rises_and_a_later_debt_is_never_unmarked(store_url):
    store = leagues_of(assemble(open_store(store_url), InlineQueue()))
    store.owe("L1", 5)
    store.owe("L1", 3)  # a lower mark leaves the higher one
    store.owe("L2", 2)
    assert store.owing() == {"L1": 5, "L2": 2}
    store.paid("L1", 4)  # found owing nothing at 4: the debt marked at 5 stays
    store.paid("L2", 7)
    assert store.owing() == {"L1": 5}
    store.paid("L1", 5)
    assert store.owing() == {}


def recorded(service, league_id: str) -> list[str]:
    return [ev.payload["game"] for ev in leagues_of(service).events(league_id) if ev.type == "result-recorded"]


def test_a_lost_result_job_is_healed_once(store_url):
    queue = Held()  # the jobs of the games' ends are queued and never run: lost
    service = assemble(open_store(store_url), queue)
    ann = people(service, "Ann")[0]
    lid = started(service, {"name": "Lost", **ROUND_ROBIN, "players": [ann] + bots(service, 3)})["id"]
    mine = next(g["game"] for g in games_of(service, lid, 1) if ann in g["seats"])
    assert leagues_of(service).owing() == {}  # paired, its games made, the bots' recorded
    play_out(service, mine)
    assert mine in queue.held and mine not in recorded(service, lid)
    assert lid in leagues_of(service).owing()  # marked before its job was queued
    healing.heal(service)
    assert recorded(service, lid).count(mine) == 1 and types(service, lid).count("round-paired") == 2
    assert leagues_of(service).owing() == {}
    healing.heal(service)
    running.game_ended(service, mine)  # the lost job after all: nothing twice
    assert recorded(service, lid).count(mine) == 1 and types(service, lid).count("round-paired") == 2


def test_the_heal_looks_only_at_the_leagues_owing(store_url, monkeypatch):
    queue = Held()
    service = assemble(open_store(store_url), queue)
    leagues = []
    for i in range(3):
        players = people(service, f"A{i}", f"B{i}")
        leagues.append(started(service, {"name": f"L{i}", **ROUND_ROBIN, "players": players})["id"])
    assert leagues_of(service).owing() == {}
    play_out(service, games_of(service, leagues[1], 1)[0]["game"])  # its job lost
    looked = []
    advance = healing.advance
    monkeypatch.setattr(healing, "advance", lambda svc, lid, **kw: looked.append(lid) or advance(svc, lid, **kw))
    healing.heal(service)
    assert looked == [leagues[1]]
    assert leagues_of(service).owing() == {}
    healing.heal(service)
    assert looked == [leagues[1]]  # paid: not looked at again


def test_a_mark_made_while_the_heal_looks_stays(store_url):
    """A game ends just after the heal found its league owing nothing, before the
    heal unmarks it, the league's log unchanged meanwhile (so the game's mark and
    the heal's version are alike): the game's result is recorded all the same, once."""
    queue = Held()
    service = assemble(open_store(store_url), queue)
    lid = started(service, {"name": "Race", **ROUND_ROBIN,
                                   "players": people(service, "Ann", "Bob", "Cid", "Dee")})["id"]
    first, second = (g["game"] for g in games_of(service, lid, 1))
    play_out(service, first)  # its job lost
    store = leagues_of(service)
    paid = store.paid

    def late(league_id, version):
        if service.summary(second)["status"] == "active":
            play_out(service, second)  # ends now: its job lost too
        paid(league_id, version)

    store.paid = late
    healing.heal(service)
    assert sorted(recorded(service, lid)) == sorted([first, second])
    assert types(service, lid).count("round-paired") == 2 and store.owing() == {}
    store.paid = paid
    healing.heal(service)
    assert sorted(recorded(service, lid)) == sorted([first, second])


def test_a_pairing_that_lost_to_a_withdrawal_has_its_game_ended(store_url):
    """The process pairing round 2 dies after making its games; then the admin
    withdraws a player: round 2 is paired without them, and the games made for the
    pairing that never was are aborted (a table seated alike at the same place
    would have been the same game, kept)."""
    service = assemble(open_store(store_url), InlineQueue())
    players = people(service, "Ann", "Bob", "Cid", "Dee")
    league = started(service, {"name": "Lost", **ROUND_ROBIN, "players": players})
    lid, admin = league["id"], league["admin_token"]
    first, second = (g["game"] for g in games_of(service, lid, 1))
    play_out(service, first)
    create, made = service.create, []

    def dying(game, players_, options=None, **kw):
        out = create(game, players_, options, **kw)
        made.append((kw["game_id"], [p["player"] for p in players_]))
        if len(made) == 2:
            raise Died()  # the process dies with both games of round 2 made
        return out

    service.create = dying
    with pytest.raises(Died):
        play_out(service, second)
    service.create = create
    assert types(service, lid).count("round-paired") == 1 and lid in leagues_of(service).owing()
    gone = made[0][1][0]
    running.withdraw(service, lid, gone, admin)
    paired = games_of(service, lid, 2)
    assert paired and all(gone not in g["seats"] for g in paired)
    lost = [gid for gid, seats in made if gone in seats]
    assert lost and not set(lost) & {g["game"] for g in paired}
    for gid, _ in made:  # a game of the pairing that lost is the league's, or aborted
        listed = gid in {g["game"] for g in paired}
        assert service.summary(gid)["status"] == ("active" if listed else "aborted")
    assert all(service.summary(g["game"])["status"] == "active" for g in paired)
    assert leagues_of(service).noted_games(lid) == {}
    healing.heal(service)
    assert leagues_of(service).owing() == {}


def test_a_job_lost_while_the_process_runs_on_is_healed_when_its_mark_stops_moving(store_url):
    """No restart: a job fails (or is dropped) and the process carries on. The healer
    thread, which found nothing owing when it started, heals the league once its
    mark has not moved between two looks."""
    queue = Held()
    service = assemble(open_store(store_url), queue)
    ann = people(service, "Ann")[0]
    lid = started(service, {"name": "Lost", **ROUND_ROBIN, "players": [ann] + bots(service, 3)})["id"]
    mine = next(g["game"] for g in games_of(service, lid, 1) if ann in g["seats"])
    healer = healing.start_healer(service, interval=0.1)
    try:
        time.sleep(0.3)  # its first look: nothing owing
        play_out(service, mine)  # its job lost
        deadline = time.time() + 10
        while mine not in recorded(service, lid):
            assert time.time() < deadline, "the lost job was never healed"
            time.sleep(0.05)
    finally:
        healer.stop()
        healer.join(10)
    assert recorded(service, lid).count(mine) == 1 and types(service, lid).count("round-paired") == 2
    assert leagues_of(service).owing() == {}


def test_a_game_whose_end_no_reaction_heard_is_recorded_by_its_rounds_last_job(store_url):
    """Both reactions to a game's end lost (two processes killed each right after its
    append): nothing marks the league, no job comes. The round's last game's job
    looks at every game left without a result, and the round does not stall."""
    service = assemble(open_store(store_url), InlineQueue())
    lid = started(service, {"name": "Unheard", **ROUND_ROBIN,
                                   "players": people(service, "Ann", "Bob", "Cid", "Dee")})["id"]
    first, second = (g["game"] for g in games_of(service, lid, 1))
    reactions = service.followers._reactions
    heard = list(reactions)
    reactions[:] = [(n, r) for n, r in heard if n != "leagues"]
    play_out(service, first)  # its end heard by no league
    reactions[:] = heard
    assert leagues_of(service).owing() == {} and recorded(service, lid) == []
    play_out(service, second)
    assert sorted(recorded(service, lid)) == sorted([first, second])
    assert types(service, lid).count("round-paired") == 2
