"""Pairing a league round: 1,000 players against 10, per player.

For each format, a league of 10 and one of 1,000 players has played three rounds
(results drawn at random, recorded without playing the games: pairing reads only
the log); then the fourth round's pairing (``League.next_pairing``: standings,
history and the pairing itself) is timed. The two sizes run in interleaved
rounds and the figure is the median of the per-round ratios of the time per
player, so a machine that slows down for a while slows both sides. A ratio of 1
means pairing costs the same per player at 1,000 as at 10.

Then the league's share of a league played out: a swiss of bot players (King of
Danger) created and played to its end in one process on SQLite (the games settle
inline, so every game is played where the league is run), timing the league's own
work (reading and replaying its log, recording results, pairing, its appends, its
notices, the reaction) against the whole. Goal: at most 5 %.

    PYTHONPATH=. python benchmarks/leagues.py [--rounds 5] [--format swiss ...]
        [--share-players 16] [--share-rounds 4]
"""

from __future__ import annotations

import argparse
import functools
import random
import statistics
import tempfile
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


def league_share(players: int, rounds: int) -> tuple[float, float]:
    """(the league's own seconds, the whole league's seconds) of a bot swiss played out."""
    from referee.leagues import advancing, running
    from referee.leagues.keeping import leagues_of
    from referee.players import accounts
    from referee.store import open_store
    from referee.system import assemble

    spent = [0.0]
    depth = [0]

    def timed(fn):
        @functools.wraps(fn)
        def inner(*a, **kw):
            depth[0] += 1
            start = time.perf_counter()
            try:
                return fn(*a, **kw)
            finally:
                depth[0] -= 1
                if depth[0] == 0:  # count a nested call once
                    spent[0] += time.perf_counter() - start
        return inner

    with tempfile.TemporaryDirectory() as tmp:
        service = assemble(open_store(f"sqlite:///{tmp}/share.db"))
        ids = [accounts.register(service, {"name": f"Bot {i}", "bot": "basic"})["id"]
               for i in range(players)]
        store = leagues_of(service)
        for name in ("append", "owe", "paid", "note_games", "drop_games"):
            setattr(store, name, timed(getattr(store, name)))
        saved = {name: getattr(advancing, name) for name in ("load", "_ended", "_steps", "_forsake", "_tell")}
        for name, fn in saved.items():
            setattr(advancing, name, timed(fn))
        follow = service.followers._reactions
        follow[:] = [(n, timed(r) if n == "leagues" else r) for n, r in follow]
        try:
            start = time.perf_counter()
            league = running.create(service, {"name": "Share", "game": "king-of-danger",
                                              "options": {}, "format": "swiss",
                                              "rounds": rounds, "players": ids})
            whole = time.perf_counter() - start
        finally:
            for name, fn in saved.items():
                setattr(advancing, name, fn)
        assert running.view(service, league["id"])["status"] == "finished"
    return spent[0], whole


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5, help="interleaved rounds (default 5)")
    ap.add_argument("--format", action="append", choices=sorted(GAMES),
                    help="only these formats (default: all)")
    ap.add_argument("--share-players", type=int, default=16)
    ap.add_argument("--share-rounds", type=int, default=4)
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
    own, whole = league_share(args.share_players, args.share_rounds)
    share = own / whole
    print(f"a bot swiss of {args.share_players} over {args.share_rounds} rounds played out: "
          f"{whole:.2f} s, the league's own work {own:.3f} s; share {share:.3f} "
          f"(goal <= 0.05: {'met' if share <= 0.05 else 'NOT met'})")


if __name__ == "__main__":
    main()
