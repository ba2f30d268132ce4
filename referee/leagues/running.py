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

import pickle
import secrets

from referee import entropy
from referee.caller import new_token, token_hash
from referee.entries import ENTROPY
from referee.errors import (
    Forbidden,
    MalformedMove,
    Unauthenticated,
    VersionConflict,
)
from referee.events import utcnow
from referee.games import engine as engine_by_name
from referee.leagues import inviting, setup
from referee.leagues import league as lg
from referee.leagues import state as st
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
    log,
    mark_before,
    resign_withdrawn,
)
from referee.leagues.bundle import export as bundle
from referee.leagues.keeping import Conflict, leagues_of
from referee.leagues.league import League, LeagueConflict
from referee.leagues.scoring import crosstable, standings
from referee.players import accounts, invitations
from referee.players.store import player_of_token, players_of
from referee.table import Table


def new_league_id() -> str:
    # as game ids: letters and digits only, so a league's game ids can extend it
    return secrets.token_urlsafe(9).replace("-", "x").replace("_", "y")


def create(service, args: dict, organiser: dict) -> dict:
    """A new league from ``{name, game, options, format, players: [ids], entry?, ...}``,
    organised by the player ``organiser`` (who authorised the request). Nobody is
    put in it but by their own act: the organiser listing themself plays, a bot
    player plays whenever asked, everyone else listed is invited (``join``,
    ``decline``); ``entry: "open"`` lets any player join. Nothing is paired until
    the organiser starts it (``start``). The admin token is shown once."""
    ids = args.get("players")
    if not isinstance(ids, list):
        raise MalformedMove("players is a list of player ids", field="players")
    entries, invited, store = [], [], players_of(service)
    for i, pid in enumerate(ids):
        if not isinstance(pid, str) or not pid or len(pid) > 100:
            raise MalformedMove("a player id is text", field=f"players[{i}]")
        if pid in ids[:i]:
            raise MalformedMove(f"player {pid!r} is listed twice", field=f"players[{i}]")
        found = store.get(pid)
        if found is None:
            raise MalformedMove(f"no player {pid!r}", field=f"players[{i}]")
        entry = {"player": pid, "name": found["name"]}
        if pid == organiser["id"] or found.get("bot"):  # their own act; a bot plays when asked
            entries.append(entry)
        else:
            invited.append((entry, f"players[{i}]"))
    terms = {k: args[k] for k in ("name", "game", "options", "format", "rounds", "table_size",
                                  "cycles", "clock", "points", "entry") if args.get(k) is not None}
    league_id, seed, admin = new_league_id(), secrets.token_hex(32), new_token()
    league, first = League.create(league_id, seed, at=utcnow(), players=entries,
                                  league_version=setup.LEAGUE_VERSION,
                                  invited=[e for e, _ in invited], organiser=organiser["id"], **terms)
    # noted as pending for each invitee, all or none (429 for one with too many)
    to_mail = invitations.invite(service, what(league_id), [(e["player"], f) for e, f in invited],
                                 invitations.inviter_of(organiser["id"], None), _still_waiting(service))
    meta = {"id": league_id, "name": first.payload["name"], "game": first.payload["game"],
            "format": first.payload["format"], "created_at": first.at,
            "admin_hash": token_hash(admin), "seed": seed, "organiser": organiser["id"],
            # indexed as the players' leagues: those in, and the organiser's (their /me starts it)
            "players": list(dict.fromkeys([e["player"] for e in entries] + [organiser["id"]])),
            "status": "waiting"}
    leagues_of(service).create(meta, first)
    inviting.queue(service, league_id, to_mail)
    return receipted(service, {**view(service, league_id), "admin_token": admin})


def what(league_id: str) -> str:
    """A league's invitations, as referee/players/invitations.py keeps them."""
    return f"league:{league_id}"


def _still_waiting(service):
    """Whether an older pending invitation of a player's still waits on them (one
    that does not is dropped before the player is found to have too many)."""
    def waiting(old: str, player: str) -> bool:
        kind, _, ident = old.partition(":")
        if kind != "league":
            return True  # another room's invitation: it says itself when it is answered
        meta = leagues_of(service).meta(ident)
        if meta is None:
            return False
        state = load(service, ident)[1].state
        return player in state.invited and not state.begun and not state.finished
    return waiting


# ---- answering an invitation, starting ---------------------------------------------------

def _append(service, league_id: str, propose, mark: bool = False) -> League:
    """Append what ``propose(league)`` proposes, compare-and-set, reading the log again
    after a lost race (a refusal then is decided on the log as it is now, and wrote
    nothing). ``mark``: the append leaves a step owed (healed if this process dies)."""
    for _ in range(100):
        _, league = load(service, league_id)
        events = propose(league)
        try:
            if mark:
                leagues_of(service).owe(league_id, mark_before(league.seq))
            leagues_of(service).append(league_id, league.seq, events, _stored_status(league, events))
        except Conflict:
            continue
        league.apply(events)
        return league
    raise VersionConflict("the league kept moving on; try again", current_version=league.seq)


def join(service, league_id: str, token: str | None, body: dict | None) -> dict:
    """The player whose token this is joins the league: invited, or any player where
    its entry is open (403 ``not-invited`` otherwise), before its start. ``{entropy?}``:
    their contribution to the lots' seed, unseen until the start records it."""
    player = accounts.authenticate(service, token)
    body = body or {}
    if not isinstance(body, dict) or set(body) - {ENTROPY}:
        raise MalformedMove("the body is {entropy?}", field=sorted(set(body) - {ENTROPY})[0]
                            if isinstance(body, dict) else "body")
    contribution = None if body.get(ENTROPY) is None else entropy.check(body[ENTROPY], ENTROPY)
    _meta(service, league_id)
    # kept unseen before the join is written (a join refused leaves it unused: only
    # those in at the start are asked for theirs), so the start never misses it
    leagues_of(service).keep_entropy(league_id, player["id"], contribution)
    _append(service, league_id, lambda league: league.propose_join(
        {"player": player["id"], "name": player["name"]}, at=utcnow()))
    invitations.withdraw(service, player["id"], what(league_id))  # answered
    leagues_of(service).index_player(league_id, player["id"])
    return receipted(service, view(service, league_id))


def _organiser(service, meta: dict, token: str) -> bool:
    """Whether ``token`` is the player token of the league's organiser (who holds its
    admin token anyway: their own page, /me, starts it with the player's)."""
    pid = meta.get("organiser")
    mine = players_of(service).get(pid) if pid and player_of_token(token) == pid else None
    return mine is not None and secrets.compare_digest(token_hash(token), mine["token_hash"])


def decline(service, league_id: str, token: str | None) -> dict:
    """The invited player whose token this is refuses: never seated in this league."""
    player = accounts.authenticate(service, token)
    _meta(service, league_id)
    _append(service, league_id, lambda league: league.propose_decline(player["id"], at=utcnow()))
    invitations.withdraw(service, player["id"], what(league_id))
    return receipted(service, view(service, league_id))


def start(service, league_id: str, token: str | None) -> dict:
    """The organiser (the league's admin token, or the organiser's player token)
    starts the league with those who have joined: round 1 is paired and its games created. Invitations not answered by
    then lapse."""
    if not token:
        raise Unauthenticated("send Authorization: Bearer <the league's admin token>")
    meta = _meta(service, league_id)
    if not secrets.compare_digest(token_hash(token), meta["admin_hash"]) and not _organiser(service, meta, token):
        raise Forbidden("only the league's admin token (or its organiser's player token) starts the league")

    def propose(league: League) -> list:
        events = league.propose_start(leagues_of(service).entropies(league_id), at=utcnow())
        ahead = pickle.loads(pickle.dumps(league))  # round 1 as it would be paired, checked first
        ahead.apply(events)
        bots = {p: (players_of(service).get(p) or {}).get("bot") for p in ahead.state.active()}
        _games_can_be_made(ahead, meta["seed"], bots)
        return events

    league = _append(service, league_id, propose, mark=True)  # round 1 owed: healed if we die
    for pid in league.state.invited:  # those who never answered: pending no more
        invitations.withdraw(service, pid, what(league_id))
    advance(service, league_id)
    return receipted(service, view(service, league_id))


def _games_can_be_made(league: League, seed: str, bots: dict) -> None:
    """Round 1's games as they would be created (the game's own checks of its options
    for each table's seats, bots' among them), before anything is stored."""
    names = league.state.players
    for seats in league.next_pairing(seed).tables:
        Table.created_event(league.state.terms["game"], "check", [names[p] for p in seats],
                            setup.game_options(league.state.terms, len(seats)), seed, False,
                            bots={i: bots[p] for i, p in enumerate(seats) if bots.get(p)})


# ---- a withdrawal ----------------------------------------------------------------------

def withdraw(service, league_id: str, player: str, token: str | None) -> dict:
    """``player`` withdraws (asked by the league's admin or that player): never paired
    again; in each of their games still running the referee resigns their seat
    (``resign_withdrawn``), so they lose it as the game's own result says.

    The withdrawal is written, or refused having written nothing: what follows its
    append (the resignations, the league's steps) is the referee's work, not the
    caller's, and what of it fails here is healed (the league was marked owing
    first; referee/leagues/healing.py), never answered as a refusal."""
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
    # marked first: what it leaves due (a finish) is healed if this process dies
    league = _append(service, league_id, lambda now: now.propose_withdraw(player, by, at=utcnow()),
                     mark=True)
    try:
        for lost in lg.withdrawal_forfeits(league.state, player):
            resign_withdrawn(service, league.state, lost["game"])
            advance(service, league_id, lost["game"])
        advance(service, league_id)  # fewer players left may finish the league
    except Exception:  # written: the heal finishes what is left (the league is marked owing)
        log.exception("league %s: the steps after %s's withdrawal failed; left to the heal",
                      league_id, player)
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
    state = league.state
    rounds = []
    for rnd in state.rounds:
        rounds.append({"round": rnd.number, "closed": rnd.closed, "byes": list(rnd.byes),
                       "games": [{"game": t["game"], "seats": list(t["seats"]),
                                  "placings": rnd.results.get(t["game"]),
                                  "withdrew": [p for p in t["seats"] if p in state.withdrawn]}
                                 for t in rnd.tables]})
    out = {"id": league_id, "name": meta["name"], "game": meta["game"], "format": meta["format"],
           "status": meta["status"], "version": league.seq, "created_at": meta["created_at"],
           "league_version": state.version, "entry": state.entry, "organiser": state.organiser,
           "players": [{"player": p, "name": n, "withdrawn": p in state.withdrawn}
                       for p, n in state.players.items()],
           "invited": [{"player": p, "name": n} for p, n in state.invited.items()]
           if not state.begun and not state.finished else [],
           "standings": standings(state), "rounds": rounds,
           "seed_commitment": state.seed_commitment}
    if state.terms["format"] == "round-robin":
        out["crosstable"] = crosstable(state)
    return out


def _stored_status(league: League, events: list) -> str:
    """The league's status once ``events`` are appended: ``waiting`` (version 2,
    before its start: players join), ``running`` from its start."""
    ahead = pickle.loads(pickle.dumps(league.state))
    for ev in events:
        st.evolve(ahead, ev)
    return "waiting" if ahead.version >= 2 and not ahead.begun and not ahead.finished else "running"


def player_leagues(service, player_id: str, limit: int = 20) -> list[dict]:
    """A player's leagues for the profile, the newest first (an index per player)."""
    return leagues_of(service).of_player(player_id, limit)


def invitations_of(service, player_id: str) -> list[dict]:
    """The leagues inviting the player that wait for their answer, oldest first
    (``/me``): ``{id, name, game, title, format, created_at, organiser}``."""
    out = []
    for pending in invitations.pending(service, player_id):
        kind, _, league_id = pending.partition(":")
        if kind != "league" or leagues_of(service).meta(league_id) is None:
            continue
        meta, league = load(service, league_id)
        state = league.state
        if player_id not in state.invited or state.begun or state.finished:
            continue
        out.append({"id": league_id, "name": meta["name"], "game": meta["game"],
                    "title": engine_by_name(meta["game"]).title, "format": meta["format"],
                    "created_at": meta["created_at"],
                    "organiser": (players_of(service).get(state.organiser) or {}).get("name")})
    return out


def listing(service, limit: int = 100) -> dict:
    return {"leagues": leagues_of(service).page(limit)}


def export(service, league_id: str) -> str:
    """The bundle: the league's log and the whole log of every game whose result is
    recorded (a game still running holds hidden cards and is left out)."""
    _meta(service, league_id)
    events = leagues_of(service).events(league_id)
    state = League.replay(events).state
    games = {g: service.store.events(g) for rnd in state.rounds for g in rnd.results}
    return bundle(events, games)


__all__ = ["LeagueConflict", "NoSuchLeague", "advance", "create", "decline", "export", "game_ended",
           "join", "listing", "start", "view", "withdraw"]
