"""The referee's own writes: the steps the rules owe (deal, scoring, bots' moves,
the seed's reveal), an admin's events (abort, a clock's change, a timeout), and
healing a game whose step was lost with a killed process."""

from __future__ import annotations

from referee.appended import Appended
from referee.caller import Caller
from referee.errors import Forbidden, GameOver, MalformedMove, RefereeError, VersionConflict
from referee.events import utcnow
from referee.games.base import ADMIN
from referee.service.shared import timer_after
from referee.store.base import Conflict, DuplicateRequest


class Steps:
    """GameService's part that writes what the referee owes (see __init__.py)."""

    def abort(self, game_id: str, caller: Caller, reason: str = "aborted by the organiser") -> dict:
        if caller.viewer != ADMIN:
            raise Forbidden("only the admin token may abort a game")
        if not isinstance(reason, str) or len(reason) > 500:
            raise MalformedMove("reason must be a string of at most 500 characters", field="reason")
        done = self.admin_event(game_id, caller, "abort a game",
                                lambda table, at, key: table.propose_abort(reason, at=at, salt_key=key))
        self.queue.enqueue_settle(game_id, done["version"])  # the seed's reveal is due
        now = self.record(game_id)  # after the reveal, when the queue ran it already (embedded)
        return {**done, "version": now.version, "status": now.status}

    def admin_event(self, game_id: str, caller: Caller, what: str, propose) -> dict:
        """Append the referee event an admin's tool asks for (``propose(table, at,
        salt_key)`` returns the proposal), compare-and-set, while the game runs."""
        if caller.viewer != ADMIN:
            raise Forbidden(f"only the admin token may {what}")
        return self.write_proposal(game_id, caller, propose)

    def write_proposal(self, game_id: str, caller: Caller, propose, while_over: bool = False,
                       once: tuple[str, str] | None = None) -> dict:
        """Append what ``propose(table, at, salt_key)`` proposes (the caller's right
        to it checked by whoever asks), compare-and-set; ``while_over``: also once
        the game is over (a dispute, a ruling after the end). The answer carries
        the receipt of the last event written; a referee step it makes due (a
        vote's end, the seed's reveal) is queued. ``once``: (key, fingerprint) as
        ``Moves.once`` makes them: a request asked again under its key gets its
        first answer and writes nothing (a mail delivered twice)."""
        rec = caller.record if caller.record is not None and caller.record.id == game_id else self.record(game_id)
        with self._lock(game_id):
            if once is not None:
                earlier = self.store.answer(game_id, once[0])
                if earlier is not None:
                    return self._replayed(earlier, once[1])
            table = self.load(game_id, rec)
            if table.over and not while_over:
                raise GameOver("the game is already over")
            try:
                events, fork = propose(table, utcnow(), rec.salt_secret)
            except RefereeError:
                # the same request may have been written by another process after we looked
                earlier = self.store.answer(game_id, once[0]) if once is not None else None
                if earlier is not None:
                    return self._replayed(earlier, once[1])
                raise
            # signed before the append, so that a request asked again gets it to the byte
            answer = self.receipted({"version": fork.seq, "status": fork.status,
                                     "events": [self._redact(fork, ev, caller.viewer) for ev in events]},
                                    game_id, events[-1])
            idem = (once[0], {"fingerprint": once[1], "answer": answer}) if once is not None else None
            try:
                self.store.append(game_id, table.seq, events, status=fork.status, idem=idem,
                                  snapshot=self._snapshot(fork, table.seq), timer=timer_after(table, fork),
                                  to_act=fork.to_act())
            except Conflict as lost:
                self.forget(game_id)
                raise VersionConflict("the game moved on; try again", current_version=lost.current) from None
            except DuplicateRequest as dup:
                self.forget(game_id)
                return self._replayed(dup.answer, once[1])
            table.commit(fork)
        self.followers.publish(Appended(game_id, tuple(events), fork, rec, "admin"))
        if fork.due() is not None:
            self.queue.enqueue_settle(game_id, fork.seq)
            now = self.record(game_id)  # after the steps the queue ran already (embedded)
            answer = {**answer, "version": now.version, "status": now.status}
        return answer

    def resign_for(self, game_id: str, seat: int) -> int:
        """The referee resigns ``seat`` for its player (who withdrew from the game's
        league): the seat's own ``resign``, written as that seat's move, as the
        referee writes a bot's or an autoplayed seat's, so the game ends (or goes on
        without the seat) exactly as if the seat had resigned, and is rated as any
        game its result ends. Compare-and-set, read again after a lost race; a step
        owed first is run first. Returns the events appended (0: over already)."""
        for _ in range(self.max_retries):
            with self._lock(game_id):
                rec = self.record(game_id)
                table = self.load(game_id, rec)
                if table.over:
                    return 0
                if table.due() is None:
                    events, fork = table.propose(seat, [{"type": "resign"}], at=utcnow(),
                                                 salt_key=rec.salt_secret)
                    try:
                        self.store.append(game_id, table.seq, events, status=fork.status,
                                          snapshot=self._snapshot(fork, table.seq),
                                          timer=timer_after(table, fork), to_act=fork.to_act())
                    except Conflict:
                        self.forget(game_id)
                        continue
                    table.commit(fork)
                    if self._kept_record(game_id) is not None:  # moves here keep it: keep it current
                        self._moved_on(rec, fork)
                    break
            self.settle(game_id)  # a deal or a bot's move owed first
        else:
            raise VersionConflict("the game is too busy; try again")
        self.followers.publish(Appended(game_id, tuple(events), fork, rec, "move"))
        if fork.due() is not None:
            self.queue.enqueue_settle(game_id, fork.seq)
        return len(events)

    # ---- the referee's own steps ---------------------------------------------------

    def settle(self, game_id: str) -> int:
        """Run every referee step due now, each appended compare-and-set: a job run
        twice, retried, or racing another worker appends each step once. Returns how
        many events this call appended."""
        written = 0
        for _ in range(10000):
            with self._lock(game_id):
                table = self.load(game_id)
                if table.due() is None:
                    return written
                rec = self.record(game_id)
                events, fork = table.propose_step(rec.seed, at=utcnow(), salt_key=rec.salt_secret)
                try:
                    self.store.append(game_id, table.seq, events, status=fork.status,
                                      snapshot=self._snapshot(fork, table.seq), timer=timer_after(table, fork),
                                      to_act=fork.to_act())
                except Conflict:
                    self.forget(game_id)
                    continue
                table.commit(fork)
                if self._kept_record(game_id) is not None:  # moves here keep it: keep it current
                    self._moved_on(rec, fork)
                written += len(events)
            self.followers.publish(Appended(game_id, tuple(events), fork, rec, "step"))
        raise RuntimeError(f"game {game_id}: referee steps did not come to rest")

    def sweep(self) -> int:
        """Enqueue the step of every game left settling (run when a worker starts),
        onto the low queue: live play goes first (referee/queue.py)."""
        n = 0
        for row in self.store.games(status="settling"):  # the settling index, page by page
            self.queue.enqueue_settle(row["id"], row["version"], force=True, sweep=True)
            n += 1
        return n
