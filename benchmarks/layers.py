"""What this wave's layers cost a move: accepted moves/s with each layer against
the same referee without it. Goal for each: with / without >= 0.97.

One referee on a SQLite file, as `referee serve` assembles it
(``referee.system.assemble``, embedded queue), in this process. Each side of a
round plays the same moves (``benchmarks/run.py``'s ``peaceful_moves``) on a
fresh Castle Danger game, as the API does a move: the caller from the seat's
bearer token (``GameService.caller(..., kept=True)``, every stored token hash
compared) and then ``GameService.submit``. Only the layer differs between the two
sides; the store, caches and process are the same (two referees side by side
differed by up to 20 % with nothing different in them, on a shared host:
benchmarks/players_follow.py). The
rounds are interleaved, the side that goes first alternating, and the figure is
the median of the per-round ratios with / without; many short rounds (a fraction
of a second each), so a busy moment of a shared host spoils few of them. 81 of
them: with 41, a layer whose reactions take 0.4 % of a move read 0.962 once in
seven runs on 2026-11-24, and 0.977 to 0.997 otherwise; with 81, 0.992 to 0.999.

The usual game: two registered players seated as ``{"player": ID}``, no contacts.
The layers:

* players: the reactions ``player-seats`` and ``ratings`` (``subscribe_players``)
  taken out of the followers for the "without" side (benchmarks/players_follow.py
  measures the same, without the token check);
* leagues: the ``leagues`` reaction taken out, on the usual game (not a league's)
  and on a league's game (a fresh round-robin of the two players each time,
  created by ``referee.leagues.running.create``; its one game played by the
  players' own tokens);
* links: every seat with a token gets a page link at creation (one more token
  hash per seat, ``entries.register_on_tokens("links", ...)``), contacts or none;
  the "without" side is a game created with that derivation unregistered for the
  moment (the same entries otherwise), so its record holds no link hashes;
* notices: the ``notices`` reaction taken out, on the usual game (the reaction's
  check only: nobody to tell); shown beside it, not a goal, a game created with
  e-mail contacts, where the embedded queue runs the outbox's sweep in the
  appending thread after every move (each seat to act gets a notice per version;
  on RQ the sweep is a worker's job).

For the reactions, the seconds spent inside them on the "with" side are printed
too (per move).

    PYTHONPATH=. python benchmarks/layers.py [--rounds 81] [--moves 150] [--layer NAME ...]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = str(Path(__file__).resolve().parent.parent)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

GAME = "castle-danger"
SEED = "bench"
GOAL = 0.97
PLAYERS = ("player-seats", "ratings")
LAYERS = ("players", "leagues", "leagues-league-game", "links", "notices", "notices-contacts")


class Bench:
    """One referee on SQLite, its two registered players and the moves to play."""

    def __init__(self, moves: int):
        from benchmarks.run import peaceful_moves
        from referee.players import accounts
        from referee.queue import InlineQueue
        from referee.store import open_store
        from referee.system import assemble

        self.dir = tempfile.TemporaryDirectory(prefix="referee-layers-bench-")
        self.service = assemble(open_store(f"sqlite:///{self.dir.name}/referee.db"), InlineQueue())
        self.players = [accounts.register(self.service, {"name": n}) for n in ("Ann", "Bob")]
        self.plan = peaceful_moves(2 * moves, SEED)[2][:moves]  # a move is one event or a few
        self.followers = self.service.followers._reactions  # as assembled, in order
        self.assembled = list(self.followers)
        self.spent = 0.0  # seconds inside the timed reactions

    def close(self) -> None:
        self.followers[:] = self.assembled
        self.service.store.close()
        self.dir.cleanup()

    # ---- the followers of each side ----

    def timed(self, names) -> list:
        """The followers as assembled, the reactions ``names`` timed."""
        def wrap(reaction):
            def inner(appended):
                t = time.perf_counter()
                reaction(appended)
                self.spent += time.perf_counter() - t
            return inner
        return [(n, wrap(r) if n in names else r) for n, r in self.assembled]

    def without(self, names) -> list:
        out = [(n, r) for n, r in self.assembled if n not in names]
        assert len(out) == len(self.assembled) - len(names), (names, [n for n, _ in self.assembled])
        return out

    # ---- the games ----

    def usual(self, links: bool = True) -> tuple[str, list[str]]:
        """A new game of the two players (dealt); its id and the seats' tokens.
        ``links=False``: created with the page links' derivation unregistered."""
        from referee import entries

        derive = None if links else entries.ON_TOKENS.pop("links")
        try:
            made = self.service.create(GAME, [{"player": p["id"]} for p in self.players],
                                       {"seed": SEED})
        finally:
            if derive is not None:
                entries.ON_TOKENS["links"] = derive
        gid = made["id"]
        self.service.settle(gid)
        rec = self.service.store.record(gid)
        assert bool(rec.extra.get("links")) == links, rec.extra
        return gid, [s["token"] for s in made["seats"]]

    def with_contacts(self) -> tuple[str, list[str]]:
        made = self.service.create(GAME, [{"name": "Ann", "email": "ann@example.org"},
                                          {"name": "Bob", "email": "bob@example.org"}],
                                   {"seed": SEED})
        self.service.settle(made["id"])
        return made["id"], [s["token"] for s in made["seats"]]

    def league_game(self) -> tuple[str, list[str]]:
        """A fresh round-robin of the two players: its one game, and the tokens that
        play its seats (the players' own)."""
        from referee.leagues import running

        league = running.create(self.service, {"name": "Bench", "game": GAME, "options": {},
                                               "format": "round-robin",
                                               "players": [p["id"] for p in self.players]})
        gid = league["rounds"][0]["games"][0]["game"]
        self.service.settle(gid)
        rec = self.service.store.record(gid)
        assert rec.extra.get(running.MARK) == league["id"], rec.extra
        token_of = {p["name"]: p["token"] for p in self.players}
        return gid, [token_of[name] for name in rec.players]

    # ---- a side ----

    def play(self, gid: str, tokens: list[str], plan=None) -> float:
        """Seconds to have every move of the plan accepted, each as the API does it."""
        service = self.service
        start = time.perf_counter()
        for seat, move in plan or self.plan:
            service.submit(gid, service.caller(gid, tokens[seat], kept=True), {"move": move})
        return time.perf_counter() - start


def sides(bench: Bench, layer: str) -> tuple[dict, tuple]:
    """{"with": (followers, make a game), "without": ...} and the reactions timed."""
    usual = bench.usual
    if layer == "players":
        return {"with": (bench.timed(PLAYERS), usual), "without": (bench.without(PLAYERS), usual)}, PLAYERS
    if layer in ("leagues", "leagues-league-game"):
        make = usual if layer == "leagues" else bench.league_game
        return {"with": (bench.timed(("leagues",)), make),
                "without": (bench.without(("leagues",)), make)}, ("leagues",)
    if layer == "links":
        return {"with": (bench.assembled, usual),
                "without": (bench.assembled, lambda: bench.usual(links=False))}, ()
    if layer in ("notices", "notices-contacts"):
        make = usual if layer == "notices" else bench.with_contacts
        return {"with": (bench.timed(("notices",)), make),
                "without": (bench.without(("notices",)), make)}, ("notices",)
    raise ValueError(layer)


def compare(bench: Bench, layer: str, rounds: int) -> dict:
    """Interleaved rounds of the layer's two sides: moves/s of each, the ratios, and
    the seconds a move spent in the timed reactions (on the "with" side)."""
    both, timed = sides(bench, layer)
    rates: dict[str, list[float]] = {"with": [], "without": []}
    ratios = []
    inside = 0.0
    try:
        for name in ("with", "without"):  # warm: imports, caches, the file's first pages
            bench.followers[:] = both[name][0]
            bench.play(*both[name][1](), bench.plan[:50])
        for k in range(rounds):
            order = ("with", "without") if k % 2 == 0 else ("without", "with")
            got = {}
            for name in order:
                reactions, make = both[name]
                bench.followers[:] = reactions
                game = make()
                before = bench.spent  # the reactions' time at creation and the deal left out
                got[name] = len(bench.plan) / bench.play(*game)
                if name == "with":
                    inside += bench.spent - before
                rates[name].append(got[name])
            ratios.append(got["with"] / got["without"])
    finally:
        bench.followers[:] = bench.assembled
    return {"rates": rates, "ratios": ratios,
            "per_move": inside / (rounds * len(bench.plan)) if timed else None}


TITLES = {"players": "players layer (player-seats, ratings)",
          "leagues": "leagues reaction, a game no league's",
          "leagues-league-game": "leagues reaction, a league's game",
          "links": "seats' page links (a link token hash per seat)",
          "notices": "notices reaction, a game without contacts",
          "notices-contacts": "notices reaction, a game with e-mail contacts (sweep inline)"}
GOAL_NAMES = {"players": "players layer", "leagues": "leagues reaction (usual game)",
              "leagues-league-game": "leagues reaction (league game)", "links": "page links",
              "notices": "notices reaction (no contacts)"}


def section(rounds: int, moves: int, layers=LAYERS) -> dict[str, float]:
    """Measure and print each layer; returns {layer: ratio}."""
    from benchmarks.run import med, verdict

    bench = Bench(moves)
    out = {}
    try:
        print(f"this wave's layers: accepted moves/s with / without each (sqlite, in process, "
              f"token checked; median of {rounds} interleaved rounds of {len(bench.plan)} moves)")
        for layer in layers:
            got = compare(bench, layer, rounds)
            ratio = out[layer] = med(got["ratios"])
            inside = ""
            if got["per_move"] is not None:
                share = got["per_move"] * med(got["rates"]["with"])
                inside = (f"; inside the reaction{'s' if layer == 'players' else ''} "
                          f"{got['per_move'] * 1e6:.1f} us a move ({share * 100:.1f} % of it)")
            print(f"  {TITLES[layer]}: with {med(got['rates']['with']):7.1f}, without "
                  f"{med(got['rates']['without']):7.1f} moves/s{inside}")
            if layer in GOAL_NAMES:
                print(f"  GOAL {GOAL_NAMES[layer]} moves/s with / without: {ratio:5.3f}   "
                      f"(goal >= {GOAL:.2f}: {verdict(ratio, GOAL)})")
            else:
                print(f"  notices reaction (contacts) moves/s with / without: {ratio:5.3f}   (shown only: "
                      f"each move's notice written in the move's thread, no goal)")
    finally:
        bench.close()
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=81)
    ap.add_argument("--moves", type=int, default=150)
    ap.add_argument("--layer", action="append", choices=LAYERS, help="only these (default: all)")
    args = ap.parse_args(argv)
    section(args.rounds, args.moves, args.layer or LAYERS)


if __name__ == "__main__":
    main()
