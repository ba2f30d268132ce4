"""``referee ratings``: check (or catch up on) the players' ratings from the finished
games' logs (referee/players/results.py). What it loads is imported where it is
used, so the ``referee`` command starts without the player layer."""

from __future__ import annotations

import sys


def add(sub, store_opts) -> None:
    """The command, on the ``referee`` command's subparsers."""
    sp = sub.add_parser("ratings", help="recompute the players' ratings from the finished games' logs")
    store_opts(sp)
    sp.add_argument("--check", action="store_true",
                    help="recompute every rating and list each difference with the stored one (exit 1 if any)")
    sp.add_argument("--catch-up", action="store_true",
                    help="first record every finished game not recorded yet, in the order they ended "
                         "(every finished game is read, not only those since the start-up catch-up's mark)")
    sp.set_defaults(fn=cmd_ratings)


def cmd_ratings(args) -> int:
    """Check (or catch up on) the players' ratings (referee/players/results.py)."""
    from referee.config import Config
    from referee.players import results
    from referee.players.store import open_players
    from referee.store import open_store

    store = open_store(Config.load(args.store, getattr(args, "queue", None)).store)
    players = open_players(store)
    if args.catch_up:
        print(f"{results.catch_up(store, players, everything=True)} finished game(s) recorded", file=sys.stderr)
    if not args.check:
        return 0
    differences = results.check(store, players)
    for line in differences:
        print(line)
    games = sum(1 for _, marker in players.recorded_games() if marker.get("rated"))
    print(f"{games} rated game(s) recomputed: "
          + (f"{len(differences)} difference(s)" if differences else "every rating matches"), file=sys.stderr)
    return 1 if differences else 0
