"""Whole games played in memory: for property tests, benchmarks and seat-filling bots.

``random_game`` plays uniformly random legal moves on a ``Table`` and, when asked,
checks at every step what any engine must honour: ``decide`` never changes the
state, every listed legal move is accepted, notation round-trips, and replaying
the log from scratch gives the state play arrived at.
"""

from __future__ import annotations

import copy
import pickle
import random

from referee.bots import candidates
from referee.table import Table


def new_table(game: str, players: int | list[str], options: dict | None = None,
              seed: str = "autoplay-seed", game_id: str = "g-test") -> tuple[Table, list]:
    """A table with its first referee steps (the deal) already settled; returns the
    table and the whole log so far."""
    names = players if isinstance(players, list) else [f"p{i}" for i in range(players)]
    opts = dict(options or {})
    stacked = any(opts.get(k) is not None for k in ("deck", "personality_deck", "event_deck"))
    created = Table.created_event(game, game_id, names, opts, seed, stacked)
    table = Table.from_created(created)
    log = [created] + table.settle_all(seed)
    return table, log


def play(table: Table, seat: int, moves, seed: str, log: list | None = None) -> list:
    """Submit a move (or a list, all or nothing) and settle what falls due."""
    moves = moves if isinstance(moves, list) else [moves]
    events, fork = table.propose(seat, moves, seed=seed)
    table.commit(fork)
    events += table.settle_all(seed)
    if log is not None:
        log += events
    return events


def check_step(table: Table, seat: int, legal: list[dict]) -> None:
    """The checks every engine must pass at every position (raises AssertionError)."""
    eng = table.engine
    before = pickle.dumps(table.state)
    for move in legal:
        text = eng.format(move)
        assert eng.parse(text) == [move], f"notation does not round-trip: {move} -> {text!r}"
        if move["type"] == "resign":
            continue
        eng.decide(table.state, seat, copy.deepcopy(move))  # must not raise
        assert pickle.dumps(table.state) == before, f"decide changed the state for {move}"


def random_game(game: str, players: int, options: dict | None = None, seed: str = "s",
                rnd: random.Random | None = None, max_moves: int = 20000,
                check: bool = False, on_step=None, must_end: bool = True) -> tuple[Table, list]:
    """Play random legal moves (never resigning, never asking for a draw or a
    take-back) until the game ends. A game still running after ``max_moves`` is
    an error, unless ``must_end`` is false: then it is returned as it stands (random
    play need not end a Castle Danger game without a turn limit), checked as far
    as it went."""
    rnd = rnd or random.Random(seed)
    table, log = new_table(game, players, options, seed)
    for _ in range(max_moves):
        if table.over:
            break
        acting = table.to_act()
        assert acting, f"nobody to act in a running game: {table.engine.view(table.state, 'admin')}"
        seat = rnd.choice(acting)
        legal = [m for m in table.engine.legal(table.state, seat) if m["type"] != "resign"]
        assert legal, f"seat {seat} must act but has no legal move"
        if check:
            check_step(table, seat, legal)
        # A bot's choices: no draw offers or take-backs, so seeded games stay as
        # they were before those moves existed (tests play them on purpose).
        play(table, seat, rnd.choice(candidates(table.engine, table.state, seat)), seed, log)
        if on_step:
            on_step(table, log)
    else:
        if must_end and not table.over:
            raise AssertionError(f"{game} did not end within {max_moves} moves")
    if check:
        replayed = Table.replay(log)
        # Compared by value: a pickle of the state also records which equal
        # objects are shared, and play (forks copied by pickle) and replay share
        # differently without any difference in the game.
        assert replayed.state == table.state, "replay differs from play"
    return table, log

