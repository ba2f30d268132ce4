"""GameService: the one place that loads a game, checks the caller, asks the
engine, appends and enqueues the referee's own steps.

The API, the CLI, the mail gateway and the workers all come through here; none
of them touches a store or an engine directly. What follows a game's log
(notices, clocks, bots' seats, and whatever comes next) is not named here: it
subscribes to ``service.followers`` (referee/appended.py) where the referee is
put together (referee/system.py), and every append is published to it.

The class is one service in several rooms, each a mixin of one concern:

* ``kept.py``: the records and tables a process keeps, and loading a game;
* ``reading.py``: summaries, views, legal moves, events, export, the list;
* ``moves.py``: a seat's moves, judged and appended compare-and-set;
* ``steps.py``: the referee's own steps and an admin's events;
* ``creating.py``: a new game;
* ``receipting.py``: the receipts of what it appends, signed by what it was given.

Validating a move costs the same at event 10 and event 10,000: the table after
the last event is kept in memory (and, with Redis, as a snapshot beside the log
for other processes), and only the events appended since (usually none) are read
and applied before deciding.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable

from referee import audit as auditmod
from referee.appended import Followers
from referee.caller import Caller, new_token, token_hash  # noqa: F401 - the service's callers
from referee.errors import (  # noqa: F401 - the service's refusals, importable from here too
    Forbidden,
    IdempotencyMismatch,
    NoSuchGame,
    NotYourSeat,
    Unauthenticated,
    VersionConflict,
)
from referee.queue import InlineQueue
from referee.service.creating import Creating, new_game_id, seed_text  # noqa: F401
from referee.service.kept import Keeping
from referee.service.moves import Moves
from referee.service.reading import Reading
from referee.service.receipting import Receipting
from referee.service.shared import (  # noqa: F401 - limits other modules read
    DECK_OPTIONS,
    MAX_MOVES_PER_REQUEST,
    MAX_VERSION,
    SNAPSHOT_EVERY,
    TABLE_FORMAT,
    timer_after,
)
from referee.service.steps import Steps
from referee.store.base import GameRecord, Store
from referee.table import Table


class GameService(Keeping, Reading, Moves, Steps, Creating, Receipting):
    """``GameService(store, queue)``: a bare service, followed by nothing. The
    referee as it runs (notices, clocks, bots wired in) is ``referee.system.assemble``.
    ``receipts``: what signs the receipt of each answer that appends (none: no receipts)."""

    def __init__(self, store: Store, queue=None, cache_size: int = 2048, max_retries: int = 8,
                 receipts=None):
        self.store = store
        self.receipts = receipts
        self.transparency = None  # the transparency log, when assembled with one (referee/system.py)
        self.queue = queue or InlineQueue()
        self.queue.bind(self)
        # What follows this service's appends (referee/appended.py).
        self.followers = Followers()
        self.cache: OrderedDict[str, Table] = OrderedDict()
        # Each game's record as this process last read or wrote it, for moves only
        # (see caller(kept=True)): a move then reads nothing before its append.
        self.records: OrderedDict[str, GameRecord] = OrderedDict()
        self.cache_size = cache_size
        self.max_retries = max_retries
        # Whether a token that is none of a game's is still someone's elsewhere (a
        # player's): that caller is known, only holds no seat here, and is refused 403
        # rather than 401. The player layer answers it (referee/system.py).
        self.someones_token: Callable[[str], bool] = lambda token: False
        # What other rooms hand the service at assembly (referee/system.py), so that
        # no room names another: the senders the background sender runs each round
        # beside the notices' (``sender(service)``), and where a player's leagues and
        # the leagues inviting them are found (``find(service, player_id)``).
        self.senders: list[Callable] = []
        self.leagues_of: list[Callable] = []
        self.league_invitations_of: list[Callable] = []
        # A player's calendar settings (referee/calendar), shown and changed with the
        # player's own record; None: a referee without that room.
        self.player_settings = None
        # Whether a notice the log makes due is sent to a seat's player (their
        # ``notices`` setting, referee/calendar): every one unless told otherwise.
        self.wants_notice: Callable[[object, int, str], bool] = lambda record, seat, reason: True
        self._locks = [threading.RLock() for _ in range(64)]
        self._cache_lock = threading.Lock()

    def _lock(self, game_id: str) -> threading.RLock:
        return self._locks[hash(game_id) % len(self._locks)]

    @staticmethod
    def audit(text: str) -> dict:
        return auditmod.audit(text)
