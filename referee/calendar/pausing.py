"""Vacations into the games: a player's bookings (referee/calendar/booking.py)
become ``clock-paused`` / ``clock-resumed`` events in each of their games' logs
(referee/vacations.py), so every deadline stays a function of the log.

Who writes what, and when:

* a booking's start: the keeper's round (``round``) finds the player in the
  starts' index and pauses the seat in each of their games with a clock; the
  player's entry moves on only after that, so a process killed half way leaves it
  due, and the next round writes what is missing (a seat already paused is left);
* a booking's end: the pause's ``until`` is the game's own timer (referee/clock.py,
  ``resume``), fired by the game's tick like a deadline;
* a cancellation: the seats paused for it are resumed at once;
* a game that starts, or a seat taken, during the player's vacation: paused at once
  (``follow``);
* auto vacation: at a deadline that would pass (the tick asks ``before_timeout``),
  a day of the allowance is drawn (once for that deadline, however often the tick
  runs) and the seat paused from its deadline for a day.

Each event is appended compare-and-set; a move that lands first is read and the
decision taken again.
"""

from __future__ import annotations

import logging

from referee import vacations
from referee.calendar import booking
from referee.calendar.settings import complete
from referee.caller import Caller
from referee.clock import format_at, parse_at
from referee.errors import RefereeError, VersionConflict
from referee.events import utcnow
from referee.games.base import ADMIN
from referee.players.store import players_of

log = logging.getLogger("referee.calendar")
TRIES = 5


def seated(events, seat: int) -> str | None:
    """The player id holding ``seat`` after ``events`` (None: a name or a bot)."""
    pid = next((s.get("player") for s in events[0].payload.get("seats") or [] if s.get("seat") == seat), None)
    for ev in events[1:]:
        if ev.type == "seat-replaced" and ev.actor == "referee" and ev.payload.get("seat") == seat:
            pid = ev.payload.get("player")
    return pid


class Vacations:
    """The calendar's vacations as the service is handed them (referee/system.py)."""

    def __init__(self, service, store, calendar_store):
        self.service, self.store, self.calendar_store = service, store, calendar_store

    # ---- the player's requests ---------------------------------------------------

    def book(self, player_id: str, body, now: str | None = None) -> dict:
        if not isinstance(body, dict) or set(body) - {"from", "to"}:
            raise RefereeError("a vacation is {from, to}", field="body")
        first, last = booking.parse_date(body.get("from"), "from"), booking.parse_date(body.get("to"), "to")
        now = now or utcnow()
        allowed = booking.allowance()
        made = self.store.change(player_id, lambda rec: booking.book(rec, first, last, now, allowed),
                                 timer=lambda rec: booking.next_start(rec, now) or _under_way(rec, now))
        if made["start"] <= now:  # under way at once: the games are paused now
            self.sync_games(player_id, now)
        return {**self.shown(player_id, now), "booked": {"from": made["from"], "to": made["to"]}}

    def cancel(self, player_id: str, now: str | None = None, last=None) -> dict:
        """Cancel what is not yet over, or with ``last`` (a date) shorten the
        booking that holds it to end on it: its pauses then end the day after."""
        now = now or utcnow()
        if last is not None:
            day = booking.parse_date(last, "to")
            made = self.store.change(player_id, lambda rec: booking.shorten(rec, day, now),
                                     timer=lambda rec: booking.next_start(rec, now) or _under_way(rec, now))
            if made["start"] <= now:  # under way: each pause's end is moved
                self.sync_games(player_id, now)
            return self.shown(player_id, now)
        cut = self.store.change(player_id, lambda rec: booking.cancel(rec, now),
                                timer=lambda rec: booking.next_start(rec, now))
        if cut:
            self.sync_games(player_id, now)
        return self.shown(player_id, now)

    def shown(self, player_id: str, now: str | None = None) -> dict:
        return booking.shown(self.store.record(player_id), now or utcnow(), booking.allowance())

    def on_vacation_until(self, player_id: str, now: str | None = None) -> str | None:
        return booking.on_vacation_until(self.store.record(player_id), now or utcnow())

    # ---- the games' logs -----------------------------------------------------------

    def sync_games(self, player_id: str, now: str) -> bool:
        """Every game of the player's as their bookings say; False when one must
        wait (a deadline that passed before the vacation began times out first)."""
        done = True
        for game_id, seat in players_of(self.service).seats(player_id).items():
            done = self.sync_seat(game_id, seat, player_id, now) is not None and done
        return done

    def sync_seat(self, game_id: str, seat: int, player_id: str, now: str) -> bool | None:
        """Make the seat's pause in the game's log what the player's bookings say at
        ``now``: paused for the booking under way, resumed from one cancelled. True
        when an event was written; None when the seat's deadline passed before the
        vacation began and its timeout (the game's tick) must come first."""
        under_way = booking.current(self.store.record(player_id), now)
        for _ in range(TRIES):
            rec = self.service.record(game_id)
            table = self.service.load(game_id, rec)
            if table.over or table.clock is None:
                return False
            away = table.away.get(seat)
            if under_way is not None:
                until = booking.until_of(under_way)
                if away is not None and away["reason"] == vacations.VACATION and away["until"] == until:
                    return False
                if table.clock.get("vacation_days") == 0:
                    return False  # (a league's) games whose clocks stop for no vacation
                if vacations.deadline_first(table, seat, under_way["start"]):
                    return None
                payload, propose = ({"seat": seat, "reason": vacations.VACATION, "from": under_way["start"],
                                     "until": until}, vacations.propose_pause)
            elif away is not None and away["reason"] == vacations.VACATION and now < away["until"]:
                payload, propose = {"seat": seat, "reason": vacations.VACATION}, vacations.propose_resume
            else:
                return False
            try:
                self._write(game_id, rec, payload, propose, now)
                return True
            except VersionConflict:
                continue
            except RefereeError:
                log.warning("vacation of seat %s not written in game %s", seat, game_id, exc_info=True)
                return False
        return False

    def _write(self, game_id, rec, payload, propose, now):
        self.service.admin_event(game_id, Caller(ADMIN, record=rec), "pause or resume a seat's clock",
                                 lambda table, at, key: propose(table, payload, max(at, now), key))

    def round(self, now: str | None = None) -> int:
        """The keeper's look at the bookings whose pause starts by ``now``."""
        now = now or utcnow()
        due = self.store.due(now)
        for player_id in due:
            try:
                if not self.sync_games(player_id, now):
                    continue  # a timeout first: looked at again next round
                self.store.change(player_id, lambda rec: (rec, None), timer=lambda rec: booking.next_start(rec, now))
            except Exception:  # one player's trouble never holds up the others'
                log.warning("vacation start of player %s failed", player_id, exc_info=True)
        return len(due)

    def before_timeout(self, game_id: str, table, seat: int, deadline: str, now: str) -> bool:
        """Asked by the tick before it times ``seat`` out: True when a pause was
        written instead (a booking under way, or a day of auto vacation), so the
        deadline is to be read again."""
        events = self.service.store.events(game_id)
        player_id = seated(events, seat)
        if player_id is None:
            return False
        if self.sync_seat(game_id, seat, player_id, now):
            return True
        # a reminder's timeout costs nothing, and a live game's minutes are no place for
        # a day's pause: no day is spent on either (vacations.draws_days)
        if not vacations.draws_days(table.clock) or not complete(self.calendar_store.settings(player_id))["auto_vacation"]:
            return False
        most = table.clock.get("vacation_days")
        if most is not None and table.drawn.get(seat, 0) >= most:
            return False  # the game's (its league's) days of auto vacation are drawn
        key, allowed = f"{game_id}:{seat}:{deadline}", booking.allowance()
        year = parse_at(deadline).year
        if not self.store.change(player_id, lambda rec: booking.draw(rec, key, year, allowed)):
            return False
        payload = {"seat": seat, "reason": vacations.AUTO, "from": deadline,
                   "until": format_at(parse_at(deadline) + vacations.AUTO_DAY)}
        try:
            self._write(game_id, self.service.record(game_id), payload, vacations.propose_pause, now)
            return True
        except RefereeError:  # a move came first: the day stays drawn under the deadline's key
            return False

    # ---- a game's start, a seat's new holder -----------------------------------------

    def follow(self):
        def started(appended) -> None:
            for ev in appended.events:
                seats = []
                if ev.type == "game-created":
                    seats = [(s["seat"], s["player"]) for s in ev.payload.get("seats") or [] if s.get("player")]
                elif ev.type == "seat-replaced" and ev.actor == "referee" and ev.payload.get("player"):
                    seats = [(ev.payload["seat"], ev.payload["player"])]
                for seat, player_id in seats:
                    if booking.current(self.store.record(player_id), utcnow()):
                        self.sync_seat(appended.game_id, seat, player_id, utcnow())

        return started


def _under_way(record: dict, now: str) -> str | None:
    """A booking under way at once is written into the games by the booking itself;
    its index entry (now) is the keeper's second chance if the process dies first."""
    return now if booking.current(record, now) else None
