"""The player layer following games: who sits where, and a finished game's ratings.

Two reactions to the service's appends (subscribed in referee/system.py):

* ``seats``: a game created with ``{"player": ID}`` seats notes each player's seat
  in the player's index of current games (``PlayerStore.seat_in``), at once: one
  small write per player seat, so a profile lists the game as soon as it exists.
* ``ratings``: when an append ends a game (the seed's reveal: the log is final) or
  aborts it, or gives a seat to someone else, it queues the ``ratings`` job. The
  job re-reads the log and does, idempotently, what the game now asks of its
  players: ``results.rate_game`` (exactly once, even when run twice or after a
  crash) and the index of current games brought in line with the log (a player
  whose seat was given away, or whose game is over, holds it no more).

A process killed between a game's end and its job loses nothing: ``catch_up``
(run by ``referee worker`` and ``referee serve`` when they start) records every
finished game that no job recorded. A seat index entry left behind by a crash is
harmless: a profile shows only games whose record is still open, active or
settling.
"""

from __future__ import annotations

import logging
import threading

from referee.appended import Appended
from referee.players import results
from referee.players.store import players_of
from referee.queue import JobKind

log = logging.getLogger("referee.players")

# the events after which the game asks something of its players' records
ENDS = ("seed-revealed", "game-aborted")
CHANGES = ENDS + ("seat-replaced",)


def holders(events) -> tuple[dict[int, str], set[str]]:
    """From a game's log: {seat: player id} now, and every player who ever held a seat."""
    seats = events[0].payload.get("seats") or []
    now = {i: s["player"] for i, s in enumerate(seats) if isinstance(s, dict) and s.get("player")}
    ever = set(now.values())
    for ev in events[1:]:
        if ev.type == "seat-replaced" and isinstance(ev.payload.get("seat"), int):
            now.pop(ev.payload["seat"], None)
            if ev.payload.get("player"):
                now[ev.payload["seat"]] = ev.payload["player"]
                ever.add(ev.payload["player"])
    return now, ever


def run_ratings(service, game_id: str) -> dict:
    """The ``ratings`` job: record the game if it is finished (once), and bring its
    players' indexes of current games in line with the log."""
    rec = service.store.record(game_id)
    if rec is None or (rec.status in ("finished", "aborted")
                       and not results.may_seat_players(service.store, game_id)):
        # most games end seating no player: nothing to record, no index to mend (an
        # entry left by a seat given away earlier shows only while its game is open)
        return {"rated": False, "recorded": False}
    players = players_of(service)
    made = results.rate_game(service.store, players, game_id)
    rec = service.store.record(game_id)
    if rec is None:
        return {"rated": False}
    now, ever = holders(service.store.events(game_id))
    over = rec.status in ("finished", "aborted")
    for pid in ever:
        seat = next((s for s, p in now.items() if p == pid), None)
        if over or seat is None:
            players.unseat(pid, game_id)
        else:
            players.seat_in(pid, game_id, seat)
    return {"rated": made is not None and bool(made.get("rated")), "recorded": made is not None}


RATINGS = JobKind("ratings", run_ratings, timeout=120)


def seats(service):
    """The reaction noting a new game's player seats."""
    def follow(appended: Appended) -> None:
        if appended.cause != "created":
            return
        payload = appended.events[0].payload
        for i, s in enumerate(payload.get("seats") or []):
            if isinstance(s, dict) and s.get("player"):
                players_of(service).seat_in(s["player"], appended.game_id, i)
    return follow


def ratings(service):
    """The reaction queueing the ``ratings`` job when a game ends or a seat changes hands."""
    def follow(appended: Appended) -> None:
        for t in appended.types:  # most appends are one move: a tuple of one or two
            if t in CHANGES:
                service.queue.enqueue(RATINGS.name, appended.game_id)
                return
    return follow


def catch_up(service) -> int:
    """Record every finished game no job recorded (a process killed between a game's
    end and its job); harmless to run at any time and in several processes."""
    n = results.catch_up(service.store, players_of(service))
    if n:
        log.warning("ratings: %d finished game(s) no job had recorded were recorded now", n)
    return n


def start_catch_up(service) -> threading.Thread:
    """``catch_up`` on a thread of its own, so a process starts serving at once."""
    def run():
        try:
            catch_up(service)
        except Exception:  # logged; the next start tries again, ``referee ratings --catch-up`` too
            log.exception("ratings: the catch-up failed")
    thread = threading.Thread(target=run, name="ratings-catch-up", daemon=True)
    thread.start()
    return thread
