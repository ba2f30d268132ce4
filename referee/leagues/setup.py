"""A league's terms, checked and completed: what its first event records.

Every refusal is a ``MalformedMove`` naming the field, as the API answers it
(400 ``malformed``). The checks need the game's engine only to learn which
options it takes and at how many seats (``seat_counts``): the league plays
every game with the same options, so they must suit every table it can seat.
"""

from __future__ import annotations

import copy
import math
from fractions import Fraction

from referee import clock as clockmod
from referee.games import engine as engine_by_name
from referee.games.base import MalformedMove, RefereeError

FORMATS = ("round-robin", "swiss", "tables")
# A league is paired in one referee job: 1,000 players pair in seconds (see
# benchmarks/leagues.py); more would make that job, and the audit, long.
MAX_PLAYERS = 1000
MAX_ROUNDS = 100
MAX_CYCLES = 4
MAX_POINTS = 1000
NAME_LENGTH = 100
DEFAULT_POINTS = {"win": 1, "draw": 0.5, "loss": 0}
DEFAULT_TABLE_SIZE = 4
# League versions: 1, created with every player in (before players had to agree);
# 2, created with invitations that each player accepts or declines, and started by
# its organiser with those who joined. The first event says which (none: 1).
LEAGUE_VERSION = 2
ENTRIES = ("invited", "open")
# Options a league game may not have: a fixed seed or deck would deal every game of
# the league alike; who sits first is the pairing's to say (seat 0); the clock is
# the league's own ``clock`` field, given to every game.
LEAGUE_DECIDES = ("seed", "deck", "personality_deck", "event_deck", "first_player",
                  "first_dealer", "clock")


def text_field(value, field: str, what: str) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > NAME_LENGTH:
        raise MalformedMove(f"{what} must be text of 1 to {NAME_LENGTH} characters", field=field)
    return value


def player_entry(entry, field: str) -> dict:
    """``{player, name}``: a player's id and the name their seats take."""
    if not isinstance(entry, dict) or set(entry) != {"player", "name"}:
        raise MalformedMove("a league player is {player, name}", field=field)
    return {"player": text_field(entry["player"], f"{field}.player", "a player id"),
            "name": text_field(entry["name"], f"{field}.name", "a player's name")}


def check_players(players, field: str = "players") -> list[dict]:
    if not isinstance(players, list):
        raise MalformedMove(f"{field} must be a list of players", field=field)
    if len(players) > MAX_PLAYERS:
        raise MalformedMove(f"a league has at most {MAX_PLAYERS} players", field=field)
    out = [player_entry(p, f"{field}[{i}]") for i, p in enumerate(players)]
    seen = set()
    for i, p in enumerate(out):
        if p["player"] in seen:
            raise MalformedMove(f"player {p['player']!r} is listed twice", field=f"{field}[{i}]")
        seen.add(p["player"])
    return out


def swiss_rounds(players: int) -> int:
    """A swiss league's rounds where none were asked: enough for one clear winner."""
    return max(1, math.ceil(math.log2(max(players, 1))))


def _invitations(players: list[dict], invited, entry, organiser) -> dict:
    """A version 2 league's own terms: whom it invites, who may join, who organises."""
    invited = check_players(invited if invited is not None else [], "invited")
    entry = "invited" if entry is None else entry
    if entry not in ENTRIES:
        raise MalformedMove(f"entry is one of {', '.join(ENTRIES)}", field="entry")
    inside = {p["player"] for p in players}
    for i, p in enumerate(invited):
        if p["player"] in inside:
            raise MalformedMove(f"player {p['player']!r} is listed twice", field=f"invited[{i}]")
    if len(players) + len(invited) > MAX_PLAYERS:
        raise MalformedMove(f"a league has at most {MAX_PLAYERS} players", field="players")
    return {"league_version": LEAGUE_VERSION, "invited": invited, "entry": entry,
            "organiser": text_field(organiser, "organiser", "the organiser's player id")}


def number(value) -> Fraction:
    """A JSON number as an exact fraction: 0.5 is 1/2, not its binary neighbour."""
    return Fraction(repr(value)) if isinstance(value, float) else Fraction(value)


def check_points(points) -> dict:
    """``{win, draw, loss}`` complete: 0 <= loss <= draw <= win, win > loss."""
    if points is None:
        return dict(DEFAULT_POINTS)
    if not isinstance(points, dict):
        raise MalformedMove("points must be an object {win, draw, loss}", field="points")
    unknown = set(points) - set(DEFAULT_POINTS)
    if unknown:
        raise MalformedMove(f"points has win, draw and loss, not {sorted(unknown)[0]!r}",
                            field=f"points.{sorted(unknown)[0]}")
    out = {**DEFAULT_POINTS, **points}
    for key, value in out.items():
        if (isinstance(value, bool) or not isinstance(value, int | float)
                or not math.isfinite(value) or not 0 <= value <= MAX_POINTS):
            raise MalformedMove(f"points.{key} must be a number from 0 to {MAX_POINTS}",
                                field=f"points.{key}")
    if not number(out["loss"]) <= number(out["draw"]) <= number(out["win"]):
        raise MalformedMove("points must not reward a draw above a win or a loss above a draw",
                            field="points.draw")
    if number(out["win"]) == number(out["loss"]):
        raise MalformedMove("a win must earn more than a loss", field="points.win")
    return out


def _counted(value, field: str, low: int, high: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise MalformedMove(f"{what} must be a whole number from {low} to {high}", field=field)
    return value


def _options_error(err: RefereeError) -> MalformedMove:
    field = err.extra.get("field") or "options"
    if not field.startswith("options") and field != "game":
        field = f"options.{field}"
    return MalformedMove(err.detail, field=field)


def seat_counts(game: str, options: dict) -> list[int]:
    """The numbers of seats ``game`` can be played at with ``options`` (raises the
    engine's refusal, as a ``MalformedMove``, when it takes these options at none)."""
    try:
        eng = engine_by_name(game)
    except RefereeError as err:
        raise _options_error(err) from None
    counts, last = [], None
    for n in range(eng.min_players, eng.max_players + 1):
        try:
            eng.setup(copy.deepcopy(options), n)
        except RefereeError as err:
            last = err
            continue
        counts.append(n)
    if not counts:
        raise _options_error(last)
    return counts


def game_options(terms: dict, seats: int) -> dict:
    """The options a game of this league at ``seats`` seats is created with (as its
    first event records them: complete, the league's clock among them)."""
    eng = engine_by_name(terms["game"])
    opts = eng.setup(copy.deepcopy(terms["options"]), seats)
    if terms["clock"] is not None:
        opts["clock"] = dict(terms["clock"])
    return opts


def league_terms(name=None, game=None, options=None, format=None, players=None, rounds=None,
                 table_size=None, cycles=None, clock=None, points=None, league_version=None,
                 invited=None, entry=None, organiser=None) -> dict:
    """The league's complete terms (the payload of ``league-created`` but its id and
    seed commitment), or ``MalformedMove`` naming the first field at fault.

    ``league_version`` 2 (``LEAGUE_VERSION``): ``players`` are those in from the
    start (the organiser playing, bot players), ``invited`` those asked to join,
    ``entry`` ``"open"`` lets anyone join; too few players is the start's refusal,
    not the creation's, and a swiss league's default rounds follow from those who
    joined (``pairing.planned_rounds``). None: a league as created before, every
    player in."""
    if league_version is not None and league_version != LEAGUE_VERSION:
        raise MalformedMove(f"league_version is {LEAGUE_VERSION} or absent", field="league_version")
    if league_version is None and (invited, entry, organiser) != (None, None, None):
        raise MalformedMove("invited, entry and organiser are a league_version 2 league's",
                            field="league_version")
    name = text_field(name, "name", "a league's name")
    if not isinstance(game, str):
        raise MalformedMove("game must be a game's id", field="game")
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise MalformedMove("options must be an object", field="options")
    for key in LEAGUE_DECIDES:
        if key in options:
            raise MalformedMove(f"a league sets {key} itself (the league's clock is its own field)",
                                field=f"options.{key}")
    if format not in FORMATS:
        raise MalformedMove(f"format is one of {', '.join(FORMATS)}", field="format")
    counts = seat_counts(game, options)
    players = check_players(players)
    clock = clockmod.check_clock(clock)
    points = check_points(points)
    two = format in ("round-robin", "swiss")
    if two and 2 not in counts:
        raise MalformedMove(f"{format} pairs players two by two; {game} with these options "
                            f"is played at {counts[0]} to {counts[-1]} seats", field="format")
    if format == "tables" and counts[-1] < 3:
        raise MalformedMove(f"tables seats three or more; {game} is played by two", field="format")
    if format != "round-robin" and cycles is not None:
        raise MalformedMove("cycles is for round-robin", field="cycles")
    if format != "tables" and table_size is not None:
        raise MalformedMove("table_size is for tables", field="table_size")
    if format == "round-robin" and rounds is not None:
        raise MalformedMove("a round-robin plays every pair: its rounds follow from its players",
                            field="rounds")
    sizes = [n for n in counts if n >= 3] if format == "tables" else [2]
    least = 2 if two else sizes[0]
    if league_version is None and len(players) < least:
        raise MalformedMove(f"a {format} league of {game} needs at least {least} players",
                            field="players")
    terms = {"name": name, "game": game, "options": copy.deepcopy(options), "format": format,
             "players": players, "clock": clock, "points": points, "seat_counts": sizes,
             "rounds": None, "table_size": None, "cycles": None}
    if league_version is not None:
        terms.update(_invitations(players, invited, entry, organiser))
    if format == "round-robin":
        terms["cycles"] = 1 if cycles is None else _counted(cycles, "cycles", 1, MAX_CYCLES,
                                                             "cycles")
        return terms
    if rounds is None and two and league_version is not None:
        pass  # swiss: known once the players are (pairing.planned_rounds)
    elif rounds is None:  # swiss: enough rounds for one clear winner; tables: three
        rounds = swiss_rounds(len(players)) if two else 3
    if rounds is not None:
        terms["rounds"] = _counted(rounds, "rounds", 1, MAX_ROUNDS, "rounds")
    if format == "tables":
        if table_size is None:
            table_size = min(sizes, key=lambda n: (abs(n - DEFAULT_TABLE_SIZE), n))
        _counted(table_size, "table_size", 3, sizes[-1], "table_size")
        if table_size not in sizes:
            raise MalformedMove(f"{game} with these options is played at {sizes[0]} to "
                                f"{sizes[-1]} seats", field="table_size")
        terms["table_size"] = table_size
    return terms
