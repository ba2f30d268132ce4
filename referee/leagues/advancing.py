"""A league as the referee advances it: the copy of it each process keeps, and the
job that does every step the league owes, exactly once.

This is the league's room above the service: it reads and writes the league store
(referee/leagues/keeping/) and creates and aborts games through ``GameService``,
which never names it. The pure core (``League``) decides every event; here each is
appended compare-and-set on the league's log, so a job run twice, retried after a
crash or racing another worker writes each step once (a ``Conflict`` only sends it
back to read the log again).

``advance(service, league_id, game_id)`` is the whole job: record ``game_id``'s
result if it has ended, with every step that follows in the same append (the
round's close, and the next pairing, or the league's finish and its seed's
reveal). A pairing's games are created before the pairing is appended, so a
reader never finds the league listing a game that is not there; each is named by
its round, table and seats (``game_id_of``), so two workers making the same
pairing create each game once, and the games of a pairing that lost its append
to another writer and was made otherwise are ended (``_forsake``). What a process
killed in the middle leaves owing is marked first in the league store and healed
by ``advance(..., heal=True)`` (referee/leagues/healing.py).
"""

from __future__ import annotations

import hashlib
import json
import logging
import pickle
import threading
from collections import OrderedDict

from referee.caller import Caller
from referee.errors import GameOver, NoSuchGame
from referee.events import utcnow
from referee.games.base import ADMIN
from referee.leagues import league as lg
from referee.leagues import setup
from referee.leagues import state as st
from referee.leagues.keeping import Conflict, leagues_of
from referee.leagues.league import League
from referee.leagues.scoring import standings
from referee.mail import outbox
from referee.queue import JobKind

log = logging.getLogger("referee.leagues")
OVER = ("finished", "aborted")
KEPT = 64  # leagues a process keeps in memory (see load)
FEW = 8  # a job looks at every game of the round left without a result when this few are
MARK = "league"  # the key of a league game's private record that names its league


class NoSuchLeague(NoSuchGame):
    code = "no-such-league"


def game_id_of(league_id: str, number: int, table: int, seats: list[str]) -> str:
    """The id of the league's game at ``table`` (from 0) of round ``number`` between
    ``seats``: named by what it is, so whoever pairs the round names the same game,
    and a pairing that seats that table otherwise (a player withdrew meanwhile)
    names another."""
    held = hashlib.sha256(json.dumps([league_id, number, table, seats]).encode()).hexdigest()
    return f"{league_id}r{number}t{table}x{held[:8]}"


def mark_before(at: int) -> int:
    """The mark of a debt the league's append at length ``at`` is about to make
    (referee/leagues/healing.py: twice the version the debt starts at)."""
    return 2 * at + 2


def mark_at(version: int) -> int:
    """The mark of a debt found in a game while the league's log has ``version``
    events; and the mark a call that found the league owing nothing at
    ``version`` unmarks up to (then looks at its games once more)."""
    return 2 * version + 1


def _meta(service, league_id: str) -> dict:
    meta = leagues_of(service).meta(league_id) if isinstance(league_id, str) else None
    if meta is None:
        raise NoSuchLeague(f"no league {league_id!r}")
    return meta


def load(service, league_id: str) -> tuple[dict, League]:
    """The league's meta and the league after its log as the store holds it now.

    Each process keeps the latest league it read, pickled (a private copy for every
    caller, so threads never share one), and reads only the events appended since:
    a job need not replay the whole log. The copy only saves reading; every write
    is still a compare-and-set on the stored log."""
    meta = _meta(service, league_id)
    store, kept = leagues_of(service), _kept(service)
    with kept["lock"]:
        blob = kept["leagues"].get(league_id)
    league = pickle.loads(blob) if blob is not None else None
    if league is None or league.seq > meta["version"]:
        league = League.replay(store.events(league_id))
    elif league.seq < meta["version"]:
        league.apply(store.events(league_id, after=league.seq))
    else:
        return meta, league
    with kept["lock"]:
        kept["leagues"][league_id] = pickle.dumps(league)
        kept["leagues"].move_to_end(league_id)
        while len(kept["leagues"]) > KEPT:
            kept["leagues"].popitem(last=False)
    return meta, league


def _kept(service) -> dict:
    found = getattr(service, "_leagues_kept", None)
    if found is None:
        found = service._leagues_kept = {"lock": threading.Lock(), "leagues": OrderedDict()}
    return found


# ---- the job -------------------------------------------------------------------------

_here = threading.local()  # the leagues this thread is advancing (see advance)


def advance(service, league_id: str, game_id: str | None = None, heal: bool = False) -> dict:
    """Everything due in the league, each step once (the module's docstring).
    ``game_id``: the game whose end queued the job, else every game of the open
    round is looked at; ``heal``: mend what a killed process left as well
    (referee/leagues/healing.py)."""
    busy = getattr(_here, "busy", None)
    if busy is None:
        busy = _here.busy = set()
    done = {"recorded": 0, "steps": 0}
    if league_id in busy:  # embedded: a game this thread is making ended at once; the call
        return done        # making it records it once its pairing is in the log
    busy.add(league_id)
    try:
        _advance(service, league_id, game_id, heal, done)
    finally:
        busy.discard(league_id)
    return done


def _advance(service, league_id: str, game_id: str | None, heal: bool, done: dict) -> None:
    leagues = leagues_of(service)
    scan = heal or game_id is None  # every game of the open round, not one
    for _ in range(1000):
        meta, league = load(service, league_id)  # our own copy: proposals are applied to it
        at, rnd = league.seq, league.state.open_round()
        games = rnd.games if rnd is not None and scan else list(dict.fromkeys([game_id] + _last(rnd)))
        ended, waiting = _ended(service, rnd, games, heal, league.state)
        events = []
        for gid, result, lost, last in ended:
            events += _applied(league, league.propose_outcome(gid, result, lost, last, at=utcnow()))
        events += _steps(meta, league)
        if not events:
            if heal and _create_games(service, meta, league):  # a pairing logged before its games
                continue
            if (scan or rnd is None) and not waiting and _paid(service, meta, league, heal) \
                    and rnd is not None and _owed_since(service, rnd):
                leagues.owe(league_id, mark_at(at))
                continue
            return
        paired = next((ev for ev in events if ev.type == st.PAIRED), None)
        steps = any(ev.type != st.RECORDED for ev in events)
        if steps:  # marked first: a process killed from here on leaves the league owing
            leagues.owe(league_id, mark_before(at))
        if paired is not None:
            _make_games(service, meta, league, paired)
        try:
            leagues.append(league_id, at, events, "finished" if league.state.finished else "running")
        except Conflict:  # read again; games made for a pairing now never to be are ended
            if paired is not None:
                _forsake(service, league_id, load(service, league_id)[1].state)
                scan = True  # and those the winner's pairing names may have ended already
            continue
        if paired is not None:
            _forsake(service, league_id, league.state)
        done["recorded"] += len(ended)
        done["steps"] += sum(ev.type != st.RECORDED for ev in events)
        _tell(service, meta, league, [ev.type for ev in events])
        # a game of a round just paired may have ended before the pairing was in the
        # log (its own job then found it no game of the league's): look at them all
        game_id, scan = None, scan or paired is not None
    raise RuntimeError(f"league {league_id}: steps did not come to rest")


def _last(rnd) -> list[str]:
    """The games of the open round without a result, when few are left: a game whose
    end was never marked nor its job queued (both processes killed at the wrong
    moment) is recorded by its round's last jobs, and the round does not stall."""
    left = [g for g in rnd.games if g not in rnd.results] if rnd is not None else []
    return left if len(left) <= FEW else []


def _owed_since(service, rnd) -> bool:
    """Whether a game of the open round has ended since it was looked at: its end
    may have been marked at the very version the league was just unmarked at, and
    its mark gone with it, so the league is marked again and the game recorded."""
    ended, waiting = _ended(service, rnd, rnd.games, False)
    return bool(ended) or waiting


def _applied(league: League, events: list) -> list:
    league.apply(events)
    return events


def _ended(service, rnd, games: list, heal: bool, state=None) -> tuple[list, bool]:
    """Of ``games``, those of the open round ``rnd`` that have ended, their seed
    revealed, with no result yet: ``[(game, result, lost, last event)]``; and
    whether one has ended without its reveal yet (its result is still to come). The
    heal first does the steps a game left settling owes (a killed process's), and
    resigns a withdrawn player's seat a killed withdrawal left in play."""
    out, waiting = [], False
    listed = set(rnd.games) if rnd is not None else set()
    for gid in games:
        if gid not in listed or gid in rnd.results:
            continue
        rec = service.store.record(gid)
        if rec is not None and rec.status not in OVER and heal and state is not None:
            try:
                resign_withdrawn(service, state, gid)
            except Exception:  # logged; the next heal tries again
                log.exception("league game %s: resigning a withdrawn seat failed", gid)
            rec = service.store.record(gid)
        if rec is not None and rec.status == "settling" and heal:
            try:
                service.settle(gid)
            except Exception:  # logged; the game says what it still owes below
                log.exception("league game %s: its steps failed", gid)
            rec = service.store.record(gid)
        if rec is None or rec.status == "active":
            continue
        with service._lock(gid):  # the service's kept table: the result without a replay
            table = service.load(gid, rec)
        if table.over and not table.seed_revealed:
            waiting = True
        elif table.over:
            events = service.store.events(gid)
            out.append((gid, table.state.result, lg.losers(events), events[-1]))
    return out, waiting


def _steps(meta: dict, league: League) -> list:
    """Every step due, proposed one after another on ``league`` (applied to it: the
    caller's own copy) until a pairing or the seed's reveal: a round's close goes
    with the result that completes it and the next pairing, a league's finish with
    its seed's reveal, each chain one append."""
    events = []
    while True:
        step = league.due()
        if step == lg.PAIR or lg.can_start(league.state):
            pairing, number = league.next_pairing(meta["seed"]), len(league.state.rounds) + 1
            new = league.propose_paired(pairing, [game_id_of(meta["id"], number, t, seats)
                                                  for t, seats in enumerate(pairing.tables)], at=utcnow())
        elif step is not None:
            new = league.propose_step(meta["seed"], at=utcnow())
        else:
            return events
        events += _applied(league, new)
        if new[0].type == st.PAIRED:
            return events


def _make_games(service, meta: dict, league: League, paired) -> None:
    """The games of a pairing, created before the pairing that lists them is appended
    (so no reader finds the league listing a game that is not there), and noted
    first: if the pairing never becomes the league's, they are ended (``_forsake``)."""
    tables = paired.payload["tables"]
    leagues_of(service).note_games(meta["id"], paired.payload["round"], [t["game"] for t in tables])
    for t in tables:
        _create_game(service, meta, league.state.terms, t)


def _create_game(service, meta: dict, terms: dict, table: dict) -> bool:
    """Create one game of the league; whether this call did (False: it was there)."""
    if service.store.record(table["game"]) is not None:
        return False
    options = setup.game_options(terms, len(table["seats"]))
    try:
        # the league's admin token is each game's too: its organiser may hand a
        # seat on (a withdrawn player's) or pause a clock, as in any game
        service.create(meta["game"], [{"player": p} for p in table["seats"]], options,
                       game_id=table["game"], extra_more={MARK: meta["id"]}, admin_hash=meta["admin_hash"])
    except ValueError:  # another worker created it first
        return False
    return True


def _create_games(service, meta: dict, league: League) -> bool:
    """Create each game of the open round not created yet (a round paired before
    its games were made first); whether any was."""
    rnd = league.state.open_round()
    made = False
    for t in rnd.tables if rnd is not None else []:
        made = _create_game(service, meta, league.state.terms, t) or made
    return made


def resign_withdrawn(service, state, game_id: str) -> None:
    """In a running game of the league, the referee resigns the seat of each player
    who has withdrawn from it (``GameService.resign_for``): a withdrawal is a loss
    of the game itself, rated as such. A league of version 1 aborted the game
    instead (its result then recorded as a forfeit, whatever the game's log says);
    it still does, so that its games are as it always made them."""
    rec = service.store.record(game_id)
    if rec is None or rec.status in OVER or game_id not in state.games:
        return
    seats = state.rounds[state.games[game_id]].seats(game_id)
    gone = [i for i, p in enumerate(seats) if p in state.withdrawn]
    if not gone:
        return
    if state.version < 2:
        try:
            service.abort(game_id, Caller(ADMIN, record=rec), reason="a player withdrew from the league")
        except GameOver:
            pass
        return
    for seat in gone:
        service.resign_for(game_id, seat)
    _tell_withdrawal(service, state, game_id, seats, gone)


def _tell_withdrawal(service, state, game_id: str, seats: list[str], gone: list[int]) -> None:
    """Each other seat with contacts hears why its game ended (or went on): who
    withdrew from the league, and who won, in words, beside the game's own notice."""
    rec = service.store.record(game_id)
    if rec is None:
        return
    with service._lock(game_id):
        result = service.load(game_id, rec).state.result
    who = " and ".join(state.players[seats[i]] for i in gone)
    won = [state.players[seats[i]] for i in (result or {}).get("winners", [])]
    note = (f"{who} withdrew from the league {state.terms['name']}: the referee resigned "
            f"{'their seats' if len(gone) > 1 else 'their seat'}"
            + (f", and {' and '.join(won)} won the game." if won else "; the game goes on without them."))
    for seat in range(len(seats)):
        if seat in gone or not rec.extra.get("contacts", {}).get(str(seat)):
            continue
        try:
            outbox.queue_notice(service, game_id, seat, "game-over" if result else "turn", note=note,
                                tag="withdrew")
        except Exception:  # a notice is a courtesy; the game's log is the truth
            log.exception("league game %s: the withdrawal notice failed", game_id)


def _forsake(service, league_id: str, state) -> bool:
    """End each noted game (``_make_games``) that the league will never list: its
    round was paired with other games, or the league is over (a pairing that lost
    its append to another writer's event, a withdrawal say, and was made again
    seating that table otherwise). Whether every noted game was done with (a game
    of a round not paired yet may still become the league's)."""
    store, done, undecided = leagues_of(service), [], False
    for gid, number in store.noted_games(league_id).items():
        if number > len(state.rounds) and not state.finished:
            undecided = True
            continue
        rec = service.store.record(gid)
        if gid not in state.games and rec is not None and rec.status not in OVER:
            try:
                service.abort(gid, Caller(ADMIN, record=rec), reason="not paired: the league moved on first")
            except GameOver:
                pass
        done.append(gid)
    store.drop_games(league_id, done)
    return not undecided


def _paid(service, meta: dict, league: League, heal: bool) -> bool:
    """The league owes nothing at its version: unmark it (referee/leagues/healing.py),
    once every game made for a pairing that never became its own is ended; the
    heal tells the standings again (a no-op when they were told) in case a
    process was killed between a close and its notices. Whether it was unmarked."""
    if not _forsake(service, meta["id"], league.state):
        return False
    if heal:
        _tell(service, meta, league, [st.CLOSED, st.FINISHED])
    leagues_of(service).paid(meta["id"], mark_at(league.seq))
    return True


def game_ended(service, game_id: str) -> dict | str:
    """The job a league game's end queues (``referee.system``)."""
    rec = service.store.record(game_id)
    league_id = rec.extra.get(MARK) if rec is not None else None
    if league_id is None:
        return "no league"
    return advance(service, league_id, game_id)


RESULT = JobKind("league-result", game_ended)


def follow(service):
    """The reaction: once a league's game has ended, mark its league as owing (so
    that a job lost with a killed process is healed), and once its seed is
    revealed, queue the job that records its result and pairs what follows."""

    def leagues(appended) -> None:
        league_id = appended.record.extra.get(MARK)
        if league_id is None or not appended.table.over:
            return
        store = leagues_of(service)
        meta = store.meta(league_id)
        if meta is not None:
            store.owe(league_id, mark_at(meta["version"]))
        if "seed-revealed" in appended.types:
            service.queue.enqueue(RESULT.name, appended.game_id)

    return leagues


def _tell(service, meta: dict, league: League, types: list[str]) -> None:
    """After an append of events of ``types``: the standings after its round's close,
    and the final table after the finish."""
    if st.CLOSED in types and any(r.closed for r in league.state.rounds):
        _tell_one(service, meta, league, False)
    if st.FINISHED in types and league.state.finished:
        _tell_one(service, meta, league, True)


def _tell_one(service, meta: dict, league: League, final: bool) -> None:
    """The standings after a round (or the final table) to every player with contacts,
    as a ``standings`` notice on their latest league game, with its own subject and
    the table as a table (referee/mail/words.py); their new games' notices are the
    games' own (their seats take the players' contacts). Named by the round, so
    telling twice queues nothing twice."""
    state = league.state
    closed = [rnd for rnd in state.rounds if rnd.closed]
    told = {"id": meta["id"], "name": meta["name"], "round": len(closed), "final": final,
            "standings": [{"rank": r["rank"], "name": r["name"], "points": r["points"],
                           "withdrawn": r["withdrawn"]} for r in standings(state)]}
    latest = {}
    for rnd in closed:  # the games of closed rounds: over, so their versions stay
        for t in rnd.tables:
            for seat, p in enumerate(t["seats"]):
                latest[p] = (t["game"], seat)
    for game_id, seat in latest.values():
        rec = service.store.record(game_id)
        if rec is None or not rec.extra.get("contacts", {}).get(str(seat)):
            continue
        try:
            outbox.queue_notice(service, game_id, seat, "standings", league=told,
                                tag=f"league-{'final' if final else len(closed)}")
        except Exception:  # a notice is a courtesy; the league's log is the truth
            log.exception("league %s: the standings notice for game %s failed", meta["id"], game_id)


