"""A game in memory: engine, state and the tail of its log.

``Table`` is the one place that turns moves and referee steps into sealed events
and applies them. The service wraps it with a store, a cache and jobs; the audit
replays an export through it; tests and bots play whole games on it without any
server. Proposals never change the table: they return the events and the table
as it would be, so a refused batch or a lost compare-and-set leaves it intact.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from referee import clock as clockmod
from referee import rng as rngmod
from referee.events import GENESIS, REFEREE, Draft, Event, chain, utcnow
from referee.games import engine as engine_by_name
from referee.games.base import Engine, GameState, MalformedMove, RefereeError

REVEAL_SEED = "reveal-seed"
# An admin gave a seat to a new player (referee/seats.py): nothing changes in play.
SEAT_REPLACED = "seat-replaced"


class Settling(RefereeError):
    code, status = "settling", 409


@dataclass
class Table:
    engine: Engine
    state: GameState
    seq: int
    last_hash: str
    game_id: str
    seed_commitment: str
    stacked: bool
    aborted: bool = False
    seed_revealed: bool = False
    # The clock option (None: no clock) and, for each seat to act, the ``at`` its
    # time started (see referee/clock.py; replaced, never changed in place).
    clock: dict | None = None
    since: dict = field(default_factory=dict)
    paused: bool = False

    # ---- making and replaying ------------------------------------------------------

    @staticmethod
    def created_event(game: str, game_id: str, players: list[str], options: dict,
                      seed: str, stacked: bool, at: str | None = None,
                      salt_key: str | None = None) -> Event:
        """The first event of a new game (options validated and completed here)."""
        eng = engine_by_name(game)
        if not isinstance(options or {}, dict):
            raise MalformedMove("options must be an object", field="options")
        if not isinstance(players, list) or not all(isinstance(p, str) and p.strip() for p in players):
            raise MalformedMove("players must be a list of names", field="players")
        from referee.games.base import check_players

        check_players(eng, len(players))
        options = dict(options or {})
        clock = clockmod.check_clock(options.pop("clock", None))  # every game's, not the engine's
        opts = eng.setup(options, len(players))
        if clock is not None:
            opts["clock"] = clock
        payload = {
            "game": game, "id": game_id, "options": opts,
            "seats": [{"seat": i, "name": n} for i, n in enumerate(players)],
            "seed_commitment": rngmod.commitment(seed), "stacked": stacked,
            "engine_version": eng.version,
        }
        return chain([Draft("game-created", payload)], REFEREE, 1, GENESIS, at, _key(seed, salt_key))[0]

    @classmethod
    def from_created(cls, created: Event) -> Table:
        p = created.payload
        eng = engine_by_name(p["game"])
        table = cls(eng, eng.start(p), created.seq, created.hash, p["id"],
                    p["seed_commitment"], p["stacked"], clock=p["options"].get("clock"))
        table._time(created)
        return table

    @classmethod
    def replay(cls, events: list[Event], owned: bool = False) -> Table:
        """The table after ``events``. ``owned``: the caller made these Event
        objects for this replay alone (parsed them, say) and keeps no other use
        for them, so the engine may have them without a copy."""
        table = cls.from_created(events[0])
        for ev in events[1:]:
            table.apply(ev, owned)
        return table

    # ---- questions -----------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self.state.result is not None

    def due(self) -> str | None:
        if self.over:
            return None if self.seed_revealed else REVEAL_SEED
        return self.engine.due(self.state)

    @property
    def status(self) -> str:
        if self.aborted:
            return "aborted"
        if self.due() is not None:
            return "settling"
        return "finished" if self.over else "active"

    def to_act(self) -> list[int]:
        return [] if self.due() else self.engine.acting(self.state)

    def scores(self) -> list:
        return self.engine.scores(self.state)

    # ---- changes -------------------------------------------------------------------

    def apply(self, ev: Event, owned: bool = False) -> None:
        """Apply an event already in the log (changes this table). The engine gets
        its own copy, so nothing it keeps can later change the logged event, unless
        the caller hands it over (``owned``: nobody else will look at ``ev``)."""
        if ev.type in (clockmod.CLOCK_CHANGED, SEAT_REPLACED):  # the referee's own, no engine's business
            if ev.type == clockmod.CLOCK_CHANGED:
                clockmod.apply_change(self, ev)
            elif ev.payload.get("seat") in self.since:  # a new player gets a full move_seconds
                self.since = {**self.since, ev.payload["seat"]: ev.at}
            self.seq, self.last_hash = ev.seq, ev.hash
            return
        self.state = self.engine.evolve(self.state, ev if owned else ev.copy())
        if ev.type == "game-aborted":
            self.aborted = True
        elif ev.type == "seed-revealed":
            self.seed_revealed = True
        self.seq, self.last_hash = ev.seq, ev.hash
        self._time(ev)

    def _time(self, ev: Event) -> None:
        if self.clock is not None:
            self.since = clockmod.started(self.since, self.to_act(), ev)

    def _forked(self) -> Table:
        return Table(**{**self.__dict__, "state": copy.deepcopy(self.state)})

    def _extend(self, drafts: list[Draft], actor, at: str | None, salt_key: str | None,
                fork_first: bool = True) -> tuple[list[Event], Table]:
        # One proposal is one append: all its events carry the same moment, which
        # is how an audit tells where a step it cannot re-derive ends.
        at = at or utcnow()
        fork = self._forked() if fork_first else self
        events = []
        for draft in drafts:
            ev = chain([draft], actor, fork.seq + 1, fork.last_hash, at, salt_key)[0]
            fork.apply(ev)
            events.append(ev)
        return events, fork

    def propose(self, seat: int, moves: list[dict], at: str | None = None,
                seed: str | None = None, salt_key: str | None = None) -> tuple[list[Event], Table]:
        """The events ``moves`` by ``seat`` would write, applied in order, all or
        nothing (the first refusal raises and nothing is kept). Salted from
        ``salt_key`` (the service's per-game secret), else from ``seed`` (in-memory
        games without a server)."""
        if not isinstance(moves, list) or not moves:
            raise MalformedMove("moves must be a non-empty list", field="moves")
        fork, events = self._forked(), []
        for i, move in enumerate(moves):
            try:
                drafts = fork.move_drafts(seat, move)
            except Settling as err:
                err.extra["index"] = i
                raise
            except RefereeError as err:
                if len(moves) > 1:
                    err.extra.setdefault("index", i)
                raise
            # the fork is this proposal's own: extend it in place, no second copy
            new, fork = fork._extend(drafts, seat, at, _key(seed, salt_key), fork_first=False)
            events += new
        return events, fork

    def move_drafts(self, seat: int, move: dict) -> list[Draft]:
        """What ``move`` by ``seat`` would write now, unsealed (changes nothing):
        the audit compares these with the log without building a proposal."""
        if self.due() is not None and not self.over:
            raise Settling(f"the referee must first {self.due()}; try again in a moment")
        return self.engine.decide(self.state, seat, move)

    def step_drafts(self, seed: str | None, salt_key: str | None = None) -> list[Draft]:
        """What the referee step now due would write ([] if none), unsealed."""
        step = self.due()
        if step is None:
            return []
        if step == REVEAL_SEED:
            if seed is None:
                raise rngmod.SeedUnavailable("the seed is needed to reveal it")
            reveal = {"seed": seed}
            if salt_key is not None and salt_key != seed:
                reveal["salt_key"] = salt_key
            return [Draft("seed-revealed", reveal)]
        drafts = self.engine.settle(self.state, rngmod.Rng(seed, self.seq + 1))
        if not drafts:
            raise RuntimeError(f"{self.engine.name}: step {step!r} wrote no event")
        return drafts

    def propose_step(self, seed: str | None, at: str | None = None,
                     salt_key: str | None = None) -> tuple[list[Event], Table]:
        """The events of the referee step now due ([] if none). ``seed`` may be None
        when the step draws nothing at random; a step that does then raises
        ``SeedUnavailable``. The seed's reveal reveals the salt key with it."""
        drafts = self.step_drafts(seed, salt_key)
        if not drafts:
            return [], self
        return self._extend(drafts, REFEREE, at, _key(seed, salt_key))

    def propose_abort(self, reason: str, at: str | None = None, seed: str | None = None,
                      salt_key: str | None = None) -> tuple[list[Event], Table]:
        return self._extend([Draft("game-aborted", {"reason": reason, "by": "admin"})], REFEREE, at,
                            _key(seed, salt_key))

    def propose_clock(self, body, at: str | None = None, seed: str | None = None,
                      salt_key: str | None = None) -> tuple[list[Event], Table]:
        """The admin's change or pause of the clock (see referee/clock.py)."""
        payload = clockmod.change_payload(self.clock, self.paused, body)
        return self._extend([Draft(clockmod.CLOCK_CHANGED, payload)], REFEREE, at, _key(seed, salt_key))

    def settle_all(self, seed: str | None, at: str | None = None, limit: int = 1000,
                   salt_key: str | None = None) -> list[Event]:
        """Run every due referee step now (the in-process way); changes the table."""
        out = []
        for _ in range(limit):
            events, fork = self.propose_step(seed, at, salt_key)
            if not events:
                return out
            self.commit(fork)
            out += events
        raise RuntimeError("referee steps did not come to rest")

    def commit(self, fork: Table) -> None:
        """Take on a proposal's result once its events are safely in the log."""
        self.__dict__.update(fork.__dict__)


def _key(seed: str | None, salt_key: str | None) -> str | None:
    """What salts are keyed by: the game's secret salt key; without one (an in-memory
    game, a log from before salt keys) the seed."""
    return salt_key if salt_key is not None else seed
