"""A league bundle of about 100 games audited against the bare parse-and-hash loop.

The bundle is a finished round-robin of 15 players of Castle Danger (105 games),
played whole in memory with random legal moves by ``tests/leagues/helpers.py``
(``Run(...).play_all().bundle()``: real games, every result and step the league
owes), with a turn limit of 10 so it builds in about a second (without a limit
the games run to ~1,100 events each and the bundle to ~117,000 lines). Its audit
(``referee.leagues.audit_league``: every line checked, the league's log re-derived,
every game's log audited whole) is checked valid once. Then, in interleaved
rounds (one of each per round, the side that goes first alternating), the bare
loop (``benchmarks/run.py``'s ``bare_loop``: parse each line and SHA-256 it, the
ceiling no audit can beat) and the audit are timed on the same text; the figure
is the median of the per-round ratios bare time / audit time, i.e. the audit's
lines per second over the bare loop's. Goal: at least 0.33, as a single game's
log (``benchmarks/run.py``'s "audit speed"). Both sides are timed in a fresh
process given only the bundle's text, as the service's audit workers run an audit
(``benchmarks/audit_rounds.py``); the same rounds in this process, on the heap that
playing the league left, are shown beside it.

    PYTHONPATH=. python benchmarks/bundle_audit.py [--rounds 15] [--players 15] [--turn-limit 10]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = str(Path(__file__).resolve().parent.parent)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

GAME = "castle-danger"
GOAL = 0.33


def build(players: int = 15, turn_limit: int | None = 10) -> tuple[str, int, float]:
    """(the bundle's text, its games, seconds to play the league and export it)."""
    from tests.leagues.helpers import Run
    from tests.leagues.helpers import players as entries

    start = time.perf_counter()
    run = Run(name="Bench", game=GAME, options={"turn_limit": turn_limit} if turn_limit else {},
              format="round-robin", players=entries(players)).play_all()
    text = run.bundle()
    return text, len(run.games), time.perf_counter() - start


def section(rounds: int, players: int = 15, turn_limit: int | None = 10) -> float:
    """Build, measure and print; returns the ratio (taken in a fresh process)."""
    from benchmarks import audit_rounds
    from benchmarks.run import med, verdict

    text, games, built = build(players, turn_limit)
    got = audit_rounds.in_fresh_process("bundle", text, rounds)
    here = audit_rounds.rounds("bundle", text, rounds)
    lines = text.count("\n")
    ratio = med(got["ratios"])
    limit = f", turn limit {turn_limit}" if turn_limit else ""
    print(f"league bundle audit: a round-robin of {players} players of {GAME}{limit} "
          f"({games} games, {lines} lines, {len(text) / 1e6:.1f} MB; played in {built:.1f} s)")
    print(f"  audit {med(got['audit']) * 1e3:7.1f} ms; bare parse-and-hash loop "
          f"{med(got['bare']) * 1e3:6.1f} ms (median of {rounds} interleaved rounds, in a fresh "
          f"process as an audit worker); {lines / med(got['audit']):,.0f} against "
          f"{lines / med(got['bare']):,.0f} lines/s")
    print(f"  GOAL league bundle audit speed / bare loop speed: {ratio:5.3f}   "
          f"(goal >= {GOAL:.2f}: {verdict(ratio, GOAL)})")
    print(f"  the same in the process that played the league, shown only: {med(here['ratios']):5.3f}")
    return ratio


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--players", type=int, default=15)
    ap.add_argument("--turn-limit", type=int, default=10, help="0: none (a much longer bundle)")
    args = ap.parse_args(argv)
    section(args.rounds, args.players, args.turn_limit or None)


if __name__ == "__main__":
    main()
