"""Win rate of the ``basic`` bot against ``random`` bots, 200 games per game.

One seat (rotating through the seats from game to game) plays ``basic``, the
others ``random``; games are played in memory on ``Table``. A shared win counts
as a win for every winner. ``basic`` should win clearly more than its share
(1/players).

    PYTHONPATH=. python benchmarks/bots.py [--games 200]
"""

from __future__ import annotations

import argparse

from referee import bots
from referee.autoplay import new_table, play
from referee.rng import Rng

GAMES = [("king-of-danger", 4), ("castle-danger", 2), ("king-of-the-castle", 4),
         ("kings-keys", 3)]


def one_game(game: str, players: int, basic_seat: int, seed: str,
             max_moves: int = 20000) -> list[int]:
    table, log = new_table(game, players, seed=seed)
    for _ in range(max_moves):
        if table.over:
            return table.state.result["winners"]
        seat = table.to_act()[0]
        kind = "basic" if seat == basic_seat else "random"
        move = bots.choose(kind, table, seat, Rng(seed, len(log) + 1))
        play(table, seat, move, seed, log)
    raise AssertionError(f"{game} did not end within {max_moves} moves")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--game", action="append", help="only these games")
    args = ap.parse_args(argv)
    for game, players in GAMES:
        if args.game and game not in args.game:
            continue
        wins = 0
        for i in range(args.games):
            seat = i % players
            wins += seat in one_game(game, players, seat, f"bench-{game}-{i}")
        print(f"{game:20s} {players} players: basic won {wins}/{args.games} "
              f"= {wins / args.games:.0%} (its share {1 / players:.0%})", flush=True)


if __name__ == "__main__":
    main()
