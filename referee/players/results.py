"""Recording finished games for their players: the rating job and its check.

``rate_game(store, players, game_id)`` is the job a game's end triggers: it reads
the game's log through the game store, works out what the game changes for each
player holding a seat (games played and won; for a rated game, the ratings) and
records it exactly once (referee/players/store.py ``record``). Run twice, retried
after a crash, or racing another job, it records the game once; a game recorded
meanwhile by another job only makes it read the ratings again.

``check(store, players)`` recomputes every rating from the recorded games' logs, in
the order they were recorded, and lists each difference with the stored ratings
(``referee ratings --check``).
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator

from referee.players import ratings
from referee.players.store import Conflict, PlayerStore


def rate_game(store, players: PlayerStore, game_id: str, retries: int = 64) -> dict | None:
    """Record a finished game for its players, once. Returns the plan this call
    recorded ({game_id, game, ended_at, rated, players: [{player, seat, place, won,
    before?, after?}]}), or None when there is nothing to record: no such game, not
    finished (an aborted game never is), no seat held by a player, or recorded
    already (by an earlier run of this job or another)."""
    rec = store.record(game_id)
    if rec is None or rec.status != "finished":
        return None
    if players.recorded(game_id) is not None:
        players.finish_pending()  # the earlier run may have died half-way: finish it
        return None
    out = ratings.outcome(store.events(game_id))
    if out is None or out["result"] is None or out["aborted"] or not any(out["players"]):
        return None
    ids = sorted({p for p in out["players"] if p})
    for _ in range(retries):
        players.finish_pending()
        order, pending, before = players.rating_read(ids, out["game"])
        if pending is not None:  # another job's recording under way: help it, then read again
            continue
        made = ratings.plan(out, before)
        try:
            if not players.record(made, order):
                return None
        except Conflict:
            continue
        return made
    raise RuntimeError(f"game {game_id}: other recordings kept coming first")


# How far before the oldest running game the catch-up's mark is put: games are
# stamped by the clocks of many machines, which may disagree (generously) this much.
CLOCK_MARGIN = datetime.timedelta(hours=1)


def catch_up(store, players: PlayerStore, everything: bool = False) -> int:
    """Record every finished game not recorded yet, in the order they ended (a
    repair after jobs were lost; harmless to run at any time). Returns how many.

    Incremental, so that a process's start does not read every game ever: the
    games created before the mark the last catch-up kept (``caught_up``) had all
    ended, and were looked at, then; an ended game stays ended, so they are not
    read again. The new mark is the creation of the oldest game still running
    (active or settling, read before the finished ones, so that a game ending
    meanwhile is found among those), less ``CLOCK_MARGIN``. ``everything``:
    read every finished game, whatever the mark (``referee ratings --catch-up``)."""
    running = [row["created_at"] for status in ("active", "settling") for row in store.games(status=status)]
    now = datetime.datetime.now(datetime.UTC)
    mark = _stamp(min([_time(t) for t in running] + [now]) - CLOCK_MARGIN)
    since = None if everything else players.caught_up()
    waiting = []
    for row in _finished(store, since):
        if players.recorded(row["id"]) is None and may_seat_players(store, row["id"]):
            out = ratings.outcome(store.events(row["id"]))
            if out is not None and any(out["players"]):
                waiting.append((ratings.end_key(out), row["id"]))
    n = sum(1 for _, gid in sorted(waiting) if rate_game(store, players, gid) is not None)
    if since is None or mark > since:  # only once every game before it is recorded
        players.mark_caught_up(mark)
    return n


def _finished(store, since: str | None) -> Iterator[dict]:
    """The finished games, newest created first, down to those created before ``since``."""
    after = None
    while True:
        page, after = store.page("finished", 500, after)
        for row in page:
            if since is not None and row["created_at"] < since:
                return
            yield row
        if after is None:
            return


def _time(stamp: str) -> datetime.datetime:
    return datetime.datetime.fromisoformat(stamp.replace("Z", "+00:00"))


def _stamp(t: datetime.datetime) -> str:
    """A time written as the games' creation times are (referee/events.py ``utcnow``)."""
    return t.astimezone(datetime.UTC).isoformat(timespec="microseconds")[:-6] + "Z"


def may_seat_players(store, game_id: str) -> bool:
    """Whether a game can hold a player's seat, read without its log (most games
    seat none, and the catch-up runs whenever a worker starts): its creation names a
    player, or a seat was given to one since (the record keeps that seat's player)."""
    first = store.events(game_id, limit=1)
    if first and any(isinstance(s, dict) and s.get("player") for s in first[0].payload.get("seats") or []):
        return True
    rec = store.record(game_id)
    kept = (rec.extra.get("contacts") or {}) if rec is not None else {}
    return any(isinstance(c, dict) and c.get("player") for c in kept.values())


def _logs(store, game_ids: list[str]) -> Iterator[list]:
    for gid in game_ids:  # one log at a time: a check of 100,000 games holds one
        yield store.events(gid)


def check(store, players: PlayerStore) -> list[str]:
    """Every difference between the stored ratings and the ratings recomputed from
    the logs of the games recorded, in their recorded order; also a finished game
    that should have been rated and was not. Empty: all match, to the last bit."""
    players.finish_pending()
    recorded = players.recorded_games()
    rated = [gid for gid, marker in recorded if marker.get("rated")]
    differences = []
    missing = [gid for gid in rated if store.record(gid) is None]
    differences += [f"game {gid}: rated, but the game store has no such game" for gid in missing]
    wanted = ratings.recompute(_logs(store, [gid for gid in rated if gid not in missing]))
    stored = players.all_ratings()
    for pid in sorted(set(wanted) | set(stored)):
        mine, theirs = stored.get(pid, {}), wanted.get(pid, {})
        for game in sorted(set(mine) | set(theirs)):
            if mine.get(game) != theirs.get(game):
                differences.append(f"player {pid}, {game}: stored {mine.get(game)}, "
                                   f"recomputed {theirs.get(game)}")
    known = {gid for gid, _ in recorded}
    for row in store.games(status="finished"):
        if row["id"] not in known:
            out = ratings.outcome(store.events(row["id"]))
            if ratings.eligible(out):
                differences.append(f"game {row['id']}: finished and rated by the rules, but not recorded")
    return differences
