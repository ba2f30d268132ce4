"""Leagues as the referee runs them: created from registered players, their games
created and followed, each round closed and the next paired by a job, exactly once.

This is the league's room above the service: it reads and writes the league store
(referee/leagues/keeping/) and creates and aborts games through ``GameService``,
which never names it. The pure core (``League``) decides every event; here each is
appended compare-and-set on the league's log, so a job run twice, retried after a
crash or racing another worker writes each step once (a ``Conflict`` only sends it
back to read the log again).

The job that advances a league, ``advance``, and the copy of a league each
process keeps, ``load``, are referee/leagues/advancing.py's (their names are
this module's too).
"""

from __future__ import annotations

import secrets

from referee.caller import Caller, new_token, token_hash
from referee.errors import (
    Forbidden,
    GameOver,
    MalformedMove,
    Unauthenticated,
    VersionConflict,
)
from referee.events import utcnow
from referee.games.base import ADMIN
from referee.leagues import league as lg
from referee.leagues import setup
from referee.leagues.advancing import (  # noqa: F401 - the job's names, this module's too
    MARK,
    OVER,
    RESULT,
    NoSuchLeague,
    _meta,
    advance,
    follow,
    game_ended,
    game_id_of,
    load,
    mark_before,
)
from referee.leagues.keeping import Conflict, leagues_of
from referee.leagues.league import League, LeagueConflict
from referee.players.store import player_of_token, players_of


def new_league_id() -> str:
    # as game ids: letters and digits only, so a league's game ids can extend it
    return secrets.token_urlsafe(9).replace("-", "x").replace("_", "y")


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
    leagues_of(service).owe(league_id, mark_before(0))  # round 1 is owed: healed if this process dies
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
        try:  # marked first: what it leaves due (a finish) is healed if this process dies
            leagues_of(service).owe(league_id, mark_before(league.seq))
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
    meta, league = load(service, league_id)
    return view_of(league_id, meta, league)


def view_of(league_id: str, meta: dict, league) -> dict:
    """The league as ``GET /v1/leagues/{id}`` and its page show it: from its stored
    ``meta`` and its log's ``League`` alone."""
    from referee.leagues.scoring import crosstable, standings

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
