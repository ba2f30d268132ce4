"""GameService: the one place that loads a game, checks the caller, asks the
engine, appends and enqueues what is due.

The API, the CLI, the mail gateway and the workers all come through here; none
of them touches a store or an engine directly.

Validating a move costs the same at event 10 and event 10,000: the table after
the last event is kept in memory (and, with Redis, as a snapshot beside the log
for other processes), and only the events appended since (usually none) are read
and applied before deciding.
"""

from __future__ import annotations

import hashlib
import hmac
import pickle
import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass, field, replace

import referee
from referee import audit as auditmod
from referee import clock as clockmod
from referee import narration
from referee.events import Event, canonical, utcnow
from referee.games import engine as engine_by_name
from referee.games.base import ADMIN, MalformedMove, RefereeError
from referee.store import Conflict, DuplicateRequest, GameRecord, Snapshot, Store
from referee.table import Settling, Table

DECK_OPTIONS = ("deck", "personality_deck", "event_deck")
# The most moves one request may carry: more than any real turn (a Castle Danger
# turn is at most 27 moves plus an add, reveals and its end), far fewer than would
# let one request block a game while it writes thousands of events.
MAX_MOVES_PER_REQUEST = 64
# Versions, event numbers and positions are counted in int32 here and in every
# store; a larger number is a client's error, refused before any store sees it.
MAX_VERSION = 2**31 - 1
# A cached state is written beside the log whenever a write crosses a multiple of
# this many events (and for every write while a game is short), so a process
# that starts cold applies at most this many events on top of it.
SNAPSHOT_EVERY = 16
# What a cached table holds: bumped when Table gains a field a replay would fill
# in differently from its default (2: the clock's timers, bots and owed moves).
TABLE_FORMAT = 2


# ---- refusals the service itself makes (engines make the rest) ------------------------

class NoSuchGame(RefereeError):
    code, status = "no-such-game", 404


class Unauthenticated(RefereeError):
    code, status = "unauthenticated", 401


class NotYourSeat(RefereeError):
    code, status = "not-your-seat", 403


class VersionConflict(RefereeError):
    code, status = "version-conflict", 409


class IdempotencyMismatch(RefereeError):
    code, status = "idempotency-key-reused", 422


class Forbidden(RefereeError):
    code, status = "forbidden", 403


@dataclass(frozen=True)
class Caller:
    """Who is asking: a seat number, ADMIN, or None (a spectator, no token)."""

    viewer: int | str | None
    token_hash: str = ""
    # The game's record as read to check the token, so the same request need not
    # read it again.
    record: GameRecord | None = field(default=None, compare=False, repr=False)
    # Whether that record is the copy this process kept from an earlier request
    # (``GameService.caller(kept=True)``), not one read for this request.
    kept: bool = field(default=False, compare=False, repr=False)

    @property
    def seat(self) -> int | None:
        return self.viewer if isinstance(self.viewer, int) else None


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(24)


def seed_text(seed) -> str | None:
    """The ``seed`` option as the text the shuffles hash: a string as given, an
    integer in decimal (``11`` deals exactly as ``"11"``). None when not given."""
    if seed is None:
        return None
    if isinstance(seed, int) and not isinstance(seed, bool) and abs(seed) < 10**100:
        return str(seed)
    if isinstance(seed, str) and 0 < len(seed) <= 1000:
        return seed
    raise MalformedMove("seed must be a string of 1 to 1000 characters or an integer of at most 100 digits",
                        field="options.seed")


def _deadlines(table: Table, seat: int | None) -> dict:
    """``deadlines`` of the seats to act and ``deadline``: the seat's own when a
    seat asks, else the earliest (None without a clock or nobody to act)."""
    from referee import clock

    out = clock.deadlines(table)
    mine = [d["deadline"] for d in out if seat is None or d["seat"] == seat]
    in_force = None if table.clock is None else {**table.clock, "paused": table.paused}
    return {"deadline": min(mine) if mine else None, "deadlines": out, "clock": in_force}


def timer_after(table: Table, fork: Table):
    """The deadline index's entry to write with an append taking ``table`` to
    ``fork``: the next reminder or deadline (None: none), or KEEP for a game that
    has never had a clock (nothing to write, nothing to clear)."""
    from referee.store import KEEP

    if table.clock is None and fork.clock is None:
        return KEEP
    return clockmod.next_timer(fork)


def new_game_id() -> str:
    return secrets.token_urlsafe(9).replace("-", "x").replace("_", "y")


class GameService:
    def __init__(self, store: Store, queue=None, cache_size: int = 2048, max_retries: int = 8):
        from referee.queue import InlineQueue

        self.store = store
        self.queue = queue or InlineQueue()
        self.queue.bind(self)
        self.cache: OrderedDict[str, Table] = OrderedDict()
        # Each game's record as this process last read or wrote it, for moves only
        # (see caller(kept=True)): a move then reads nothing before its append.
        self.records: OrderedDict[str, GameRecord] = OrderedDict()
        self.cache_size = cache_size
        self.max_retries = max_retries
        self._locks = [threading.RLock() for _ in range(64)]
        self._cache_lock = threading.Lock()

    def _lock(self, game_id: str) -> threading.RLock:
        return self._locks[hash(game_id) % len(self._locks)]

    # ---- games -------------------------------------------------------------------

    def create(self, game: str, players: list, options: dict | None = None, spectators: dict | None = None,
               organiser: dict | None = None) -> dict:
        import referee.bots  # noqa: F401 - registers the players' "bot" key
        from referee.mail import contacts as contactsmod
        from referee.mail import links as linksmod

        # Players are names or objects {name, email, webhook, bot}: only the names
        # (and which seats are bots) go into the log; the contacts are kept
        # private beside the record.
        entries = contactsmod.parse_players(players)
        players = [e["name"] for e in entries]
        bots = {i: e["bot"] for i, e in enumerate(entries) if e.get("bot")}
        kept, webhook_secrets = contactsmod.contacts_of(entries)
        watchers = contactsmod.parse_spectators(spectators)  # the spectators' webhook, private too
        organiser = contactsmod.parse_organiser(organiser)  # the organiser's contact, private too
        if not isinstance(game, str):
            raise MalformedMove("game must be a string", field="game")
        if not isinstance(options or {}, dict):
            raise MalformedMove("options must be an object", field="options")
        options = dict(options or {})
        seed = seed_text(options.pop("seed", None))
        stacked = seed is not None or any(options.get(k) is not None for k in DECK_OPTIONS)
        seed = seed or secrets.token_hex(32)
        salt_key = secrets.token_hex(32)
        game_id = new_game_id()
        created = Table.created_event(game, game_id, players, options, seed, stacked, salt_key=salt_key,
                                      bots=bots)
        table = Table.from_created(created)
        # A bot seat has no token: the referee alone moves for it.
        seats = [{"seat": i, "name": n, "bot": bots[i]} if i in bots else
                 {"seat": i, "name": n, "token": new_token()} for i, n in enumerate(players)]
        for seat in seats:  # a seat's contacts, and its webhook secret shown this once
            seat.update({k: entries[seat["seat"]][k] for k in contactsmod.CONTACT_KEYS
                         if k in entries[seat["seat"]]})
            if seat["seat"] in webhook_secrets:
                seat["webhook_secret"] = webhook_secrets[seat["seat"]]
        admin = new_token()
        tokens = {token_hash(s["token"]): s["seat"] for s in seats if "token" in s} | {token_hash(admin): ADMIN}
        links = linksmod.for_new_game(self, game_id, tokens)  # each seat's page link in notices
        record = GameRecord(game_id, game, created.at, list(players), tokens, seed,
                            status=table.status, version=1, salt_key=salt_key,
                            extra=({"contacts": kept} if kept else {}) | ({"spectators": watchers} if watchers else {})
                            | ({"organiser": organiser} if organiser else {}) | ({"links": links} if links else {}))
        self.store.create(record, created, timer=clockmod.next_timer(table))
        self._remember(game_id, table)
        self.queue.enqueue_settle(game_id, table.seq)
        # a game that starts with a seat to act (no deal first) owes its first notices now
        self.notify(game_id, record)
        out = {"id": game_id, "game": game, "options": self._public_options(table, ADMIN),
               "version": 1, "status": table.status, "seats": seats, "admin_token": admin,
               "seed_commitment": table.seed_commitment}
        if watchers:  # its secret shown this once
            out["spectators"] = watchers
        if organiser:  # as given, and a webhook's secret this once
            out["organiser"] = organiser
        return out

    def record(self, game_id: str) -> GameRecord:
        rec = self.store.record(game_id) if isinstance(game_id, str) else None
        if rec is None:
            raise NoSuchGame(f"no game {game_id!r}")
        return rec

    def caller(self, game_id: str, token: str | None, rec: GameRecord | None = None,
               kept: bool = False) -> Caller:
        """The caller a bearer token makes; no token is a spectator. ``rec``: the
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
        return self._authenticate(rec, presented)

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
            for ev in self.store.events(game_id, after=table.seq):  # fresh objects: owned
                table.apply(ev, owned=True)
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

    # ---- reading ------------------------------------------------------------------

    def _public_options(self, table: Table, viewer) -> dict:
        opts = dict(table.state.options)
        if viewer != ADMIN and not table.over:
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
                    "stacked": table.stacked, **_deadlines(table, None)}

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
            body = table.engine.view(table.state, caller.viewer)
            if isinstance(body, dict) and body.get("result"):  # its reason in names, as below
                body = {**body, "result": narration.named_result(body["result"], rec.players)}
            # (event 1, the game's creation, is never a move: the tail starts after it)
            after = max(1, table.seq - narration.LOOK_BACK)
            tail = self.store.events(game_id, after=after, limit=table.seq - after) if table.seq > 1 else []
            recent = narration.last_move(table.engine, tail, table.state.names,
                                         lambda ev: self._redact(table, ev, caller.viewer)["payload"])
            return {"id": game_id, "version": table.seq, "status": table.status,
                    "to_act": table.to_act(), "seat": caller.seat,
                    "viewer": "admin" if caller.viewer == ADMIN else
                    ("spectator" if caller.viewer is None else "seat"),
                    "result": narration.named_result(table.state.result, rec.players), "view": body,
                    "text": narration.with_last_move(table.engine.render(table.state, caller.viewer), recent),
                    **_deadlines(table, caller.seat)}

    def legal(self, game_id: str, caller: Caller) -> dict:
        self._need_seat(caller, "only a seat has legal moves")
        rec = caller.record if caller.record is not None and caller.record.id == game_id else self.record(game_id)
        self._heal(rec)
        with self._lock(game_id):
            table = self.load(game_id, rec)
            moves = table.engine.legal(table.state, caller.seat) if table.due() is None else []
            # each move also as text, for clients (and notices) that speak the notation
            return {"seat": caller.seat, "version": table.seq, "moves": moves,
                    "text": [table.engine.format(m) for m in moves]}

    def _redact(self, table: Table, ev: Event, viewer) -> dict:
        out = ev.to_dict()
        if viewer == ADMIN or (table.over and table.seed_revealed):
            return out
        out["salt"] = None  # secret until the seed is revealed (see referee/events.py)
        payload = table.engine.redact(ev, viewer)
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
        return {"version": table.seq,
                "events": [self._redact(table, ev, caller.viewer) for ev in evs]}

    def export(self, game_id: str, caller: Caller) -> str:
        with self._lock(game_id):
            table = self.load(game_id)
        if caller.viewer != ADMIN and not (table.over and table.seed_revealed):
            raise Forbidden("the export shows every hidden card: the admin token's, or anyone's "
                            "once the game is over")
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

    def _submit(self, game_id: str, caller: Caller, body: dict, idempotency_key: str | None, tally=None) -> dict:
        self._need_seat(caller, "moves are made with a seat's token")
        moves, expected = self._moves_from(game_id, body)
        idem = None
        if idempotency_key is not None:
            if (not isinstance(idempotency_key, str) or not 1 <= len(idempotency_key) <= 200
                    or not idempotency_key.isprintable() or not idempotency_key.isascii()):
                raise MalformedMove("Idempotency-Key must be 1 to 200 printable ASCII characters",
                                    field="Idempotency-Key")
            key = f"{caller.token_hash}:{idempotency_key}"
            fingerprint = hashlib.sha256(canonical(body)).hexdigest()
            idem = (key, fingerprint)
        rec = caller.record if caller.record is not None and caller.record.id == game_id else self.record(game_id)
        self._heal(rec)
        for _ in range(self.max_retries):
            with self._lock(game_id):
                if idem is not None:
                    # Under the game's lock: a retry racing its first try waits
                    # for it here and then gets its answer.
                    earlier = self.store.answer(game_id, idem[0])
                    if earlier is not None:
                        return self._replayed(earlier, idem[1])
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
                            return self._replayed(earlier, idem[1])
                    raise
                answer = {"version": fork.seq,
                          "events": [self._redact(fork, ev, caller.viewer) for ev in events]}
                stored = {"fingerprint": idem[1], "answer": answer} if idem else None
                try:
                    self.store.append(game_id, table.seq, events, status=fork.status,
                                      idem=(idem[0], stored) if idem else None,
                                      snapshot=self._snapshot(fork, table.seq), timer=timer_after(table, fork),
                                      record_text=rec.raw, tally=tally)
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
                    return self._replayed(dup.answer, idem[1])
                table.commit(fork)
                self._moved_on(rec, fork)
            from referee import metrics

            metrics.labelled(metrics.moves, table.engine.name).inc(len(moves))
            if fork.due() is not None:
                self.queue.enqueue_settle(game_id, fork.seq)
            else:
                self.notify(game_id, rec)
            return answer
        raise VersionConflict("the game is too busy; try again", current_version=table.seq)

    def _replayed(self, stored: dict, fingerprint: str) -> dict:
        if stored["fingerprint"] != fingerprint:
            raise IdempotencyMismatch("this Idempotency-Key was used for a different request")
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

    def abort(self, game_id: str, caller: Caller, reason: str = "aborted by the organiser") -> dict:
        if caller.viewer != ADMIN:
            raise Forbidden("only the admin token may abort a game")
        if not isinstance(reason, str) or len(reason) > 500:
            raise MalformedMove("reason must be a string of at most 500 characters", field="reason")
        done = self.admin_event(game_id, caller, "abort a game",
                                lambda table, at, key: table.propose_abort(reason, at=at, salt_key=key))
        self.queue.enqueue_settle(game_id, done["version"])  # the seed's reveal is due
        self.notify(game_id)
        return done

    def admin_event(self, game_id: str, caller: Caller, what: str, propose) -> dict:
        """Append the referee event an admin's tool asks for (``propose(table, at,
        salt_key)`` returns the proposal), compare-and-set, while the game runs."""
        if caller.viewer != ADMIN:
            raise Forbidden(f"only the admin token may {what}")
        rec = caller.record if caller.record is not None and caller.record.id == game_id else self.record(game_id)
        with self._lock(game_id):
            table = self.load(game_id, rec)
            if table.over:
                from referee.games.base import GameOver

                raise GameOver("the game is already over")
            events, fork = propose(table, utcnow(), rec.salt_secret)
            try:
                self.store.append(game_id, table.seq, events, status=fork.status,
                                  snapshot=self._snapshot(fork, table.seq), timer=timer_after(table, fork))
            except Conflict as lost:
                self.forget(game_id)
                raise VersionConflict("the game moved on; try again", current_version=lost.current) from None
            table.commit(fork)
        return {"version": fork.seq, "events": [ev.to_dict() for ev in events]}

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
                    if written:
                        self.notify(game_id)
                    return written
                rec = self.record(game_id)
                events, fork = table.propose_step(rec.seed, at=utcnow(), salt_key=rec.salt_secret)
                try:
                    self.store.append(game_id, table.seq, events, status=fork.status,
                                      snapshot=self._snapshot(fork, table.seq), timer=timer_after(table, fork))
                except Conflict:
                    self.forget(game_id)
                    continue
                table.commit(fork)
                if self._kept_record(game_id) is not None:  # moves here keep it: keep it current
                    self._moved_on(rec, fork)
                written += len(events)
        raise RuntimeError(f"game {game_id}: referee steps did not come to rest")

    def notify(self, game_id: str, rec: GameRecord | None = None) -> None:
        """The log moved on: queue the notices it makes due (referee/mail/outbox.py),
        only for games with a contact to tell. Never fails the move that led here."""
        try:
            from referee.mail.outbox import has_channel

            rec = self.record(game_id) if rec is None else rec
            if has_channel(rec.extra):
                self.queue.enqueue_notices(game_id)
        except Exception:  # the sender's start-up sweep catches up on what is missed
            pass

    def sweep(self) -> int:
        """Enqueue the step of every game left settling (run when a worker starts)."""
        n = 0
        for row in self.store.games(status="settling"):  # the settling index, page by page
            self.queue.enqueue_settle(row["id"], row["version"], force=True)
            n += 1
        return n

    # ---- audit ------------------------------------------------------------------------

    @staticmethod
    def audit(text: str) -> dict:
        return auditmod.audit(text)
