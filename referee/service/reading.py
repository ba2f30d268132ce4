"""Reading a game: its summary, a viewer's view and legal moves, its events and
export, and the list of games. Nothing here writes to the log."""

from __future__ import annotations

from referee import narration
from referee.caller import Caller
from referee.errors import Forbidden, GameRunning, MalformedMove, NotYourSeat, Unauthenticated
from referee.events import Event
from referee.games.base import ADMIN
from referee.service.shared import DECK_OPTIONS, MAX_VERSION, deadlines
from referee.store.base import GameRecord
from referee.table import SEAT_REPLACED, Table


class Reading:
    """GameService's part that answers readers (see __init__.py)."""

    # ---- reading ------------------------------------------------------------------

    def _public_options(self, table: Table, viewer) -> dict:
        opts = dict(table.state.options)
        if not table.sees_all(viewer):  # open with the log
            for k in DECK_OPTIONS:
                if opts.get(k) is not None:
                    opts[k] = "hidden until the game ends"
        return opts

    def _heal(self, rec: GameRecord) -> None:
        """A game stored as settling gets its job (again) before it is read: embedded
        mode runs the step now, RQ gets a fresh job if none is waiting. This is how a
        step lost with a killed process is done after all."""
        if rec.status == "settling":
            self.queue.enqueue_settle(rec.id, rec.version, kick=True)

    def summary(self, game_id: str) -> dict:
        rec = self.record(game_id)
        self._heal(rec)
        with self._lock(game_id):  # every field from one version of the table
            table = self.load(game_id, rec)
            return {"id": game_id, "game": rec.game, "options": self._public_options(table, None),
                    "status": table.status, "version": table.seq, "to_act": table.to_act(),
                    "players": rec.players, "scores": table.scores(),
                    "result": narration.named_result(table.state.result, rec.players),
                    "stacked": table.stacked, "seed_commitment": table.seed_commitment,
                    **deadlines(table, None)}

    def view(self, game_id: str, caller: Caller, at: int | None = None) -> dict:
        rec = caller.record if caller.record is not None and caller.record.id == game_id else self.record(game_id)
        self._heal(rec)
        with self._lock(game_id):
            table = self.load(game_id, rec)
            if at is not None:
                if not isinstance(at, int) or isinstance(at, bool) or not 1 <= at <= table.seq:
                    raise MalformedMove(f"at must be an event number from 1 to {table.seq}", field="at")
                if at < table.seq:
                    table = Table.replay(self.store.events(game_id, limit=at), owned=True)
            eyes = table.seen_as(caller.viewer)  # the admin of a game of players: a spectator's
            body = table.engine.view(table.state, eyes)
            if isinstance(body, dict) and body.get("result"):  # its reason in names, as below
                body = {**body, "result": narration.named_result(body["result"], rec.players)}
            # (event 1, the game's creation, is never a move: the tail starts after it)
            after = max(1, table.seq - narration.LOOK_BACK)
            tail = self.store.events(game_id, after=after, limit=table.seq - after) if table.seq > 1 else []
            recent = narration.last_move(table.engine, tail, narration.holders(table),
                                         lambda ev: self._redact(table, ev, caller.viewer)["payload"])
            return {"id": game_id, "version": table.seq, "status": table.status,
                    "to_act": table.to_act(), "seat": caller.seat,
                    "viewer": "admin" if caller.viewer == ADMIN else
                    ("spectator" if caller.viewer is None else "seat"),
                    "result": narration.named_result(table.state.result, rec.players), "view": body,
                    "text": narration.with_last_move(table.engine.render(table.state, eyes), recent),
                    # the vote under way and every dispute with its ruling: the seats' own
                    # words and the organiser's, which every seat and spectator reads
                    **table.ledger.shown(),
                    **deadlines(table, caller.seat)}

    def legal(self, game_id: str, caller: Caller) -> dict:
        self._need_seat(caller, "only a seat has legal moves")
        rec = caller.record if caller.record is not None and caller.record.id == game_id else self.record(game_id)
        self._heal(rec)
        with self._lock(game_id):
            table = self.load(game_id, rec)
            # a seat that left the game has no move: the referee plays its turns
            moves = (table.engine.legal(table.state, caller.seat)
                     if table.due() is None and caller.seat not in table.state.left else [])
            # each move also as text, for clients (and notices) that speak the notation
            return {"seat": caller.seat, "version": table.seq, "moves": moves,
                    "text": [table.engine.format(m) for m in moves]}

    def _redact(self, table: Table, ev: Event, viewer) -> dict:
        out = ev.to_dict()
        if table.sees_all(viewer):
            return out
        out["salt"] = None  # secret until the seed is revealed (see referee/events.py)
        payload = table.engine.redact(ev, table.seen_as(viewer))
        if ev.type == "game-created":
            payload = {**payload, "options": self._public_options(table, viewer)}
        out["payload"] = payload
        return out

    def events(self, game_id: str, caller: Caller, after: int = 0, limit: int = 100) -> dict:
        if not isinstance(after, int) or not 0 <= after <= MAX_VERSION:
            raise MalformedMove(f"after must be a whole number from 0 to {MAX_VERSION}", field="after")
        if not isinstance(limit, int) or not 1 <= limit <= 1000:
            raise MalformedMove("limit must be from 1 to 1000", field="limit")
        rec = caller.record if caller.record is not None and caller.record.id == game_id else self.record(game_id)
        self._heal(rec)
        with self._lock(game_id):
            table = self.load(game_id, rec)
            evs = self.store.events(game_id, after=after, limit=limit)
            if caller.seat is not None and caller.token_hash and any(
                    ev.type == SEAT_REPLACED and ev.payload.get("seat") == caller.seat for ev in evs):
                # The seat changed hands within what is read, maybe after this caller
                # was authenticated: a replacement appends, then rewrites the record's
                # tokens, holding this lock throughout, so the record read now says
                # whether the token is still the seat's. The old holder sees nothing after.
                # (The referee's own readers, a notice's composer, hold no token.)
                if self.record(game_id).tokens.get(caller.token_hash) != caller.seat:
                    raise Unauthenticated("the token is not one of this game's")
        return {"version": table.seq,
                "events": [self._redact(table, ev, caller.viewer) for ev in evs]}

    def export(self, game_id: str, caller: Caller) -> str:
        with self._lock(game_id):
            table = self.load(game_id)
        if not table.sees_all(caller.viewer):
            if table.of_players:  # nobody's while it runs (referee/seeing.py)
                raise GameRunning("the export shows every hidden card: in a game of players it is "
                                  "anyone's once the game is over and its seed revealed, nobody's before")
            raise Forbidden("the export shows every hidden card: the admin token's, or anyone's "
                            "once the game is over")
        return self.whole_log(game_id)

    def whole_log(self, game_id: str) -> str:
        """The log as JSON Lines, nothing hidden: what ``export`` answers a caller
        who may see it, and what the operator's ``referee export`` copies from the
        store it keeps (a backup; never through the API)."""
        return "".join(line + "\n" for line in self.store.raw_events(game_id))

    def games(self, status: str | None = None) -> list[dict]:
        return self.store.games(status)

    def list_games(self, status: str | None = None, limit: int = 100, after: str | None = None) -> dict:
        """One page of games, newest first; ``next`` is the cursor of the following one."""
        if status is not None and status not in ("active", "settling", "finished", "aborted"):
            raise MalformedMove("status must be active, settling, finished or aborted", field="status")
        if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= 1000:
            raise MalformedMove("limit must be from 1 to 1000", field="limit")
        rows, nxt = self.store.page(status, limit, after)
        return {"games": rows, "next": nxt}

    @staticmethod
    def _need_seat(caller: Caller, why: str) -> None:
        if caller.viewer is None:
            raise Unauthenticated(f"{why}: send Authorization: Bearer <seat token>")
        if caller.seat is None:
            raise NotYourSeat(f"{why}; the admin token is no seat")

