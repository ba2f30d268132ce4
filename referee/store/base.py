"""What every store shares: its interface, the game's record, and its refusals.

The two backends (sqlite.py, redis.py) import this module and nothing else of
the store package; ``referee.store`` re-exports it all with ``open_store``.


A store keeps, per game, the append-only event log, the game's record (which
game, seat-token hashes, the secret seed, status and version) and the answers to
idempotent requests. ``append`` is the only write to a running game and is a
compare-and-set on the log's length: it writes every event (and the request's
answer, and the cached state) or, if another writer got there first, nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from referee.events import Event


def _unavailable() -> tuple[type[BaseException], ...]:
    """The errors that mean "the store cannot be reached right now" (answered 503),
    as opposed to a bug. Redis' connection and timeout errors; SQLite is a file."""
    try:
        import redis

        return (redis.ConnectionError, redis.TimeoutError)
    except ImportError:  # pragma: no cover - redis is a dependency
        return ()


StoreUnavailable = _unavailable()


class NotReplicated(Exception):
    """A move landed on the primary, but fewer replicas than ``REFEREE_WAIT_REPLICAS``
    confirmed it in time: a failover now could lose it. Answered 503
    ``not-replicated``; a retry with the same Idempotency-Key learns whether it
    stands."""


# ``append(timer=KEEP)``: leave the game's timer as it is.
KEEP = type("Keep", (), {"__repr__": lambda self: "KEEP"})()


class Conflict(Exception):
    """Another writer appended first; ``current`` is the log's length now (the
    length expected, when it was the record's text that had changed)."""

    def __init__(self, current: int):
        super().__init__(f"the log is at {current}")
        self.current = current


class DuplicateRequest(Exception):
    """The idempotency key was recorded by a concurrent request; ``answer`` is its."""

    def __init__(self, answer: dict):
        super().__init__("idempotency key already used")
        self.answer = answer


@dataclass
class GameRecord:
    id: str
    game: str
    created_at: str
    players: list[str]
    tokens: dict[str, int | str]  # sha256(token) -> seat number or "admin"
    seed: str
    status: str = "settling"
    version: int = 1
    extra: dict = field(default_factory=dict)
    # The secret that keys the events' salts (referee/events.py), revealed with the
    # seed at the end; "" for games from before 0.2.0, whose salts the seed keys.
    salt_key: str = ""
    # The record's text exactly as the store held it when this was read (None: not
    # read from a store). Never stored itself: ``append(record_text=...)`` compares
    # it with the stored text, so a decision made on a record kept in memory lands
    # only if nobody rewrote the record meanwhile (a seat's token replaced, say).
    raw: str | None = field(default=None, compare=False, repr=False)

    @property
    def salt_secret(self) -> str:
        return self.salt_key or self.seed

    def to_dict(self) -> dict:
        d = dict(self.__dict__)
        del d["raw"]
        return d

    @classmethod
    def from_dict(cls, d: dict) -> GameRecord:
        return cls(**d)


@dataclass
class Snapshot:
    """A cached state: pickled table at ``seq``, valid only for ``code`` (the
    referee's and the engine's versions), else thrown away and rebuilt."""

    seq: int
    code: str
    blob: bytes


class Store:
    # Whether the store keeps a cached state beside the log for other processes.
    keeps_snapshots = False

    def create(self, record: GameRecord, first: Event, timer: str | None = None,
               to_act: list[int] | None = None) -> None:
        """A new game: its record and first event (``timer`` and ``to_act`` as in
        ``append``)."""

    def record(self, game_id: str) -> GameRecord | None: ...

    def version(self, game_id: str) -> int | None:
        """The log's length (None: no such game), as cheaply as the store can read
        it: long polls (referee/follow.py) ask for it several times a second."""
        rec = self.record(game_id)
        return None if rec is None else rec.version

    def events(self, game_id: str, after: int = 0, limit: int | None = None) -> list[Event]: ...

    def raw_events(self, game_id: str) -> list[str]:
        """The log exactly as stored, one canonical JSON text per event."""
        ...

    def append(self, game_id: str, expected: int, events: list[Event], *, status: str,
               idem: tuple[str, dict] | None = None, snapshot: Snapshot | None = None,
               timer=KEEP, record_text: str | None = None, tally=None, to_act=KEEP) -> bool | None:
        """Append if the log's length is ``expected`` (and, given ``record_text``,
        the game's record is still exactly that text); else raise ``Conflict``. With
        ``idem`` (key, answer), record the answer in the same atomic write, raising
        ``DuplicateRequest`` if that key is already recorded. ``timer``: the
        moment the game's clock next needs looking at after these events (an ISO
        time, or None for none; see referee/clock.py ``next_timer``), written with
        them into the deadline index; KEEP leaves it as it is. ``tally``: a
        request's rate counters (referee/api/limits.py ``Tally``), stepped first in
        the same atomic write, where the store holds them (Redis); over a limit,
        nothing of the game is written and ``tally.refuse`` raises. ``to_act``: the
        seats to act after these events, for the listing (KEEP: as it was). The
        listing's count of moves grows by the events that are moves
        (``Event.is_move``). Answers False when the append landed but fewer
        replicas confirmed it than ``REFEREE_WAIT_REPLICAS`` asks (Redis), else
        True or None."""
        ...

    # ---- the deadline index (referee/timeouts.py reads it) ---------------------------

    def due_timers(self, now: str, limit: int = 100) -> list[str]:
        """The games whose timer is at or before ``now``, earliest first: found by an
        index, never by reading every game."""
        ...

    def set_timer(self, game_id: str, version: int, timer: str | None) -> bool:
        """Move the game's timer once its keeper has fired what was due, only if the
        log is still at ``version`` (else the append that moved it set a fresher
        one). Returns whether it was written."""
        ...

    def timer(self, game_id: str) -> str | None:
        """The game's timer as the index holds it."""
        ...

    def repair_timers(self) -> int:
        """Put back into the index any timer a crash left out of it (stores whose
        index is a second write). Returns how many were put back."""
        return 0

    def answer(self, game_id: str, key: str) -> dict | None:
        """The recorded answer for an idempotency key, if any."""
        ...

    def confirm_replicated(self, game_id: str) -> bool:
        """Whether as many replicas as asked (``REFEREE_WAIT_REPLICAS``) have all
        of the game's writes so far: asked before a recorded answer is given again,
        so that a retry is answered 201 only for a move a failover keeps. True
        where nothing is replicated (SQLite, or no replicas asked for)."""
        return True

    def snapshot(self, game_id: str) -> Snapshot | None:
        return None

    def put_record(self, record: GameRecord) -> None:
        """Rewrite the game's record beside its log (its private parts, such as the
        seats' contacts); status and version stay as the log's appends set them."""
        ...

    def page(self, status: str | None = None, limit: int = 100,
             after: str | None = None) -> tuple[list[dict], str | None]:
        """One page of the listing, newest game first (by creation time, then id),
        read from an index: the games after the game ``after`` (a cursor: the last id
        of the page before), at most ``limit``, and the cursor of the next page (None
        on the last). Games created while a client pages come before its cursor, so
        they never shift or repeat a later page. Each row is
        ``{id, game, created_at, status, version, players, moves, to_act}``: how
        many moves the seats made (kept by the appends, so counting costs nothing
        here) and the seats to act (None for a game no append has told yet)."""
        ...

    def glance(self, game_ids: list[str], players: bool = False) -> dict[str, dict]:
        """What the listing keeps of each of these games, read for all at once (no
        log; the record only with ``players``): ``{id: {game, created_at, status,
        version, to_act, timer}}`` for each game found, ``to_act`` None for a game
        not moved since 0.3.0, ``timer`` the game's next clock moment (None without
        one); with ``players``, its ``players`` too (the names, seat order). A
        player's current games are read so (referee/players/accounts.py), however
        many the player holds a seat in."""
        ...

    def games(self, status: str | None = None, limit: int | None = None) -> list[dict]:
        """Every game (or the first ``limit``), page by page."""
        out: list[dict] = []
        after = None
        while limit is None or len(out) < limit:
            rows, after = self.page(status, 500 if limit is None else min(500, limit - len(out)), after)
            out += rows
            if after is None:
                break
        return out

    def ping(self) -> bool: ...

    def close(self) -> None: ...
