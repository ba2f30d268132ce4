"""Ratings: pure functions from finished games' logs to players' ratings.

A rating is ``{mu, sigma, ordinal, games}``: OpenSkill's Plackett-Luce model
(Weng and Lin's multiplayer Bayesian rating), each seat a team of one, ``ordinal``
being ``mu - 3 sigma`` (the number tables sort by: the skill the player has with
99.7 % confidence) and ``games`` the number of rated games behind it. The model's
parameters are written out below rather than taken from the library's defaults,
so a new release changing a default cannot change anybody's numbers unnoticed.

Nothing here reads a store, a clock or a random source: the same logs in the same
order give the same numbers, to the last bit (JSON keeps every float exactly), which
is what ``referee ratings --check`` relies on.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from referee.events import Event
from referee.table import Table

MU = 25.0
SIGMA = 25.0 / 3.0
BETA = 25.0 / 6.0
KAPPA = 0.0001
TAU = 25.0 / 300.0
Z = 3.0  # ordinal = mu - Z sigma


def _model():
    from openskill.models import PlackettLuce

    return PlackettLuce(mu=MU, sigma=SIGMA, beta=BETA, kappa=KAPPA, tau=TAU)


def initial() -> dict:
    """The rating of a player who has no rated game of a kind yet."""
    return as_rating(MU, SIGMA, 0)


def as_rating(mu: float, sigma: float, games: int) -> dict:
    return {"mu": mu, "sigma": sigma, "ordinal": mu - Z * sigma, "games": games}


# ---- placings ----------------------------------------------------------------------

def _number(score) -> float | None:
    if isinstance(score, bool) or not isinstance(score, int | float):
        return None
    return float(score)


def placings(result: dict, seats: int) -> list[int]:
    """Each seat's place from a game's ``result`` ({winners, reason, scores}): the
    winners share first place; the others follow by score, highest first, equal
    scores sharing a place (competition ranking: 1, 2, 2, 4). A score that is not a
    number counts as equal to every other such score, below every number. The
    seats that left a game that played on (``left``, in the order they left) come
    after every seat still in, whatever their scores, the later leaver above the
    earlier."""
    winners = {w for w in result.get("winners") or [] if isinstance(w, int) and 0 <= w < seats}
    scores = list(result.get("scores") or [])
    scores += [None] * (seats - len(scores))
    left = [s for s in result.get("left") or [] if isinstance(s, int) and 0 <= s < seats]

    def key(seat):  # higher is better
        if seat in left:
            return (-1, float(left.index(seat)))
        n = _number(scores[seat])
        return (0, 0.0) if n is None else (1, n)

    places = []
    rest = [s for s in range(seats) if s not in winners]
    for seat in range(seats):
        if seat in winners:
            places.append(1)
        else:
            ahead = sum(1 for other in rest if key(other) > key(seat))
            places.append(1 + len(winners) + ahead)
    return places


# ---- rating ------------------------------------------------------------------------

def rate(before: list[dict | None], places: list[int]) -> list[dict]:
    """The ratings after one game: ``before`` each seat's rating (None: a first
    game), ``places`` each seat's place (1 is first, ties equal)."""
    if len(before) != len(places) or len(places) < 2:
        raise ValueError("a rated game needs a rating and a place for each of at least two seats")
    model = _model()
    teams = [[model.rating(mu=(r or initial())["mu"], sigma=(r or initial())["sigma"])] for r in before]
    after = model.rate(teams, ranks=[float(p) for p in places])
    return [as_rating(team[0].mu, team[0].sigma, (r or initial())["games"] + 1)
            for team, r in zip(after, before, strict=True)]


# ---- what a log says about its game --------------------------------------------------

def outcome(events: list[Event]) -> dict | None:
    """What rating needs from a game's whole log: its id and game, the player id of
    each seat (None for a seat no player holds: a name or a bot), whether it is
    stacked or created with ``rated: false``, and, once it ended, its result and
    the time of the event that ended it; ``left``: seat -> when it left a game
    that played on (house rule ``on_resign``). None for an empty log.

    A seat's player is the ``player`` of its entry in the created event, or of the
    last ``seat-replaced`` event for it (a seat handed to a bot or a bare name holds
    no player any more). ``rated`` is read from the created event's payload or its
    options."""
    if not events or events[0].type != "game-created":
        return None
    created = events[0].payload
    seats = created.get("seats") or []
    players: list[str | None] = [s.get("player") if isinstance(s, dict) else None for s in seats]
    table = Table.from_created(events[0])
    ended = None
    left: dict[int, str] = {}  # seat -> when it left a game that played on
    for ev in events[1:]:
        if ev.type == "seat-replaced" and isinstance(ev.payload.get("seat"), int) \
                and 0 <= ev.payload["seat"] < len(players):
            players[ev.payload["seat"]] = ev.payload.get("player")
        before = len(table.state.left)
        table.apply(ev, history=events)
        if len(table.state.left) > before:
            left[table.state.left[-1]] = ev.at
        if ended is None and table.state.result is not None:
            ended = ev.at
    rated = created.get("rated", (created.get("options") or {}).get("rated", True))
    return {"id": created.get("id"), "game": created.get("game"), "players": players,
            "stacked": bool(created.get("stacked")), "rated": rated is not False,
            "aborted": bool(table.aborted), "result": table.state.result, "ended_at": ended,
            "left": left}


def eligible(out: dict | None) -> bool:
    """Whether a game is rated: it ended by play (aborted never), every seat is a
    player (each a different one), it is not stacked and not created ``rated: false``."""
    if not out or out["result"] is None or out["aborted"] or out["stacked"] or not out["rated"]:
        return False
    ids = out["players"]
    return len(ids) >= 2 and all(isinstance(p, str) and p for p in ids) and len(set(ids)) == len(ids)


def end_key(out: dict) -> tuple[str, str]:
    """The order games are rated in when nothing else says: when they ended, then id."""
    return (out["ended_at"] or "", out["id"] or "")


def plan(out: dict, before: dict[str, dict | None]) -> dict:
    """What one finished game changes for its players: for each seat with a player,
    its place and whether it won, and (for a rated game) the rating before and after.
    ``before``: each player's rating for this game before it (None: none yet)."""
    seats = len(out["players"])
    places = placings(out["result"], seats)
    winners = set(out["result"].get("winners") or [])
    rated = eligible(out)
    after = rate([before.get(p) for p in out["players"]], places) if rated else None
    entries = []
    for seat, pid in enumerate(out["players"]):
        if not pid:
            continue
        entry = {"player": pid, "seat": seat, "place": places[seat], "won": seat in winners}
        if seat in out.get("left", {}):  # the seat left the game while it played on: when
            entry["left_at"] = out["left"][seat]
        if rated:
            entry["before"] = before.get(pid) or initial()
            entry["after"] = after[seat]
        entries.append(entry)
    return {"game_id": out["id"], "game": out["game"], "ended_at": out["ended_at"], "rated": rated,
            "players": entries}


def recompute(logs: Iterable) -> dict[str, dict[str, dict]]:
    """Every player's rating per game, from finished games' logs in the order they
    ended (each log a list of events, or JSON Lines text as exported); games that
    are not rated are passed over. Returns {player: {game: rating}}."""
    ratings: dict[str, dict[str, dict]] = {}
    for log in logs:
        if isinstance(log, str | bytes):
            log = [Event.from_dict(json.loads(line)) for line in log.splitlines() if line.strip()]
        out = outcome(log)
        if not eligible(out):
            continue
        made = plan(out, {p: ratings.get(p, {}).get(out["game"]) for p in out["players"]})
        for entry in made["players"]:
            ratings.setdefault(entry["player"], {})[out["game"]] = entry["after"]
    return ratings
