"""Pairing a league round: 1,000 players against 10, per player.

For each format, a league of 10 and one of 1,000 players has played three rounds
(results drawn at random, recorded without playing the games: pairing reads only
the log); then the fourth round's pairing (``League.next_pairing``: standings,
history and the pairing itself) is timed. The two sizes run in interleaved
rounds and the figure is the median of the per-round ratios of the time per
player, so a machine that slows down for a while slows both sides. A ratio of 1
means pairing costs the same per player at 1,000 as at 10.

    PYTHONPATH=. python benchmarks/leagues.py [--rounds 5] [--format swiss ...]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from referee.events import REFEREE, Draft, chain
from referee.leagues import League
from referee.leagues.state import RECORDED

SEED = "bench"
GAMES = {"round-robin": "castle-danger", "swiss": "castle-danger", "tables": "king-of-the-castle"}


def played(fmt: str, players: int, rounds: int = 3) -> League:
    terms = {"name": "Bench", "game": GAMES[fmt], "format": fmt,
             "players": [{"player": f"p{i}", "name": f"Player {i}"} for i in range(players)]}
    if fmt != "round-robin":
        terms["rounds"] = rounds + 1
    league, _ = League.create("bench", SEED, **terms)
    rnd = random.Random(players)
    for _ in range(rounds):
        league.apply(league.propose_pairing(SEED, lambda r, t: f"g{r}.{t}"))
        open_round = league.state.open_round()
        for table in open_round.tables:
            marks = [rnd.randint(1, len(table["seats"])) for _ in table["seats"]]
            payload = {"round": open_round.number, "game": table["game"],
                       "placings": [1 + sum(m < x for m in marks) for x in marks],
                       "last_hash": "0" * 64}
            league.apply(chain([Draft(RECORDED, payload)], REFEREE, league.seq + 1,
                               league.last_hash))
        league.apply(league.propose_step())
    return league


def per_player(league: League, players: int, repeat: int) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        league.next_pairing(SEED)
    return (time.perf_counter() - start) / repeat / players


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5, help="interleaved rounds (default 5)")
    ap.add_argument("--format", action="append", choices=sorted(GAMES),
                    help="only these formats (default: all)")
    args = ap.parse_args(argv)
    for fmt in args.format or ["swiss", "tables", "round-robin"]:
        small, large = played(fmt, 10), played(fmt, 1000)
        ratios, smalls, larges = [], [], []
        for _ in range(args.rounds):
            s = per_player(small, 10, 50)
            big = per_player(large, 1000, 1)
            smalls.append(s)
            larges.append(big)
            ratios.append(big / s)
        print(f"{fmt:12} pairing a round, per player: 10 players "
              f"{statistics.median(smalls) * 1e6:8.1f} us, 1,000 players "
              f"{statistics.median(larges) * 1e6:8.1f} us; 1,000 / 10 = "
              f"{statistics.median(ratios):.2f}")


if __name__ == "__main__":
    main()
