"""Audit a league's bundle (``referee.leagues.bundle``): trust nothing, re-derive
everything, and name the first divergence ``{where, code, detail}``.

In order, stopping at the first divergence:

* every bundle line is canonical JSON naming its log;
* the league's log is a whole chain of events (the checks of a game's log:
  canonical lines, ``seq`` without gaps, ``prev`` and ``hash``), each the
  referee's, with an empty salt;
* its first event is a ``league-created`` whose terms are as the referee checks
  and completes them; a revealed seed matches the commitment;
* every later event is the one the referee derives at its point from the log
  before it: a join, a decline, the organiser's start (league version 2) or a
  withdrawal allowed then; each pairing re-derived (the
  lots of round 1 from the seed once it is revealed, taken as logged but checked
  to be a drawing of the players before that); each result re-derived from the
  game's own log, audited whole by ``referee.audit.audit`` (valid, over, created
  as this league's game at that table, its last hash the one recorded, else
  ``not-the-recorded-game``, named as the game's); each
  round's close, the final standings and the seed's reveal when they were due;
* every game in the bundle is a game of the league, its log valid.

The usual bundle is read a log at a time first (``audit_league``); a bundle found
wrong that way is audited again in this order, and that report is given.
"""

from __future__ import annotations

import json

from referee import audit as game_audit
from referee import entropy, log_lines
from referee import rng as rngmod
from referee.events import REFEREE, Draft, Event, parsed_canonical_text
from referee.games.base import RefereeError
from referee.leagues import bundle as bundlemod
from referee.leagues import league as lg
from referee.leagues import scoring, setup
from referee.leagues import state as st
from referee.leagues.pairing import Pairing, pair_round


class Divergence(Exception):
    def __init__(self, where: str, code: str, detail: str):
        super().__init__(detail)
        self.where, self.code, self.detail = where, code, detail


def audit_league(text: str | bytes) -> dict:
    """``{valid, events, games, first_error, chain, seed, standings}``."""
    # the cyclic collector waits for the whole bundle, not only for each game's
    # audit: between games it would scan everything the bundle's audit holds
    with log_lines.no_gc_pauses():
        # The usual bundle is first audited with each log's lines read when that log
        # is audited (``bundle.cut``): the same checks, a game's reading freed before
        # the next game's. A bundle found wrong that way is audited again in the
        # order above (``bundle.split`` reads every line first), so the divergence
        # named first is the one that order finds: a wrong bundle costs two or three.
        lazy = bundlemod.cut(text)
        if lazy is not None:
            report = _audit_league(lambda: lazy)
            if report["valid"]:
                return report
            del lazy, report
        return _audit_league(lambda: bundlemod.split(text))


def _audit_league(split) -> dict:
    report = {"valid": False, "events": 0, "games": 0, "first_error": None, "chain": "broken",
              "seed": "unrevealed", "standings": None}
    try:
        league_lines, game_lines, starts = split()
        events = _league_events(league_lines)
        report["events"], report["chain"] = len(events), "ok"
        seed = _seed(events)
        if seed is not None:
            report["seed"] = "verified"
        checker = _Checker(events, game_lines, starts, seed)
        state = checker.run()
        report["games"] = len(checker.reports)
        report["standings"] = scoring.standings(state)
    except bundlemod.BadBundle as err:
        report["first_error"] = {"where": f"bundle line {err.line}", "code": err.code,
                                 "detail": err.detail}
        return report
    except Divergence as err:
        if err.code == "seed-mismatch":
            report["seed"] = "mismatch"
        report["first_error"] = {"where": err.where, "code": err.code, "detail": err.detail}
        return report
    except Exception as err:  # a forged log tripping the replay is a divergence too
        report["first_error"] = {"where": "league", "code": "unreadable",
                                 "detail": f"the bundle cannot be replayed: "
                                           f"{type(err).__name__}: {err}"}
        return report
    report["valid"] = True
    return report


def _league_events(lines: list[str]) -> list[Event]:
    if not lines:
        raise Divergence("league", "malformed", "the bundle has no league log")
    try:  # the very checks of a game's log: canonical lines, seq, prev, hash
        events = log_lines.read_lines(lines)
    except log_lines.Divergence as err:
        raise Divergence(f"league event {err.seq}", err.code, err.detail) from None
    for ev in events:
        if ev.actor != REFEREE or ev.salt != "":
            raise Divergence(f"league event {ev.seq}", "malformed",
                             "a league's events are the referee's, with an empty salt")
    return events


def _seed(events: list[Event]) -> str | None:
    last = events[-1]
    if last.type != st.REVEALED:
        return None
    seed = last.payload.get("seed") if isinstance(last.payload, dict) else None
    if not isinstance(seed, str) or rngmod.commitment(seed) != events[0].payload.get(
            "seed_commitment"):
        raise Divergence(f"league event {last.seq}", "seed-mismatch",
                         "the revealed seed does not match the commitment in event 1")
    return seed


# How a canonical event line that a seat lost by ends (lg.losers reads them)
_LOST = (',"type":"resigned"}', ',"type":"forfeited"}')


def _contributions(state: st.LeagueState, logged, where: str) -> dict:
    """The start's contributions as logged, once they have the shape the referee
    writes: each player in, in order, with null or an entropy of 1 to 256
    characters (the start's draft then says whether the rest is as it should be)."""
    if not isinstance(logged, list) or not all(isinstance(c, dict) for c in logged) \
            or [c.get("player") for c in logged] != state.active() \
            or not entropy.recorded([c.get("entropy") for c in logged], len(logged)):
        raise Divergence(where, "diverges", "the start must record each player in, in joining order, "
                         "with their entropy or null")
    return {c["player"]: c["entropy"] for c in logged}


def _text(payload) -> str:
    return json.dumps(payload, sort_keys=True, ensure_ascii=False)[:300]


class _Checker:
    def __init__(self, events: list[Event], game_lines: dict, starts: dict, seed: str | None):
        self.events, self.game_lines, self.starts, self.seed = events, game_lines, starts, seed
        self.payloads: dict[str, str] = {}  # payload texts found canonical, in any of its logs
        self.reports: dict[str, tuple[dict, list[Event]]] = {}

    def run(self) -> st.LeagueState:
        first = self.events[0]
        self.state = state = self._created(first)
        for ev in self.events[1:]:
            where = f"league event {ev.seq}"
            if not isinstance(ev.payload, dict):
                raise Divergence(where, "malformed", f"event {ev.seq}'s payload is no object")
            try:
                derived = self._derive(ev, where)
            except RefereeError as err:
                raise Divergence(where, "refused", f"{ev.type} was not allowed then: "
                                 f"{err.detail}") from None
            if derived is None:
                raise Divergence(where, "unexpected-event", f"{ev.type} was not due then")
            if derived.type != ev.type or parsed_canonical_text(
                    derived.payload) != log_lines.payload_text(ev):
                raise Divergence(where, "diverges", f"event {ev.seq} should be {derived.type} "
                                 f"{_text(derived.payload)} but the log has {ev.type} "
                                 f"{_text(ev.payload)}")
            st.evolve(state, ev)
        for game_id in sorted(self.game_lines, key=self.starts.__getitem__):
            if game_id not in state.games:
                raise Divergence(f"game {game_id}", "unexpected-game",
                                 f"game {game_id} is in the bundle but the league never paired it")
            self._game(game_id)
        return state

    def _created(self, first: Event) -> st.LeagueState:
        where = "league event 1"
        p = first.payload
        if first.type != st.CREATED or not isinstance(p, dict):
            raise Divergence(where, "not-a-league", "the first event must be league-created")
        try:
            terms = setup.league_terms(**{k: p.get(k) for k in (
                "name", "game", "options", "format", "players", "rounds", "table_size",
                "cycles", "clock", "points", "league_version", "invited", "entry", "organiser")})
        except (RefereeError, TypeError) as err:
            raise Divergence(where, "bad-league", f"the league cannot be created as logged: "
                             f"{getattr(err, 'detail', err)}") from None
        want = {"id": p.get("id"), **terms, "seed_commitment": p.get("seed_commitment")}
        if (parsed_canonical_text(want) != log_lines.payload_text(first)
                or not isinstance(p.get("id"), str) or not isinstance(p.get("seed_commitment"), str)):
            raise Divergence(where, "bad-league", "the first event's terms are not as the "
                             "referee checks and completes them")
        return st.start(first)

    def _derive(self, ev: Event, where: str) -> Draft | None:
        state, p = self.state, ev.payload
        if ev.type == st.JOINED:
            return lg.join_draft(state, p)
        if ev.type == st.DECLINED:
            return lg.decline_draft(state, p.get("player"))
        if ev.type == st.STARTED:
            return lg.start_draft(state, _contributions(state, p.get("contributions"), where))
        if ev.type == st.WITHDREW:
            return lg.withdraw_draft(state, p.get("player"), p.get("by"))
        if ev.type == st.PAIRED:
            return self._pairing(ev, where)
        if ev.type == st.RECORDED:
            game_id = p.get("game")
            if not isinstance(game_id, str) or game_id not in state.games:
                raise Divergence(where, "no-such-game", "the result names no game of the league")
            result, events = self._game(game_id)
            recorded = p.get("last_hash")
            if isinstance(recorded, str) and recorded != events[-1].hash:
                # The league recorded the result of a game that ended in another last
                # event: the game in the bundle (valid, the league's, at its table) is
                # not the one recorded. Named as the game's fault, not as a divergence
                # of the league's log, whose other fields follow from that game.
                raise Divergence(f"game {game_id}", "not-the-recorded-game",
                                 f"game {game_id}'s last hash is {events[-1].hash}, not the {recorded} "
                                 f"the league recorded at event {ev.seq}: the game in the bundle is "
                                 "not the game whose result the league recorded")
            return lg.result_draft(state, game_id, result, lg.losers(events), events[-1])
        return lg.step_draft(state, self.seed) if ev.type in (st.CLOSED, st.FINISHED,
                                                                st.REVEALED) else None

    def _pairing(self, ev: Event, where: str) -> Draft:
        state, p = self.state, ev.payload
        if lg.due(state) != lg.PAIR and not lg.can_start(state):
            return None
        tables = p.get("tables")
        if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
            raise Divergence(where, "diverges", "the pairing lists no tables")
        ids = [t.get("game") for t in tables]
        if state.lots is not None or self.seed is not None:
            pairing = pair_round(state, self.seed, ev.seq)
        else:  # round 1 while the seed is secret: the lots as logged, if they are a drawing
            lots = p.get("lots")
            if not isinstance(lots, list) or sorted(map(str, lots)) != sorted(state.active()):
                raise Divergence(where, "bad-lots", "round 1's lots must draw every player "
                                 "still in, each once")
            state.lots = list(lots)
            try:
                pairing = pair_round(state, None, ev.seq)
            finally:
                state.lots = None
            pairing = Pairing(pairing.tables, pairing.byes, list(lots))
        return lg.pairing_draft(state, pairing, ids)

    def _game(self, game_id: str) -> tuple[dict | None, list[Event]]:
        """The game's audited result and events (audited once)."""
        if game_id in self.reports:
            return self.reports[game_id]
        lines = self.game_lines.get(game_id)
        if lines is None:
            raise Divergence(f"game {game_id}", "missing-game",
                             f"game {game_id}'s log is not in the bundle")
        report = game_audit.audit_lines(lines, self.payloads)
        err = report["first_error"]
        if not report["valid"]:
            raise Divergence(f"game {game_id} event {err['seq']}", err["code"], err["detail"])
        # What the league reads of the game, read again from its lines (the audit's
        # events were the replay's, the engines' to keep): its first event, its last,
        # and the seats that resigned or forfeited. Every line is canonical now, so
        # its type is its last field.
        picked = [lines[0], *(line for line in lines[1:-1] if line.endswith(_LOST))]
        if len(lines) > 1:
            picked.append(lines[-1])
        events = [Event.from_json(line) for line in picked]
        self._seated(game_id, events[0].payload)
        self.reports[game_id] = (report["result"], events)
        return self.reports[game_id]

    def _seated(self, game_id: str, created: dict) -> None:
        """The game was created as the league's game at the table it was paired to."""
        state = self.state
        seats = state.rounds[state.games[game_id]].seats(game_id)
        want_names = [state.players[s] for s in seats]
        logged = created.get("seats", [])
        problems = []
        if created.get("id") != game_id:
            problems.append(f"its id is {created.get('id')!r}")
        if created.get("game") != state.terms["game"]:
            problems.append(f"it is a game of {created.get('game')!r}")
        if created.get("stacked"):
            problems.append("it was dealt from a chosen seed or deck")
        if [s.get("name") for s in logged] != want_names or any(
                "player" in s and s["player"] != seats[i] for i, s in enumerate(logged)):
            problems.append("its seats are not the pairing's players in order")
        elif created.get("options") != setup.game_options(state.terms, len(seats)):
            problems.append("its options are not the league's")
        # a bot seat only as the seat of the league's player (a bot player, referee/players)
        if any(s.get("bot") and s.get("player") != seats[i] for i, s in enumerate(logged)):
            problems.append("a seat was a bot's")
        if problems:
            raise Divergence(f"game {game_id} event 1", "not-the-paired-game",
                             f"game {game_id} is not the game the league paired: "
                             + "; ".join(problems))
