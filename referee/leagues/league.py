"""A league in memory: its state and the tail of its log, and every event it may
write next, checked here before it is written.

Like ``referee.table.Table`` for a game: ``League`` proposes sealed events and
changes nothing until ``commit``; the service appends them to the league's log
and then commits. No I/O, no clock but the ``at`` it is given (or now), no
randomness but the seed's.

What is owed next (``due``): nothing while the first round waits for its start
(players may still join; the service pairs round 1 when the league starts: at
once in a league of version 1, once its organiser has started it from version
2, or it finishes unplayed if too few are left by then); a
round open with every result recorded is closed; after a closed round the next
is paired, or the league finishes when its rounds are played or too few players
are left to pair; a finished league reveals its seed.
"""

from __future__ import annotations

from referee import rng as rngmod
from referee.events import GENESIS, REFEREE, Draft, Event, chain
from referee.games.base import MalformedMove, RefereeError
from referee.leagues import scoring, setup
from referee.leagues import state as st
from referee.leagues.pairing import Pairing, fewest, pair_round, planned_rounds
from referee.leagues.state import LeagueState
from referee.table import Table

PAIR = "pair-round"
CLOSE = "close-round"
FINISH = "finish"
REVEAL = "reveal-seed"
BY = ("admin", "player")


class LeagueConflict(RefereeError):
    """What the league's log does not allow now (a join once it has started, a
    pairing while a round is open, a result of a game still running...)."""

    code, status = "league-conflict", 409


class NoSuchPlayer(RefereeError):
    code, status = "no-such-player", 404


class NotInvited(RefereeError):
    """A player the league did not invite, joining a league whose entry is not open
    (or declining an invitation they never had)."""

    code, status = "not-invited", 403


def due(state: LeagueState) -> str | None:
    if state.finished:
        return None if state.seed is not None else REVEAL
    rnd = state.open_round()
    if rnd is not None:
        return CLOSE if rnd.complete else None
    if not state.rounds:  # a started league left too few to pair (withdrawals) ends unplayed
        return FINISH if state.begun and len(state.active()) < fewest(state) else None
    if len(state.rounds) >= planned_rounds(state) or len(state.active()) < fewest(state):
        return FINISH
    return PAIR


def can_start(state: LeagueState) -> bool:
    """Whether round 1 may be paired now: as soon as enough players are in (version 1),
    once the organiser has started the league (version 2)."""
    return (not state.rounds and not state.finished and len(state.active()) >= fewest(state)
            and (state.version < 2 or state.begun))


def created_payload(league_id: str, seed: str, **terms) -> dict:
    """The first event's payload: the terms checked (``setup.league_terms``) and
    completed, and the commitment to ``seed``."""
    if not isinstance(league_id, str) or not league_id:
        raise MalformedMove("a league's id is text", field="id")
    return {"id": league_id, **setup.league_terms(**terms),
            "seed_commitment": rngmod.commitment(seed)}


def join_draft(state: LeagueState, entry: dict) -> Draft:
    """A player's join: their own act (version 2: invited, or any player where the
    entry is open), before the first round (version 2: before the start)."""
    entry = setup.player_entry(entry, "player")
    if state.rounds or state.finished or state.begun:
        raise LeagueConflict("players join a league before its start")
    if entry["player"] in state.players:
        raise LeagueConflict(f"player {entry['player']!r} is already in the league")
    if state.version >= 2 and entry["player"] not in state.invited and state.entry != "open":
        raise NotInvited("this league is joined by invitation only, and you have none "
                         "(or declined it)", field="player")
    if len(state.players) >= setup.MAX_PLAYERS:
        raise LeagueConflict(f"a league has at most {setup.MAX_PLAYERS} players")
    return Draft(st.JOINED, entry)


def decline_draft(state: LeagueState, player) -> Draft:
    """An invited player's refusal (version 2), before the start: never seated."""
    if state.version < 2:
        raise LeagueConflict("this league was created with its players in: none may decline")
    if player in state.players:
        raise LeagueConflict(f"player {player!r} has joined: a player in withdraws instead")
    if player not in state.invited:
        raise NotInvited("this league has no invitation of yours to decline", field="player")
    if state.begun or state.rounds or state.finished:
        raise LeagueConflict("the league has started")
    return Draft(st.DECLINED, {"player": player})


def start_draft(state: LeagueState, entropies: dict | None = None) -> Draft:
    """The organiser's start (version 2): with those who joined, enough to pair,
    recording each one's contribution to the lots' seed (``entropies``: player ->
    the entropy their join carried; none: null)."""
    if state.version < 2:
        raise LeagueConflict("this league started when it was created")
    if state.begun or state.rounds or state.finished:
        raise LeagueConflict("the league has started already")
    least = fewest(state)
    if len(state.active()) < least:
        raise LeagueConflict(f"a {state.format} league starts with at least {least} players who "
                             f"have joined; {len(state.active())} have")
    entropies = entropies or {}
    return Draft(st.STARTED, {"by": "admin", "contributions": [
        {"player": p, "entropy": entropies.get(p)} for p in state.active()]})


def withdraw_draft(state: LeagueState, player: str, by: str) -> Draft:
    if by not in BY:
        raise MalformedMove(f"by is one of {', '.join(BY)}", field="by")
    if player not in state.players:
        raise NoSuchPlayer(f"no player {player!r} in this league")
    if player in state.withdrawn:
        raise LeagueConflict(f"player {player!r} has already withdrawn")
    if state.finished:
        raise LeagueConflict("the league is over")
    return Draft(st.WITHDREW, {"player": player, "by": by})


def withdrawal_forfeits(state: LeagueState, player: str) -> list[dict]:
    """``[{game, placings}]``: the games of ``player`` with no result yet and the
    result each gets once ``player`` withdraws (lost by forfeit: they are placed
    last, everyone else at the table level first). In a league of version 1
    ``result_draft`` records exactly these for a game whose seat's player has
    withdrawn; from version 2 the referee resigns the seat in its game instead,
    and the game's own result places it."""
    gone = set(state.withdrawn) | {player}
    out = []
    for rnd in state.rounds:
        for t in rnd.tables:
            if player in t["seats"] and t["game"] not in rnd.results:
                out.append({"game": t["game"],
                            "placings": scoring.forfeit_placings(t["seats"], gone)})
    return out


def pairing_draft(state: LeagueState, pairing: Pairing, game_ids: list[str]) -> Draft:
    """``round-paired`` for ``pairing`` with the ids of its tables' new games."""
    if due(state) != PAIR and not can_start(state):
        raise LeagueConflict("no round is to be paired now")
    used = set(state.games)
    if (not isinstance(game_ids, list) or len(game_ids) != len(pairing.tables)
            or not all(isinstance(g, str) and g for g in game_ids)
            or len(set(game_ids)) != len(game_ids) or used & set(game_ids)):
        raise LeagueConflict("each table needs a new game id of its own")
    payload = {"round": len(state.rounds) + 1,
               "tables": [{"game": g, "seats": list(seats)}
                          for g, seats in zip(game_ids, pairing.tables, strict=True)],
               "byes": list(pairing.byes)}
    if pairing.lots is not None:
        payload["lots"] = list(pairing.lots)
    return Draft(st.PAIRED, payload)


def outcome(events: list[Event]) -> tuple[dict | None, list[int]]:
    """A game's result (None while it runs) and the seats that lost it by resigning
    or running out of time, from its log (replayed)."""
    table = Table.replay(events)
    return table.state.result, losers(events)


def losers(events: list[Event]) -> list[int]:
    return [ev.payload["seat"] for ev in events
            if ev.type in ("resigned", "forfeited") and isinstance(ev.payload, dict)]


def result_draft(state: LeagueState, game_id: str, result: dict | None, lost: list[int],
                 last: Event) -> Draft:
    """``result-recorded`` for a game of the open round that has ended with
    ``result`` (``lost``: seats that resigned or ran out of time), whose log's last
    event is ``last`` (its seed's reveal). A game one of whose players has
    withdrawn is lost by them by forfeit, whatever its log says."""
    rnd = state.open_round()
    if rnd is None or game_id not in (t["game"] for t in rnd.tables):
        raise LeagueConflict(f"game {game_id!r} is no game of the round in play")
    if game_id in rnd.results:
        raise LeagueConflict(f"game {game_id!r} already has its result")
    if result is None or last.type != "seed-revealed":
        raise LeagueConflict(f"game {game_id!r} has not ended")
    seats = rnd.seats(game_id)
    gone = [p for p in seats if p in state.withdrawn]
    payload = {"round": rnd.number, "game": game_id}
    if gone and state.version < 2:
        payload["placings"] = scoring.forfeit_placings(seats, set(gone))
    else:  # from version 2 a withdrawal resigns its seat: the game's own result places them
        payload["placings"] = scoring.placings(result, len(seats), lost)
    if gone:
        payload["forfeited"] = gone
    payload["last_hash"] = last.hash
    return Draft(st.RECORDED, payload)


def step_draft(state: LeagueState, seed: str | None = None) -> Draft | None:
    """The event of the step now due, but a pairing (``pairing_draft``); None if
    none. The seed's reveal needs the seed."""
    step = due(state)
    if step == CLOSE:
        return Draft(st.CLOSED, {"round": state.rounds[-1].number})
    if step == FINISH:
        return Draft(st.FINISHED, {"standings": scoring.standings(state)})
    if step == REVEAL:
        if seed is None or rngmod.commitment(seed) != state.seed_commitment:
            raise LeagueConflict("the seed to reveal is the one committed to")
        return Draft(st.REVEALED, {"seed": seed})
    return None


class League:
    """A league's state after its log so far, and proposals of what comes next."""

    def __init__(self, state: LeagueState, seq: int, last_hash: str):
        self.state, self.seq, self.last_hash = state, seq, last_hash

    @classmethod
    def create(cls, league_id: str, seed: str, at: str | None = None,
               **terms) -> tuple[League, Event]:
        """A new league (``terms`` as ``setup.league_terms`` takes them: with
        ``league_version=2``, a league its invited players join) and its first event."""
        ev = chain([Draft(st.CREATED, created_payload(league_id, seed, **terms))], REFEREE, 1,
                   GENESIS, at)[0]
        return cls(st.start(ev), 1, ev.hash), ev

    @classmethod
    def replay(cls, events: list[Event]) -> League:
        league = cls(st.start(events[0]), events[0].seq, events[0].hash)
        league.apply(events[1:])
        return league

    def due(self) -> str | None:
        return due(self.state)

    def _seal(self, drafts: list[Draft], at: str | None) -> list[Event]:
        return chain(drafts, REFEREE, self.seq + 1, self.last_hash, at)

    def propose_join(self, entry: dict, at: str | None = None) -> list[Event]:
        return self._seal([join_draft(self.state, entry)], at)

    def propose_decline(self, player: str, at: str | None = None) -> list[Event]:
        return self._seal([decline_draft(self.state, player)], at)

    def propose_start(self, entropies: dict | None = None, at: str | None = None) -> list[Event]:
        return self._seal([start_draft(self.state, entropies)], at)

    def propose_withdraw(self, player: str, by: str, at: str | None = None) -> list[Event]:
        return self._seal([withdraw_draft(self.state, player, by)], at)

    def next_pairing(self, seed: str | None) -> Pairing:
        """The pairing of the round to pair next (round 1: ``can_start``)."""
        if self.due() != PAIR and not can_start(self.state):
            raise LeagueConflict("no round is to be paired now")
        if seed is not None and rngmod.commitment(seed) != self.state.seed_commitment:
            raise LeagueConflict("the seed is not the one the league committed to")
        return pair_round(self.state, seed, self.seq + 1)

    def propose_pairing(self, seed: str | None, game_ids, at: str | None = None) -> list[Event]:
        """The next round's ``round-paired``; ``game_ids``: a list with one new game id
        per table, or a function ``(round, table) -> id`` (table counted from 0)."""
        pairing = self.next_pairing(seed)
        if callable(game_ids):
            number = len(self.state.rounds) + 1
            game_ids = [game_ids(number, i) for i in range(len(pairing.tables))]
        return self.propose_paired(pairing, game_ids, at)

    def propose_paired(self, pairing: Pairing, game_ids: list[str], at: str | None = None) -> list[Event]:
        """``propose_pairing`` of a pairing ``next_pairing`` gave (so that the game ids
        may be chosen knowing each table's seats)."""
        return self._seal([pairing_draft(self.state, pairing, game_ids)], at)

    def propose_result(self, game_id: str, game_events: list[Event],
                       at: str | None = None) -> list[Event]:
        """Record the result of a game from its whole log."""
        result, lost = outcome(game_events)
        return self._seal([result_draft(self.state, game_id, result, lost, game_events[-1])], at)

    def propose_outcome(self, game_id: str, result: dict | None, lost: list[int], last: Event,
                        at: str | None = None) -> list[Event]:
        """``propose_result`` from what a caller already holds: the game's ``result``
        (from its table), the seats that resigned or ran out of time (``losers``),
        and its log's last event."""
        return self._seal([result_draft(self.state, game_id, result, lost, last)], at)

    def propose_step(self, seed: str | None = None, at: str | None = None) -> list[Event]:
        draft = step_draft(self.state, seed)
        return [] if draft is None else self._seal([draft], at)

    def apply(self, events: list[Event]) -> None:
        """Take on events once they are in the log."""
        for ev in events:
            st.evolve(self.state, ev)
            self.seq, self.last_hash = ev.seq, ev.hash
