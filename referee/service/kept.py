"""The records and tables a process keeps: each game's record as last read (for
moves, which then read nothing before their append), the table after the last
event (an LRU), and loading a game from that cache, a snapshot or the log."""

from __future__ import annotations

import hmac
import pickle
from dataclasses import replace

import referee
from referee.caller import Caller, token_hash
from referee.errors import NoSuchGame, NotYourSeat, Unauthenticated
from referee.games import engine as engine_by_name
from referee.service.shared import SNAPSHOT_EVERY, TABLE_FORMAT
from referee.store.base import GameRecord, Snapshot
from referee.table import NeedsHistory, Table


class Keeping:
    """GameService's part that reads records and keeps copies (see __init__.py)."""

    def record(self, game_id: str) -> GameRecord:
        rec = self.store.record(game_id) if isinstance(game_id, str) else None
        if rec is None:
            raise NoSuchGame(f"no game {game_id!r}")
        return rec

    def caller(self, game_id: str, token: str | None, rec: GameRecord | None = None,
               kept: bool = False) -> Caller:
        """The caller a bearer token makes; no token is a spectator, a token that is
        none of this game's 401, unless it is someone's (a player's): 403. ``rec``: the
        game's record if this request has just read it. ``kept`` (moves only): the
        record this process kept may do instead of a read; ``submit`` then lands
        the move only if the stored record is still that one, and decides any
        refusal again on a fresh read, so the copy never changes an answer."""
        presented = None if token is None else token_hash(token)
        if rec is None or rec.id != game_id:
            rec = self._kept_record(game_id) if kept else None
            if rec is not None:
                try:
                    return self._authenticate(rec, presented, kept=True)
                except Unauthenticated:  # a token given out since the copy was made?
                    rec = None
            if rec is None:
                rec = self.record(game_id)
        if kept:
            self._keep_record(rec)
        try:
            return self._authenticate(rec, presented)
        except Unauthenticated:
            if self.someones_token(token):  # known, only not here: authenticated, so 403
                try:  # unless its player's record has just given this game the token (a recovered one)
                    return self._authenticate(self.record(game_id), presented)
                except Unauthenticated:
                    raise NotYourSeat("this player holds no seat in this game") from None
            raise

    @staticmethod
    def _authenticate(rec: GameRecord, presented: str | None, kept: bool = False) -> Caller:
        """The caller whose token hashes to ``presented`` (None: a spectator)."""
        if presented is None:
            return Caller(None, record=rec, kept=kept)
        found = None
        for stored, who in rec.tokens.items():  # every one compared, in constant time
            if hmac.compare_digest(stored, presented):
                found = who
        if found is None:
            raise Unauthenticated("the token is not one of this game's")
        return Caller(found, presented, rec, kept)

    def _kept_record(self, game_id: str) -> GameRecord | None:
        with self._cache_lock:
            return self.records.get(game_id)

    def _keep_record(self, rec: GameRecord) -> GameRecord:
        if rec.raw is not None:  # only a record read from the store can be checked
            with self._cache_lock:
                self.records[rec.id] = rec
                self.records.move_to_end(rec.id)
                while len(self.records) > self.cache_size:
                    self.records.popitem(last=False)
        return rec

    def _moved_on(self, rec: GameRecord, fork: Table) -> None:
        """Keep ``rec`` as the store holds it after this process's own append took
        the log to ``fork``: the same text, the new status and version."""
        self._keep_record(replace(rec, status=fork.status, version=fork.seq))

    # ---- loading: cache, snapshot, log -------------------------------------------------

    def _code(self, table_or_engine) -> str:
        eng = getattr(table_or_engine, "engine", table_or_engine)
        return f"{referee.__version__}:{TABLE_FORMAT}:{eng.name}:{eng.version}"

    def _remember(self, game_id: str, table: Table) -> None:
        with self._cache_lock:
            self.cache[game_id] = table
            self.cache.move_to_end(game_id)
            while len(self.cache) > self.cache_size:
                self.cache.popitem(last=False)

    def forget(self, game_id: str | None = None) -> None:
        """Drop cached tables and kept records (one game, or all): they are read
        again from the store."""
        with self._cache_lock:
            if game_id is None:
                self.cache.clear()
                self.records.clear()
            else:
                self.cache.pop(game_id, None)
                self.records.pop(game_id, None)

    def load(self, game_id: str, rec: GameRecord | None = None) -> Table:
        """The table after the log's last event. Call with the game's lock held;
        ``rec``: the game's record if the caller has just read it. A cached table
        at the record's version needs no read of the log at all (a write that
        lands meanwhile makes the append's compare-and-set fail, never a wrong
        answer)."""
        if rec is None:
            rec = self.record(game_id)
        with self._cache_lock:
            table = self.cache.get(game_id)
        if table is not None and table.seq == rec.version:
            self._remember(game_id, table)
            return table
        if table is None:
            table = self._from_snapshot(game_id)
        if table is None:
            table = Table.replay(self.store.events(game_id), owned=True)
        else:
            try:
                for ev in self.store.events(game_id, after=table.seq):  # fresh objects: owned
                    table.apply(ev, owned=True)
            except NeedsHistory:  # a take-back since: the position comes from the whole log
                table = Table.replay(self.store.events(game_id), owned=True)
        self._remember(game_id, table)
        return table

    def _from_snapshot(self, game_id: str) -> Table | None:
        snap = self.store.snapshot(game_id)
        if snap is None:
            return None
        try:
            fields = pickle.loads(snap.blob)
            eng = engine_by_name(fields.pop("game"))
            if snap.code != self._code(eng):
                return None
            table = Table(engine=eng, **fields)
        except Exception:  # a stale or damaged cache is rebuilt, never trusted
            return None
        return table if table.seq == snap.seq else None

    def _snapshot(self, table: Table, since: int = 0) -> Snapshot | None:
        """The cached state to write with an append taking the log from ``since``
        to ``table.seq`` events, or None when the last one is recent enough."""
        if not self.store.keeps_snapshots:
            return None
        if since > SNAPSHOT_EVERY and since // SNAPSHOT_EVERY == table.seq // SNAPSHOT_EVERY:
            return None
        fields = {k: v for k, v in table.__dict__.items() if k != "engine"}
        fields["game"] = table.engine.name
        return Snapshot(table.seq, self._code(table), pickle.dumps(fields))

