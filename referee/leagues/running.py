"""Leagues as the referee runs them: created from registered players, their games
created and followed, each round closed and the next paired by a job, exactly once.

This is the league's room above the service: it reads and writes the league store
(referee/leagues/keeping/) and creates and aborts games through ``GameService``,
which never names it. The pure core (``League``) decides every event; here each is
appended compare-and-set on the league's log, so a job run twice, retried after a
crash or racing another worker writes each step once (a ``Conflict`` only sends it
back to read the log again).

``advance(service, league_id, game_id)`` is the whole job: record ``game_id``'s
result if it has ended, then every step due (close the round, pair the next and
create its games, finish, reveal the seed), and create any game of the open round
that a crash left uncreated (a league names its games, ``game_id_of``, so creating
one twice is a no-op).
"""

from __future__ import annotations

import logging
import pickle
import secrets
import threading
from collections import OrderedDict

from referee.caller import Caller, new_token, token_hash
from referee.errors import (
    Forbidden,
    GameOver,
    MalformedMove,
    NoSuchGame,
    Unauthenticated,
    VersionConflict,
)
from referee.events import utcnow
from referee.games.base import ADMIN
from referee.leagues import league as lg
from referee.leagues import setup
from referee.leagues import state as st
from referee.leagues.keeping import Conflict, leagues_of
from referee.leagues.league import League, LeagueConflict
from referee.mail import outbox
from referee.players.store import player_of_token, players_of
from referee.queue import JobKind

log = logging.getLogger("referee.leagues")
OVER = ("finished", "aborted")
KEPT = 64  # leagues a process keeps in memory (see load)
MARK = "league"  # the key of a league game's private record that names its league


class NoSuchLeague(NoSuchGame):
    code = "no-such-league"


def new_league_id() -> str:
    # as game ids: letters and digits only, so a league's game ids can extend it
    return secrets.token_urlsafe(9).replace("-", "x").replace("_", "y")


def game_id_of(league_id: str, number: int, table: int) -> str:
    """The id of the league's game at ``table`` (from 0) of round ``number``."""
    return f"{league_id}r{number}t{table}"


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


def create(service, args: dict) -> dict:
    """A new league from ``{name, game, options, format, players: [ids], ...}``:
    its log, round 1 paired and its games created. The admin token is shown once."""
    ids = args.get("players")
    if not isinstance(ids, list):
        raise MalformedMove("players is a list of player ids", field="players")
    entries, bots, store = [], {}, players_of(service)
    for i, pid in enumerate(ids):
        if not isinstance(pid, str) or not pid or len(pid) > 100:
            raise MalformedMove("a player id is text", field=f"players[{i}]")
        if pid in ids[:i]:
            raise MalformedMove(f"player {pid!r} is listed twice", field=f"players[{i}]")
        found = store.get(pid)
        if found is None:
            raise MalformedMove(f"no player {pid!r}", field=f"players[{i}]")
        entries.append({"player": pid, "name": found["name"]})
        bots[pid] = found.get("bot")
    terms = {k: args[k] for k in ("name", "game", "options", "format", "rounds", "table_size",
                                  "cycles", "clock", "points") if args.get(k) is not None}
    league_id, seed, admin = new_league_id(), secrets.token_hex(32), new_token()
    league, first = League.create(league_id, seed, at=utcnow(), players=entries, **terms)
    if not lg.can_start(league.state):
        raise MalformedMove(f"too few players for a {terms.get('format')} league", field="players")
    _games_can_be_made(league, seed, bots)
    meta = {"id": league_id, "name": first.payload["name"], "game": first.payload["game"],
            "format": first.payload["format"], "created_at": first.at,
            "admin_hash": token_hash(admin), "seed": seed, "players": list(ids)}
    leagues_of(service).create(meta, first)
    advance(service, league_id)
    return receipted(service, {**view(service, league_id), "admin_token": admin})


def _games_can_be_made(league: League, seed: str, bots: dict) -> None:
    """Round 1's games as they would be created (the game's own checks of its options
    for each table's seats, bots' among them), before anything is stored."""
    from referee.table import Table

    names = league.state.players
    for seats in league.next_pairing(seed).tables:
        Table.created_event(league.state.terms["game"], "check", [names[p] for p in seats],
                            setup.game_options(league.state.terms, len(seats)), seed, False,
                            bots={i: bots[p] for i, p in enumerate(seats) if bots.get(p)})


# ---- the job -------------------------------------------------------------------------

_here = threading.local()  # the leagues this thread is creating games for (see advance)


def advance(service, league_id: str, game_id: str | None = None) -> dict:
    """Everything due in the league, each step once (the module's docstring)."""
    leagues = leagues_of(service)
    done = {"recorded": 0, "steps": 0}
    busy = getattr(_here, "busy", None) or set()
    _here.busy = busy
    for _ in range(1000):
        meta, league = load(service, league_id)
        events = _owed(service, meta, league, game_id)
        if events:
            try:
                leagues.append(league_id, league.seq, events, _status(league, events))
            except Conflict:
                continue
            done["recorded" if events[0].type == "result-recorded" else "steps"] += 1
            if events[0].type in (st.CLOSED, st.PAIRED, st.FINISHED, st.REVEALED):
                # told after the close and again after the step that follows it (the
                # same notices: a no-op), so a crash between the close and its notices
                # loses none
                league.apply(events)
                if any(rnd.closed for rnd in league.state.rounds):
                    _tell(service, meta, league, league.state.finished)
            game_id = None if events[0].type == "result-recorded" else game_id
            continue
        if league_id in busy:  # in-process jobs: the call creating games goes on from here
            return done
        busy.add(league_id)
        try:
            if not _create_games(service, meta, league):
                return done
        finally:
            busy.discard(league_id)
    raise RuntimeError(f"league {league_id}: steps did not come to rest")


def _owed(service, meta: dict, league: League, game_id: str | None) -> list:
    """The next event owed: ``game_id``'s result, else the step due, else none."""
    state = league.state
    rnd = state.open_round()
    if game_id is not None and rnd is not None and game_id not in rnd.results \
            and any(t["game"] == game_id for t in rnd.tables):
        rec = service.store.record(game_id)
        if rec is not None and rec.status in OVER:
            with service._lock(game_id):  # the service's kept table: the result without a replay
                result = service.load(game_id, rec).state.result
            events = service.store.events(game_id)
            return league.propose_outcome(game_id, result, lg.losers(events), events[-1], at=utcnow())
    step = league.due()
    if step == lg.PAIR or lg.can_start(state):
        return league.propose_pairing(meta["seed"], lambda n, t: game_id_of(meta["id"], n, t),
                                      at=utcnow())
    if step is not None:
        return league.propose_step(meta["seed"], at=utcnow())
    return []


def _status(league: League, events: list) -> str:
    return "finished" if league.state.finished or any(
        ev.type == "league-finished" for ev in events) else "running"


def _create_games(service, meta: dict, league: League) -> bool:
    """Create each game of the open round not created yet; whether any was."""
    rnd = league.state.open_round()
    made = False
    for t in rnd.tables if rnd is not None else []:
        if service.store.record(t["game"]) is not None:
            continue
        options = setup.game_options(league.state.terms, len(t["seats"]))
        try:
            # the league's admin token is each game's too: its organiser may hand a
            # seat on (a withdrawn player's) or pause a clock, as in any game
            service.create(meta["game"], [{"player": p} for p in t["seats"]], options,
                           game_id=t["game"], extra_more={MARK: meta["id"]}, admin_hash=meta["admin_hash"])
        except ValueError:  # another worker created it first
            pass
        made = True
    return made


def game_ended(service, game_id: str) -> dict | str:
    """The job a league game's end queues (``referee.system``)."""
    rec = service.store.record(game_id)
    league_id = rec.extra.get(MARK) if rec is not None else None
    if league_id is None:
        return "no league"
    return advance(service, league_id, game_id)


RESULT = JobKind("league-result", game_ended)


def follow(service):
    """The reaction: once a league's game has ended and its seed is revealed, queue
    the job that records its result and pairs what follows."""

    def leagues(appended) -> None:
        if "seed-revealed" in appended.types and appended.record.extra.get(MARK):
            service.queue.enqueue(RESULT.name, appended.game_id)

    return leagues


def _tell(service, meta: dict, league: League, final: bool) -> None:
    """The standings after a round (or the final table) to every player with contacts,
    as a notice of their latest league game (the outbox's ``game-over`` with a note);
    their new games' notices are the games' own (their seats take the players'
    contacts). Named by the round, so telling twice queues nothing twice."""
    from referee.leagues.scoring import standings

    state = league.state
    closed = [rnd for rnd in state.rounds if rnd.closed]
    line = ", ".join(f"{r['rank']}. {r['name']} {r['points']:g}" for r in standings(state))
    what = "Final table" if final else f"Standings after round {len(closed)}"
    note = f"{meta['name']}: {what}: {line} (/leagues/{meta['id']})"
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
            outbox.queue_notice(service, game_id, seat, "game-over", note=note,
                                tag=f"league-{'final' if final else len(closed)}")
        except Exception:  # a notice is a courtesy; the league's log is the truth
            log.exception("league %s: the standings notice for game %s failed", meta["id"], game_id)


# ---- a withdrawal ----------------------------------------------------------------------

def withdraw(service, league_id: str, player: str, token: str | None) -> dict:
    """``player`` withdraws (asked by the league's admin or that player): never paired
    again; each of their games still running is aborted and recorded lost by them."""
    if not token:  # before any look-up: a caller without a token learns nothing of leagues
        raise Unauthenticated("send Authorization: Bearer <the league's admin token or the player's>")
    meta = _meta(service, league_id)
    if secrets.compare_digest(token_hash(token), meta["admin_hash"]):
        by = "admin"
    else:
        mine = players_of(service).get(player) if player_of_token(token) == player else None
        if mine is None or not secrets.compare_digest(token_hash(token), mine["token_hash"]):
            raise Forbidden("only the league's admin or the player may withdraw the player")
        by = "player"
    for _ in range(100):
        _, league = load(service, league_id)
        events = league.propose_withdraw(player, by, at=utcnow())
        try:
            leagues_of(service).append(league_id, league.seq, events, "running")
            break
        except Conflict:
            continue
    else:
        raise VersionConflict("the league kept moving on; try again", current_version=league.seq)
    for lost in lg.withdrawal_forfeits(league.state, player):
        rec = service.store.record(lost["game"])
        if rec is not None and rec.status not in OVER:
            try:
                service.abort(lost["game"], Caller(ADMIN, record=rec),
                              reason="a player withdrew from the league")
            except GameOver:
                pass
        advance(service, league_id, lost["game"])
    advance(service, league_id)  # fewer players left may finish the league
    return receipted(service, view(service, league_id))


def receipted(service, league: dict) -> dict:
    """The answer of a call that appended to the league's log, with the receipt of
    the event at its ``version``: the last the call wrote, or one a job wrote just
    after it, which vouches for every event before it all the same (each event's
    hash covers the one before)."""
    last = leagues_of(service).events(league["id"], after=league["version"] - 1)[0]
    return service.receipted(league, league["id"], last)


# ---- reading ---------------------------------------------------------------------------

def view(service, league_id: str) -> dict:
    from referee.leagues.scoring import crosstable, standings

    meta, league = load(service, league_id)
    state = league.state
    rounds = []
    for rnd in state.rounds:
        rounds.append({"round": rnd.number, "closed": rnd.closed, "byes": list(rnd.byes),
                       "games": [{"game": t["game"], "seats": list(t["seats"]),
                                  "placings": rnd.results.get(t["game"])} for t in rnd.tables]})
    out = {"id": league_id, "name": meta["name"], "game": meta["game"], "format": meta["format"],
           "status": meta["status"], "version": league.seq, "created_at": meta["created_at"],
           "players": [{"player": p, "name": n, "withdrawn": p in state.withdrawn}
                       for p, n in state.players.items()],
           "standings": standings(state), "rounds": rounds,
           "seed_commitment": state.seed_commitment}
    if state.terms["format"] == "round-robin":
        out["crosstable"] = crosstable(state)
    return out


def player_leagues(service, player_id: str, limit: int = 20) -> list[dict]:
    """A player's leagues for the profile, the newest first (an index per player)."""
    return leagues_of(service).of_player(player_id, limit)


def listing(service, limit: int = 100) -> dict:
    return {"leagues": leagues_of(service).page(limit)}


def export(service, league_id: str) -> str:
    """The bundle: the league's log and the whole log of every game whose result is
    recorded (a game still running holds hidden cards and is left out)."""
    from referee.leagues.bundle import export as bundle

    _meta(service, league_id)
    events = leagues_of(service).events(league_id)
    state = League.replay(events).state
    games = {g: service.store.events(g) for rnd in state.rounds for g in rnd.results}
    return bundle(events, games)


__all__ = ["LeagueConflict", "NoSuchLeague", "advance", "create", "export", "game_ended",
           "listing", "view", "withdraw"]
