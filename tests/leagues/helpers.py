"""Whole leagues played in memory: real games of random legal moves, their results
recorded, every step the league owes taken, as the service will do it."""

from __future__ import annotations

import random

from referee.autoplay import new_table, play
from referee.bots import candidates
from referee.leagues import League, withdrawal_forfeits
from referee.leagues.bundle import export

AT = "2026-01-01T00:00:00.000000Z"


def play_game(game: str, game_id: str, names: list[str], options: dict, seed: str,
              stop_after: int | None = None):
    """A game of random legal moves (never resigning); ``stop_after``: leave it
    running after that many moves. Returns the table and its whole log."""
    table, log = new_table(game, names, options, seed, game_id)
    rnd = random.Random(seed)
    moves = 0
    while not table.over and (stop_after is None or moves < stop_after):
        seat = rnd.choice(table.to_act())
        play(table, seat, rnd.choice(candidates(table.engine, table.state, seat)), seed, log)
        moves += 1
    return table, log


class Run:
    """A league being played: its League, its log and every game's log."""

    def __init__(self, league_id: str = "L", seed: str = "league-seed", **terms):
        self.seed = seed
        self.league, created = League.create(league_id, seed, at=AT, **terms)
        self.events = [created]
        self.games: dict[str, list] = {}
        self.tables: dict = {}

    @property
    def state(self):
        return self.league.state

    def commit(self, events):
        self.league.apply(events)
        self.events += events
        return events

    def options(self) -> dict:
        terms = self.state.terms
        return {**terms["options"], **({"clock": terms["clock"]} if terms["clock"] else {})}

    def pair(self):
        lid = self.state.id
        return self.commit(self.league.propose_pairing(self.seed, lambda r, t: f"{lid}-r{r}-t{t}",
                                                       at=AT))

    def play_round(self, results: dict | None = None):
        """Play every game of the open round (random moves), record each result."""
        rnd = self.state.open_round()
        for t in rnd.tables:
            if t["game"] in rnd.results:
                continue
            names = [self.state.players[p] for p in t["seats"]]
            table, log = play_game(self.state.terms["game"], t["game"], names, self.options(),
                                   f"seed-{t['game']}")
            self.games[t["game"]] = log
            self.commit(self.league.propose_result(t["game"], log, at=AT))

    def settle(self):
        while True:
            step = self.league.due()
            if step == "pair-round":
                self.pair()
            elif step is not None:
                self.commit(self.league.propose_step(self.seed, at=AT))
            else:
                return

    def withdraw(self, player: str):
        """Withdraw ``player``; their unfinished games are aborted and recorded lost."""
        self.commit(self.league.propose_withdraw(player, "admin", at=AT))
        for f in withdrawal_forfeits(self.state, player):
            rnd = self.state.open_round()
            seats = rnd.seats(f["game"])
            names = [self.state.players[p] for p in seats]
            seed = f"seed-{f['game']}"
            table, log = play_game(self.state.terms["game"], f["game"], names, self.options(),
                                   seed, stop_after=3)
            events, fork = table.propose_abort("withdrew from the league", seed=seed)
            table.commit(fork)
            log += events + table.settle_all(seed)
            self.games[f["game"]] = log
            self.commit(self.league.propose_result(f["game"], log, at=AT))

    def play_all(self, withdraw: dict | None = None):
        """Start the league and play it to its end; ``withdraw``: round -> player,
        withdrawn in the middle of that round."""
        self.pair()
        while not self.state.finished:
            number = len(self.state.rounds)
            if withdraw and number in withdraw and self.state.open_round():
                self.withdraw(withdraw.pop(number))
            if self.state.open_round():
                self.play_round()
            self.settle()
        self.settle()
        return self

    def bundle(self) -> str:
        return export(self.events, self.games)


def players(n: int) -> list[dict]:
    return [{"player": f"p{i}", "name": f"Player {i}"} for i in range(n)]


def force_results(league: League, placings_for) -> None:
    """Record a result for every game of the open round without playing it (the
    pure core takes a recorded result as the log says; its audit is what checks
    results against games, and tests/leagues/test_audit.py plays real ones), then
    close the round. ``placings_for(seats) -> placings``."""
    from referee.events import REFEREE, Draft, chain
    from referee.leagues.state import RECORDED

    rnd = league.state.open_round()
    for t in rnd.tables:
        payload = {"round": rnd.number, "game": t["game"], "placings": placings_for(t["seats"]),
                   "last_hash": "0" * 64}
        league.apply(chain([Draft(RECORDED, payload)], REFEREE, league.seq + 1, league.last_hash))
    league.apply(league.propose_step())


def by_rank(order: list[str]):
    """Placings where the player earlier in ``order`` places better."""
    return lambda seats: [1 + sum(order.index(q) < order.index(p) for q in seats) for p in seats]


def random_placings(rnd):
    def placings_for(seats):
        marks = [rnd.randint(1, len(seats)) for _ in seats]
        return [1 + sum(m < x for m in marks) for x in marks]
    return placings_for
