"""Writing a seat's moves: one, a batch (all or nothing) or text, judged on the
table kept in memory and appended compare-and-set."""

from __future__ import annotations

import hashlib

from referee import metrics
from referee.appended import Appended
from referee.caller import Caller
from referee.errors import IdempotencyMismatch, MalformedMove, RefereeError, VersionConflict
from referee.events import canonical, utcnow
from referee.games import engine as engine_by_name
from referee.service.shared import MAX_MOVES_PER_REQUEST, MAX_VERSION, timer_after
from referee.store.base import Conflict, DuplicateRequest, NotReplicated
from referee.table import Settling


class Moves:
    """GameService's part that takes moves (see __init__.py)."""

    # ---- writing ------------------------------------------------------------------

    def submit(self, game_id: str, caller: Caller, body: dict, idempotency_key: str | None = None,
               tally=None) -> dict:
        """Apply a move, a batch (all or nothing) or text; returns {version, events}.
        ``tally``: the request's rate counters, for the store to step with the
        append (see ``Store.append``).

        A caller checked against a kept record (``caller(kept=True)``) is refused
        only on the record as the store holds it now: a refusal decided on the kept
        copy is decided again on a fresh read whenever that read differs (another
        process moved the game or rewrote its record), as if the copy never was."""
        try:
            return self._submit(game_id, caller, body, idempotency_key, tally)
        except RefereeError:
            if not caller.kept or not caller.token_hash:  # no token: no record makes it a seat
                raise
            fresh = self.record(game_id)
            if fresh.version == caller.record.version and fresh.raw == caller.record.raw:
                raise  # the copy was the stored record: the refusal stands
            # (the cached table is kept: the load catches it up from the log)
            caller = self._authenticate(self._keep_record(fresh), caller.token_hash)
            return self._submit(game_id, caller, body, idempotency_key, tally)

    def kept(self, game_id: str) -> bool:
        """Whether this process keeps the game's record for its moves."""
        return self._kept_record(game_id) is not None

    def once(self, caller: Caller, idempotency_key: str | None, body) -> tuple[str, str] | None:
        """What makes a request idempotent: (the store's key, the request's
        fingerprint), the key the caller's own (a seat's token hash), or None."""
        if idempotency_key is None:
            return None
        if (not isinstance(idempotency_key, str) or not 1 <= len(idempotency_key) <= 200
                or not idempotency_key.isprintable() or not idempotency_key.isascii()):
            raise MalformedMove("Idempotency-Key must be 1 to 200 printable ASCII characters",
                                field="Idempotency-Key")
        return f"{caller.token_hash}:{idempotency_key}", hashlib.sha256(canonical(body)).hexdigest()

    def _submit(self, game_id: str, caller: Caller, body: dict, idempotency_key: str | None, tally=None) -> dict:
        self._need_seat(caller, "moves are made with a seat's token")
        moves, expected = self._moves_from(game_id, body)
        idem = self.once(caller, idempotency_key, body)
        rec = caller.record if caller.record is not None and caller.record.id == game_id else self.record(game_id)
        self._heal(rec)
        for _ in range(self.max_retries):
            with self._lock(game_id):
                if idem is not None:
                    # Under the game's lock: a retry racing its first try waits
                    # for it here and then gets its answer.
                    earlier = self.store.answer(game_id, idem[0])
                    if earlier is not None:
                        return self._replayed(earlier, idem[1], game_id)
                table = self.load(game_id, rec)
                try:
                    if expected is not None and expected != table.seq:
                        raise VersionConflict(f"the game is at version {table.seq}, not {expected}",
                                              current_version=table.seq)
                    events, fork = table.propose(caller.seat, moves, at=utcnow(), salt_key=rec.salt_secret)
                except Settling as err:  # its job may be lost: queue it (again)
                    self.queue.enqueue_settle(game_id, table.seq, kick=True)
                    err.extra["current_version"] = table.seq
                    raise
                except RefereeError:
                    # The same request may have won in another process after we
                    # looked (the store writes the answer with the events, so once
                    # its events are loaded its answer is readable): a refusal of
                    # a retry is then its first answer, not a refusal.
                    if idem is not None:
                        earlier = self.store.answer(game_id, idem[0])
                        if earlier is not None:
                            return self._replayed(earlier, idem[1], game_id)
                    raise
                # signed before the append, so that a retry's stored answer is this one
                # to the byte; shown only once the append has landed
                answer = self.receipted({"version": fork.seq, "status": fork.status,
                                         "events": [self._redact(fork, ev, caller.viewer) for ev in events]},
                                        game_id, events[-1])
                stored = {"fingerprint": idem[1], "answer": answer} if idem else None
                try:
                    replicated = self.store.append(
                        game_id, table.seq, events, status=fork.status, idem=(idem[0], stored) if idem else None,
                        snapshot=self._snapshot(fork, table.seq), timer=timer_after(table, fork),
                        record_text=rec.raw, tally=tally, to_act=fork.to_act())
                except Conflict as lost:
                    # Another process appended first, or rewrote the record. With
                    # expected_version the client asked for exactly that version: a
                    # log that moved on is its answer. Otherwise decide again, on the
                    # record as it is now (its token may be gone: then 401).
                    # (The cached table stays: the next load catches it up from the
                    # log, which only ever grows.)
                    if expected is not None and lost.current != table.seq:
                        raise VersionConflict("another move was accepted first",
                                              current_version=lost.current) from None
                    rec = self._keep_record(self.record(game_id))
                    caller = self._authenticate(rec, caller.token_hash)
                    self._need_seat(caller, "moves are made with a seat's token")
                    self._heal(rec)
                    continue
                except DuplicateRequest as dup:
                    self.forget(game_id)
                    return self._replayed(dup.answer, idem[1], game_id)
                table.commit(fork)
                self._moved_on(rec, fork)
            metrics.labelled(metrics.moves, table.engine.name).inc(len(moves))
            self.followers.publish(Appended(game_id, tuple(events), fork, rec, "move"))
            if fork.due() is not None:  # (after publishing: followers hear events in order)
                self.queue.enqueue_settle(game_id, fork.seq)
                # the version after the steps the queue ran already (all, embedded)
                now = self._kept_record(game_id) or self.record(game_id)
                answer = {**answer, "version": now.version, "status": now.status}
            if replicated is False:  # written and reacted to, but a failover could lose it
                raise NotReplicated("fewer replicas than REFEREE_WAIT_REPLICAS confirmed the move in time")
            return answer
        raise VersionConflict("the game is too busy; try again", current_version=table.seq)

    def _replayed(self, stored: dict, fingerprint: str, game_id: str | None = None) -> dict:
        if stored["fingerprint"] != fingerprint:
            raise IdempotencyMismatch("this Idempotency-Key was used for a different request")
        # the recorded 201 only for a move the replicas asked for have (a failover keeps it)
        if game_id is not None and not self.store.confirm_replicated(game_id):
            raise NotReplicated("fewer replicas than REFEREE_WAIT_REPLICAS confirmed the move in time")
        return stored["answer"]

    def _moves_from(self, game_id: str, body) -> tuple[list[dict], int | None]:
        if not isinstance(body, dict):
            raise MalformedMove("the body must be a JSON object", field="body")
        given = [k for k in ("move", "moves", "text") if k in body]
        if len(given) != 1:
            raise MalformedMove("give exactly one of move, moves or text", field="body")
        unknown = set(body) - {"move", "moves", "text", "expected_version"}
        if unknown:
            raise MalformedMove(f"unknown field(s): {', '.join(sorted(unknown))}", field=sorted(unknown)[0])
        expected = body.get("expected_version")
        if expected is not None and (not isinstance(expected, int) or isinstance(expected, bool)
                                     or not 1 <= expected <= MAX_VERSION):
            raise MalformedMove(f"expected_version must be an integer from 1 to {MAX_VERSION}",
                                field="expected_version")
        kind = given[0]
        if kind == "move":
            moves = [body["move"]]
        elif kind == "moves":
            moves = body["moves"]
            if not isinstance(moves, list) or not moves:
                raise MalformedMove("moves must be a non-empty list", field="moves")
        else:
            rec = self.record(game_id)
            moves = engine_by_name(rec.game).parse(body["text"])
        if len(moves) > MAX_MOVES_PER_REQUEST:
            raise MalformedMove(f"at most {MAX_MOVES_PER_REQUEST} moves in one request "
                                f"(this one has {len(moves)})", field=kind, limit=MAX_MOVES_PER_REQUEST)
        for m in moves:
            if not isinstance(m, dict):
                raise MalformedMove("each move is a JSON object with a type", field=kind)
        return moves, expected

