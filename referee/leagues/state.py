"""A league's log, its event types and the state replaying it gives.

A league is an append-only log of events exactly like a game's (``referee.events``:
``seq`` 1, 2, 3..., ``prev`` and ``hash`` chaining them, canonical JSON), every one
written by the referee. Its events hide nothing, so their ``salt`` is empty; the
league's seed is committed to in the first event and revealed by the last.

| type | payload |
|---|---|
| ``league-created`` | ``{id, name, game, options, format, players: [{player, name}], rounds, table_size, cycles, clock, points, seat_counts, seed_commitment}``; from ``league_version`` 2 also ``{league_version, invited: [{player, name}], entry, organiser}``, ``players`` then being only those in from the start |
| ``player-joined`` | ``{player, name}`` (before the first round only; from version 2 before the start, an invited player or anyone where ``entry`` is ``"open"``) |
| ``player-declined`` | ``{player}`` (version 2: an invited player who has not joined, before the start) |
| ``league-started`` | ``{by: "admin", contributions: [{player, entropy}]}`` (version 2: the organiser starts it; each player in, in joining order, with the entropy their join carried or null; round 1 is paired next, its lots drawn from the seed derived from the league's secret part and these, referee/entropy.py) |
| ``player-withdrew`` | ``{player, by}``; ``by`` is ``"admin"`` or ``"player"`` |
| ``round-paired`` | ``{round, tables: [{game, seats: [player, ...]}], byes: [player, ...]}``, and in round 1 ``lots``: every player in the order drawn from the seed |
| ``result-recorded`` | ``{round, game, placings, last_hash}``, and ``forfeited: [player, ...]`` when a seat's player had withdrawn |
| ``round-closed`` | ``{round}`` |
| ``league-finished`` | ``{standings}`` |
| ``seed-revealed`` | ``{seed}``; always the last event |

``evolve`` trusts its event (``referee.leagues.league`` checks each before it is
written, the league audit each as it is read); replaying is evolving in order.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from referee.events import Event

CREATED = "league-created"
JOINED = "player-joined"
DECLINED = "player-declined"
STARTED = "league-started"
WITHDREW = "player-withdrew"
PAIRED = "round-paired"
RECORDED = "result-recorded"
CLOSED = "round-closed"
FINISHED = "league-finished"
REVEALED = "seed-revealed"
TYPES = (CREATED, JOINED, DECLINED, STARTED, WITHDREW, PAIRED, RECORDED, CLOSED, FINISHED, REVEALED)

# What league-created records beside the terms (referee.leagues.setup.league_terms).
TERMS = ("name", "game", "options", "format", "rounds", "table_size", "cycles", "clock",
         "points", "seat_counts")


@dataclass
class Round:
    number: int
    tables: list[dict]  # [{game, seats: [player, ...]}], seats in seat order
    byes: list[str]
    results: dict[str, list[int]] = field(default_factory=dict)  # game -> placings by seat
    forfeited: dict[str, list[str]] = field(default_factory=dict)  # game -> withdrawn players
    last_hash: dict[str, str] = field(default_factory=dict)  # game -> its log's last hash
    closed: bool = False

    def seats(self, game: str) -> list[str]:
        return next(t["seats"] for t in self.tables if t["game"] == game)

    @property
    def games(self) -> list[str]:
        return [t["game"] for t in self.tables]

    @property
    def complete(self) -> bool:
        return len(self.results) == len(self.tables)


@dataclass
class LeagueState:
    id: str
    terms: dict  # the TERMS of league-created
    seed_commitment: str
    players: dict[str, str]  # player -> name, in the order they entered
    withdrawn: list[str] = field(default_factory=list)
    lots: list[str] | None = None  # drawn when round 1 is paired
    rounds: list[Round] = field(default_factory=list)
    games: dict[str, int] = field(default_factory=dict)  # game -> index in rounds
    finished: bool = False
    standings: list | None = None  # as league-finished logged them
    seed: str | None = None  # once revealed
    # league_version 2 (referee/leagues/setup.py): invited, not yet joined nor declined,
    # in the order invited; who may join; the organiser's player id; started by them
    version: int = 1
    invited: dict[str, str] = field(default_factory=dict)
    declined: list[str] = field(default_factory=list)
    entry: str = "invited"
    organiser: str | None = None
    begun: bool = False
    # [{player, entropy}] as league-started records them: the lots' seed derives from them
    contributions: list | None = None

    @property
    def format(self) -> str:
        return self.terms["format"]

    @property
    def started(self) -> bool:
        return bool(self.rounds)

    def active(self) -> list[str]:
        """The players still in, in lot order (joining order before the lots)."""
        out = self.lots if self.lots is not None else list(self.players)
        gone = set(self.withdrawn)
        return [p for p in out if p not in gone]

    def order(self) -> list[str]:
        """Every player, in lot order, then those who entered without a lot."""
        if self.lots is None:
            return list(self.players)
        drawn = set(self.lots)
        return list(self.lots) + [p for p in self.players if p not in drawn]

    def open_round(self) -> Round | None:
        return self.rounds[-1] if self.rounds and not self.rounds[-1].closed else None


def start(created: Event) -> LeagueState:
    p = created.payload
    return LeagueState(id=p["id"], terms={k: copy.deepcopy(p[k]) for k in TERMS},
                       seed_commitment=p["seed_commitment"],
                       players={e["player"]: e["name"] for e in p["players"]},
                       version=p.get("league_version") or 1,
                       invited={e["player"]: e["name"] for e in p.get("invited") or []},
                       entry=p.get("entry") or "invited", organiser=p.get("organiser"))


def evolve(state: LeagueState, event: Event) -> LeagueState:
    """Apply one logged event (changes ``state`` in place and returns it)."""
    p = event.payload
    kind = event.type
    if kind == JOINED:
        state.players[p["player"]] = p["name"]
        state.invited.pop(p["player"], None)
    elif kind == DECLINED:
        state.invited.pop(p["player"], None)
        state.declined.append(p["player"])
    elif kind == STARTED:
        state.begun = True
        state.contributions = copy.deepcopy(p.get("contributions"))
    elif kind == WITHDREW:
        state.withdrawn.append(p["player"])
    elif kind == PAIRED:
        if "lots" in p:
            state.lots = list(p["lots"])
        rnd = Round(p["round"], copy.deepcopy(p["tables"]), list(p["byes"]))
        state.rounds.append(rnd)
        for t in rnd.tables:
            state.games[t["game"]] = len(state.rounds) - 1
    elif kind == RECORDED:
        rnd = state.rounds[state.games[p["game"]]]
        rnd.results[p["game"]] = list(p["placings"])
        rnd.last_hash[p["game"]] = p["last_hash"]
        if p.get("forfeited"):
            rnd.forfeited[p["game"]] = list(p["forfeited"])
    elif kind == CLOSED:
        state.rounds[-1].closed = True
    elif kind == FINISHED:
        state.finished = True
        state.standings = copy.deepcopy(p["standings"])
    elif kind == REVEALED:
        state.seed = p["seed"]
    elif kind != CREATED:
        raise ValueError(f"not a league event: {kind}")
    return state


def replay(events: list[Event]) -> LeagueState:
    state = start(events[0])
    for ev in events[1:]:
        evolve(state, ev)
    return state
