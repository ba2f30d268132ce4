"""A game in memory: engine, state and the tail of its log.

``Table`` is the one place that turns moves and referee steps into sealed events
and applies them. The service wraps it with a store, a cache and jobs; the audit
replays an export through it; tests and bots play whole games on it without any
server. Proposals never change the table: they return the events and the table
as it would be, so a refused batch or a lost compare-and-set leaves it intact.
"""

from __future__ import annotations

import pickle
from dataclasses import dataclass, field

from referee import clock as clockmod
from referee import entropy, table_events
from referee import rng as rngmod
from referee.clock import NotDue, forfeit_draft, timeout_payload  # noqa: F401 - NotDue: raised for the table's callers
from referee.disputes.ledger import LEDGER_EVENTS, VOTE_END, end_drafts
from referee.disputes.tabling import Ledgered, NeedsHistory, is_take_back  # noqa: F401 (the service's, the audit's)
from referee.events import GENESIS, REFEREE, Draft, Event, chain, utcnow
from referee.games import engine as engine_by_name
from referee.games.base import (
    Engine,
    GameState,
    IllegalMove,
    MalformedMove,
    RefereeError,
    check_players,
)
from referee.own_players import bot_kinds, bot_players, use_bots  # noqa: F401 (use_bots: the wiring's)
from referee.seeing import Seeing, of_players
from referee.weekends import SEAT_CALENDAR, check_calendar

REVEAL_SEED = "reveal-seed"
# An admin gave a seat to a new player (referee/seats.py): nothing changes in play.
SEAT_REPLACED = "seat-replaced"
# A seat's deadline passed (referee/timeouts.py): the clock's ``on_timeout`` says
# what follows. ``remind``: nothing in play; ``autoplay``: the referee owes the seat
# one move of the basic bot (the step BOT_MOVE); ``forfeit``: the referee owes
# the seat's loss (the step FORFEIT, a ``forfeited`` event).
SEAT_TIMED_OUT = "seat-timed-out"
# Steps of the referee's own, beside the engines' (deals, scoring...): a bot seat or
# an autoplayed seat to act gets its move; a seat out of time on ``forfeit`` loses.
BOT_MOVE = "bot-move"
FORFEIT = "forfeit"
# Referee events that are no engine's business: the table takes them on itself
# (and the votes', disputes' and rulings': referee/disputes/tabling.py).
TABLE_EVENTS = ("clock-changed", SEAT_REPLACED, SEAT_TIMED_OUT, SEAT_CALENDAR, "clock-paused", "clock-resumed")


class Settling(RefereeError):
    code, status = "settling", 409


@dataclass
class Table(Seeing, Ledgered):
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
    # seat -> the version (seq) whose event started its time (names its reminder)
    since_seq: dict = field(default_factory=dict)
    # seat -> the ``since`` its timeout fired for (a seat times out once per turn)
    timed_out: dict = field(default_factory=dict)
    # seat -> what its bank held (microseconds) when its time last started, under a
    # bank clock (referee/clock.py); a seat not in it holds the initial bank
    banks: dict = field(default_factory=dict)
    # seat -> the zone whose weekends its clock leaves out (referee/weekends.py), from
    # the log's ``seat-calendar`` events; and each seat's mark this turn (clock.mark_of)
    calendars: dict = field(default_factory=dict)
    marks: dict = field(default_factory=dict)
    # seat -> {reason, from, until}: its clock paused, its player away (referee/vacations.py)
    away: dict = field(default_factory=dict)
    # seat -> days of auto vacation it drew in this game (a clock's ``vacation_days`` bounds them)
    drawn: dict = field(default_factory=dict)
    # seat -> "random" | "basic": the seats the referee plays (from game-created)
    bots: dict = field(default_factory=dict)
    # seat -> "autoplay" | "forfeit": what a timeout left the referee owing it
    owed: dict = field(default_factory=dict)
    # seat -> its timeouts so far in the game (excused misses count them)
    missed: dict = field(default_factory=dict)
    # (seq, seat, new name) of each seat-replaced event: who held a seat when
    # (referee/narration.py, Holders); a tuple, replaced, never changed in place
    replaced: tuple = ()
    # each seat's entropy (None where none) in a game whose seed derives from them,
    # as its first event records them; None in a game dealt from its seed alone
    contributions: tuple | None = None

    # ---- making and replaying ------------------------------------------------------

    @staticmethod
    def created_event(game: str, game_id: str, players: list[str], options: dict,
                      seed: str, stacked: bool, at: str | None = None,
                      salt_key: str | None = None, bots: dict | None = None,
                      accounts: dict | None = None, rated: bool = True,
                      contributions: list | None = None) -> Event:
        """The first event of a new game (options validated and completed here).
        ``accounts``: seat -> the player id seated there (referee/players), logged so
        that ratings can be recomputed from exports; ``rated=False`` is logged too
        (a game is rated unless it says so). ``contributions``: the seats' entropy
        (referee/entropy.py), ``seed`` then being the referee's secret part."""
        payload = Table.created_payload(game, game_id, players, options, seed, stacked, bots,
                                        accounts, rated, contributions)
        return chain([Draft("game-created", payload)], REFEREE, 1, GENESIS, at, _key(seed, salt_key))[0]

    @staticmethod
    def created_payload(game: str, game_id: str, players: list[str], options: dict, seed: str,
                        stacked: bool, bots: dict | None = None, accounts: dict | None = None,
                        rated: bool = True, contributions: list | None = None) -> dict:
        """``created_event``'s payload, for a reader that compares it (an audit) and
        needs no sealed event."""
        eng = engine_by_name(game)
        if not isinstance(options or {}, dict):
            raise MalformedMove("options must be an object", field="options")
        if not isinstance(players, list) or not all(isinstance(p, str) and p.strip() for p in players):
            raise MalformedMove("players must be a list of names", field="players")
        check_players(eng, len(players))
        options = dict(options or {})
        clock = clockmod.check_clock(options.pop("clock", None))  # every game's, not the engine's
        try:
            opts = eng.setup(options, len(players))
        except RefereeError as err:  # an engine names its option alone ("target"): as in the body
            field = err.extra.get("field")
            if isinstance(field, str) and field != "players" and not field.startswith("options"):
                err.extra["field"] = f"options.{field}"
            raise
        if clock is not None:
            opts["clock"] = clock
        bots = bots or {}
        accounts = accounts or {}
        if any(not isinstance(pid, str) or not 0 <= seat < len(players) for seat, pid in accounts.items()):
            raise MalformedMove("a seat's player is a player id", field="players")
        if any(kind not in bot_kinds() or not 0 <= seat < len(players) for seat, kind in bots.items()):
            raise MalformedMove(f"a bot is one of {', '.join(bot_kinds())}", field="players")
        if bots and len(bots) == len(players) and eng.name == "castle-danger" and not opts.get("turn_limit"):
            # Two bots could shuffle pieces for ever: a game of bots alone must end.
            raise MalformedMove("a Castle Danger game of bots only needs options.turn_limit",
                                field="options.turn_limit")
        payload = {
            "game": game, "id": game_id, "options": opts,
            "seats": [{"seat": i, "name": n, **({"bot": bots[i]} if i in bots else {}),
                       **({"player": accounts[i]} if i in accounts else {})}
                      for i, n in enumerate(players)],
            "seed_commitment": rngmod.commitment(seed), "stacked": stacked,
            "engine_version": eng.version, **entropy.created_part(contributions, stacked, len(players)),
        }
        if not rated:
            payload["rated"] = False
        return payload

    @classmethod
    def from_created(cls, created: Event) -> Table:
        p = created.payload
        eng = engine_by_name(p["game"])
        table = cls(eng, eng.start(p), created.seq, created.hash, p["id"],
                    p["seed_commitment"], p["stacked"], clock=p["options"].get("clock"),
                    bots={s["seat"]: s["bot"] for s in p["seats"] if s.get("bot")},
                    of_players=of_players(eng, p), contributions=(
                        None if p.get("contributions") is None else tuple(p["contributions"])))
        table._time(created)
        return table

    @classmethod
    def replay(cls, events: list[Event], owned: bool = False) -> Table:
        """The table after ``events``. ``owned``: the caller made these Event
        objects for this replay alone (parsed them, say) and keeps no other use
        for them, so the engine may have them without a copy (unless taken back)."""
        table = cls.from_created(events[0])
        if any(is_take_back(ev) for ev in events):
            return table.replayed_with_take_backs(events)
        for ev in events[1:]:
            table.apply(ev, owned)
        return table

    # ---- questions -----------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self.state.result is not None

    def due(self) -> str | None:
        if self.ledger.vote is not None and self.ledger.decided:  # a vote's end is owed first
            return VOTE_END
        if self.state.result is not None:  # over
            return None if self.seed_revealed else REVEAL_SEED
        step = self.engine.due(self.state)
        if step is not None:
            return step
        if not self.owed and not self.bots and not self.state.left:  # most games: no seat the referee plays
            return None
        if FORFEIT in self.owed.values():
            return FORFEIT
        if self.bot_to_move() is not None:
            return BOT_MOVE
        return None

    def bot_to_move(self) -> int | None:
        """The seat whose move the referee makes next: one a timeout left owed a
        move, else the lowest bot seat to act (None: no such seat). Asked only
        while the engine has no step of its own due. A seat that left a game that
        plays on (``GameState.left``) is played as a bot seat is."""
        left = self.state.left
        if not self.owed and not self.bots and not left:  # most games: no seat the referee plays
            return None
        acting = self.engine.acting(self.state)
        for seat, what in sorted(self.owed.items()):
            if what in ("autoplay", clockmod.TURN) and seat in acting:
                return seat
        return next((seat for seat in acting if seat in self.bots or seat in left), None)

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

    def dealing_seed(self, kept: str | None) -> str | None:
        """The seed the shuffles draw from, given what the referee keeps (the seed,
        or in a game of contributions its secret part: referee/entropy.py)."""
        return entropy.dealing(kept, self.contributions)

    # ---- changes -------------------------------------------------------------------

    def apply(self, ev: Event, owned: bool = False, history: list[Event] | None = None) -> None:
        """Apply an event already in the log (changes this table). The engine gets
        its own copy, so nothing it keeps can later change the logged event, unless
        the caller hands it over (``owned``: nobody else will look at ``ev``); ``history``: the log a take-back needs."""
        if ev.type in LEDGER_EVENTS:
            return self._ledger_event(ev, history)
        if ev.type in TABLE_EVENTS and ev.actor == REFEREE:  # the referee's own, no engine's business
            table_events.take_on(self, ev)
            self.seq, self.last_hash = ev.seq, ev.hash
            return
        self.state = self.engine.evolve(self.state, ev if owned else ev.copy())
        if isinstance(ev.actor, int):
            self._made(ev.actor)
        if ev.type == "forfeited":  # the loss a timeout left owing is taken (the seat may play on as left)
            self._made(ev.payload.get("seat"))
        if ev.type == "game-aborted":
            self.aborted = True
        elif ev.type == "seed-revealed":
            self.seed_revealed = True
        self.seq, self.last_hash = ev.seq, ev.hash
        self._time(ev)
        if self.state.result is not None:
            self._ended(ev.at)

    def played(self, events: list[Event]) -> None:
        """Record ``events``, a seat's move whose effect on the state the engine
        made already as it decided them (``Engine.play``, in an audit's replay):
        what ``apply`` does beside evolving the state. Only for a table without a
        clock: a clock's reading after each event needs the state after each."""
        self._made(events[0].actor)
        self.seq, self.last_hash = events[-1].seq, events[-1].hash
        if self.state.result is not None:
            self._ended(events[-1].at)

    def _made(self, seat: int) -> None:
        """A move of ``seat`` is in the log: a move a timeout left it owing is made
        (an excused miss owes the whole turn: until the seat is no longer to act)."""
        self._moved()  # (a vote under way ends with it)
        if seat in self.owed and (self.owed[seat] != clockmod.TURN or seat not in self.engine.acting(self.state)):
            self.owed = {k: v for k, v in self.owed.items() if k != seat}

    def _time(self, ev: Event) -> None:
        if self.clock is not None:
            acting = self.to_act()
            self.banks = clockmod.spend(self, acting, ev)
            self.since = clockmod.started(self.since, acting, ev)
            self.since_seq = clockmod.started_seqs(self.since_seq, acting, ev)
            if self.calendars or self.marks:
                self.marks = clockmod.marked(self, acting, ev)

    def _forked(self) -> Table:
        # A state with a fork() of its own copies what a move may change and shares
        # the rest; any other is copied whole by a pickle round trip (a deep copy
        # keeping shared references, as deepcopy keeps them, three times faster
        # than copy.deepcopy; every state pickles already: the cached snapshots).
        state = self.state
        fork = getattr(state, "fork", None)
        copied = fork() if fork is not None else pickle.loads(pickle.dumps(state, pickle.HIGHEST_PROTOCOL))
        return Table(**{**self.__dict__, "state": copied})

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
        due = self.due()
        if due is not None and not self.over:
            raise Settling(f"the referee must first {due}; try again in a moment")
        if seat in self.state.left and not self.over:
            raise IllegalMove("left", f"seat {seat} has left the game: the referee plays its turns")
        return self.engine.decide(self.state, seat, move)

    def step_drafts(self, seed: str | None, salt_key: str | None = None) -> list[Draft]:
        """What the referee step now due would write ([] if none), unsealed."""
        step = self.due()
        if step is None or step == VOTE_END:
            return [] if step is None else end_drafts(self)
        if step == REVEAL_SEED:
            if seed is None:
                raise rngmod.SeedUnavailable("the seed is needed to reveal it")
            reveal = entropy.reveal(seed, self.contributions)
            if salt_key is not None and salt_key != seed:
                reveal["salt_key"] = salt_key
            return [Draft("seed-revealed", reveal)]
        if step == FORFEIT:
            return [forfeit_draft(self)]
        if step == BOT_MOVE:
            seat = self.bot_to_move()
            return self.engine.decide(self.state, seat, self.bot_move(seat, seed))
        drafts = self.engine.settle(self.state, rngmod.Rng(self.dealing_seed(seed), self.seq + 1))
        if not drafts:
            raise RuntimeError(f"{self.engine.name}: step {step!r} wrote no event")
        return drafts

    def step_actor(self):
        """Who the events of the step now due are written as: the seat itself for a
        bot's or an autoplayed move (its events are that seat's move, as if it had
        sent it), the referee for every other step."""
        return self.bot_to_move() if self.due() == BOT_MOVE else REFEREE

    def bot_move(self, seat: int, seed: str | None) -> dict:
        """The move the referee makes for ``seat`` now: its bot's (``random`` or
        ``basic``), or the ``basic`` bot's when a timeout owes it one. Drawn from
        the game's seeded randomness for the event it will be (``Rng(seed, seq)``),
        so an audit that knows the seed makes the same choice; while the seed is
        secret it cannot be re-derived (``SeedUnavailable``)."""
        kind = ("basic" if self.owed.get(seat) in ("autoplay", clockmod.TURN) or seat not in self.bots
                else self.bots[seat])
        return bot_players().choose(kind, self, seat, rngmod.Rng(self.dealing_seed(seed), self.seq + 1))

    def propose_step(self, seed: str | None, at: str | None = None,
                     salt_key: str | None = None) -> tuple[list[Event], Table]:
        """The events of the referee step now due ([] if none). ``seed`` may be None
        when the step draws nothing at random; a step that does then raises
        ``SeedUnavailable``. The seed's reveal reveals the salt key with it."""
        actor = self.step_actor()
        drafts = self.step_drafts(seed, salt_key)
        if not drafts:
            return [], self
        return self._extend(drafts, actor, at, _key(seed, salt_key))

    def propose_timeout(self, seat: int, at: str, seed: str | None = None,
                        salt_key: str | None = None) -> tuple[list[Event], Table]:
        """The referee's ``seat-timed-out`` for ``seat``, whose deadline has passed
        by ``at`` (refused otherwise: a timeout never comes early)."""
        payload = timeout_payload(self, seat, at)
        return self._extend([Draft(SEAT_TIMED_OUT, payload)], REFEREE, at, _key(seed, salt_key))

    def propose_abort(self, reason: str, at: str | None = None, seed: str | None = None,
                      salt_key: str | None = None) -> tuple[list[Event], Table]:
        return self._extend([Draft("game-aborted", {"reason": reason, "by": "admin"})], REFEREE, at,
                            _key(seed, salt_key))

    def propose_calendar(self, payload, at: str | None = None, seed: str | None = None,
                         salt_key: str | None = None) -> tuple[list[Event], Table]:
        """A seat's calendar (its weekends off, in its zone) into the log, from the
        moment of the event on (referee/weekends.py)."""
        payload = check_calendar(payload)
        if payload["seat"] >= self.state.players:
            raise MalformedMove(f"seat must be a number from 0 to {self.state.players - 1}", field="seat")
        return self._extend([Draft(SEAT_CALENDAR, payload)], REFEREE, at, _key(seed, salt_key))

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
