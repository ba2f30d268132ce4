"""A player's current games: a page of them on the profile, and the games waiting on
the player on ``me``, each bounded however many games the player holds a seat in.

The player's index of current games (``PlayerStore.seats``: game id -> seat, kept
small since a game leaves it when it ends) is read whole, then what the games'
listing keeps of each (``Store.glance``: status, creation, the seats to act, the
next clock moment), for all of them in one read: enough to tell which games wait on
the player and to order them, without reading any game's log or record. Only the
games shown are read further: their players' names (one more read for the page),
and, for ``waiting``, each one's summary (its seat's deadline, its players).

The page's order: the games waiting on the player first, then the others, each the
oldest first. Its cursor names the last game shown (whether it waited, when it was
created, its id), so a game that starts or stops waiting on the player while a
client pages may be shown twice or not at all, but no page ever fails.
"""

from __future__ import annotations

from referee.errors import MalformedMove, RefereeError
from referee.games import engine as engine_by_name
from referee.players.store import players_of

PAGE = 50  # current games on a page by default
MAX_PAGE = 200  # the most a client may ask for (``limit``)
WAITING = 50  # the most games waiting on the player that ``me`` lists
OPEN_STATUSES = ("active", "settling")


def _title(game: str) -> str:
    """The game's name as players say it ("King of Danger")."""
    try:
        return engine_by_name(game).title
    except RefereeError:
        return game


def read(service, player_id: str) -> list[tuple]:
    """The player's current games in page order: ``(not waiting, created, id, seat,
    row)`` each, ``row`` being what ``Store.glance`` read of the game. An index entry a
    crash left behind for a game that ended is simply not there."""
    seats = players_of(service).seats(player_id)
    rows = service.store.glance(list(seats))
    out = []
    for gid, seat in seats.items():
        row = rows.get(gid)
        if row is None or row["status"] not in OPEN_STATUSES:
            continue
        to_act = row["to_act"]
        if to_act is None:  # a game not moved since its seats to act were kept: its summary says
            try:
                to_act = service.summary(gid)["to_act"]
            except RefereeError:
                continue
        out.append((seat not in to_act, row["created_at"], gid, seat, row))
    out.sort(key=lambda g: g[:3])
    return out


def cursor(game: tuple) -> str:
    return f"{'o' if game[0] else 'w'}.{game[2]}.{game[1]}"


def _after(text: str) -> tuple:
    kind, _, rest = text.partition(".")
    gid, _, created = rest.partition(".")
    if kind not in ("w", "o") or not gid or not created:
        raise MalformedMove("after is the current_games_next of the page before", field="after")
    return kind == "o", created, gid


def page(service, games: list[tuple], after: str | None = None, limit: int = PAGE) -> tuple[list[dict], str | None]:
    """One page of ``games`` (as ``read`` gives them): those after the cursor
    ``after``, at most ``limit``, each ``{id, game, title, players, seat, status,
    version, created, waiting}``; and the cursor of the next page (None on the last)."""
    if after is not None:
        key = _after(after)
        games = [g for g in games if g[:3] > key]
    shown = games[:limit]
    names = service.store.glance([g[2] for g in shown], players=True)
    out = [{"id": gid, "game": row["game"], "title": _title(row["game"]),
            "players": names.get(gid, {}).get("players", []), "seat": seat, "status": row["status"],
            "version": row["version"], "created": created, "waiting": not rest}
           for rest, created, gid, seat, row in shown]
    return out, (cursor(shown[-1]) if len(games) > limit else None)


def waiting(service, games: list[tuple]) -> list[dict]:
    """Of ``games`` (as ``read`` gives them), those waiting on the player's move, at
    most ``WAITING``: the nearest deadline first, then the games without a clock,
    the oldest first. Where more wait, the ones shown are those whose clocks next
    need looking at first (the seat's reminder or deadline, as the deadline index
    keeps it), so only those are read whole (their summaries, for the deadline)."""
    due = sorted((g for g in games if not g[0]),
                 key=lambda g: (g[4]["timer"] is None, g[4]["timer"] or "", g[1], g[2]))
    out = []
    for _, created, gid, seat, row in due[:WAITING]:
        try:
            summary = service.summary(gid)
        except RefereeError:  # gone meanwhile
            continue
        if seat in summary["to_act"]:
            deadline = [d["deadline"] for d in summary["deadlines"] if d["seat"] == seat]
            out.append({"id": gid, "game": row["game"], "title": _title(row["game"]),
                        "players": summary["players"], "seat": seat,
                        "version": summary["version"], "created": created,
                        "deadline": deadline[0] if deadline else None})
    out.sort(key=lambda g: (g["deadline"] is None, g["deadline"] or "", g["created"], g["id"]))
    return out
