"""Rate limits, so no client can starve the others.

Three limits, each configurable by environment (see docs/running.md), with
defaults no real player, organiser or test suite meets:

* moves per token (``REFEREE_MOVE_RATE``, default 1200/minute): a seat's client
  gone wrong cannot flood its game's log;
* failed token checks per client address (``REFEREE_AUTH_FAIL_RATE``, default
  120/minute): tokens cannot be guessed at speed (they are 144 random bits anyway);
  an address over it waits for every call but liveness, metrics and the docs;
* votes, answers, disputes, rulings and the organiser's list per token
  (``REFEREE_DISPUTE_RATE``, default 300/hour): no seat floods a log with them;
* audits per client address (``REFEREE_AUDIT_RATE``, default 60/minute): an audit
  of a large log is work, and one client looping audits must not slow play;
* games and leagues created (``REFEREE_CREATE_RATE``, default 120/minute and 2000/day, each
  counted apart) and the
  invitations they send (``REFEREE_INVITE_RATE``, default 30/hour and 100/day), each
  per client address and, where the request carries one, per bearer token: nobody
  floods the lobby, nor anybody's mailbox (referee/players/invitations.py bounds
  what one player receives). Invitations are counted by the route that sends them,
  once it knows how many (``spend``), before anything is written;
* cosignatures posted to the transparency log per client address
  (``REFEREE_WITNESS_RATE``, default 60/hour): a witness posts one a run.

Counters live in memory in embedded mode and in Redis where the store or the
queue is Redis, so every API process counts together; on a Redis Cluster store a
token's moves are counted in its game's own hash slot (``SlotCounters``), so a
move needs no Redis but its game's. Counters out of reach let the request
through, logged: a queue's Redis that is down holds up no move. Over a limit: 429
``too-many-requests`` problem+json with ``Retry-After`` (the seconds until the
window that refused it ends).

Fixed windows, counted here rather than by a general-purpose extension because a
limit is checked on every move: one request reads the address's failed checks
and counts its own hit in one step (one Redis round trip, no timer threads), and
only a 401 answer writes a failed check afterwards. A move to a game whose record
this process keeps, where the counters share the store's Redis, makes not even
that round trip: the append's own script steps its counters first (``Tally``),
so the whole move is one round trip. Rates are written as
flask-limiter and ``limits`` write them (``10/second``, ``500/hour``, ``2 per
minute``, several joined by ``;``).
"""

from __future__ import annotations

import functools
import hashlib
import logging
import math
import os
import time

from flask import Flask, current_app, g, request
from limits import parse_many
from werkzeug.exceptions import TooManyRequests

from referee.api.counters import (  # noqa: F401 - Paused, RedisCounters: read as limits.X too
    MemoryCounters,
    Paused,
    RedisCounters,
    SlotCounters,
    in_slot,
)

DEFAULTS = {"REFEREE_MOVE_RATE": "1200/minute", "REFEREE_AUTH_FAIL_RATE": "120/minute",
            # votes, answers, disputes, rulings and the organiser's list, per bearer
            # token: each but the list writes an event no rule bounds as a game's moves do
            "REFEREE_DISPUTE_RATE": "300/hour",
            "REFEREE_AUDIT_RATE": "60/minute",
            # confirmation codes tried per client address, any player's (each address
            # also has ten tries per confirmation: referee/players/confirmation.py)
            "REFEREE_CONFIRM_RATE": "60/hour",
            # players registered per client address: each may mail a confirmation
            "REFEREE_REGISTER_RATE": "20/hour",
            # searches for players by name per client address: enough for any person
            # typing, too few to read every name out of the referee quickly
            "REFEREE_SEARCH_RATE": "60/minute;1000/hour",
            # new tokens asked for by e-mail per client address (each address is also
            # mailed at most once an hour: referee/players/recovery.py)
            "REFEREE_RECOVER_RATE": "10/hour",
            # games created, and the invitations they send, per client address and per token
            "REFEREE_CREATE_RATE": "120/minute;2000/day", "REFEREE_INVITE_RATE": "30/hour;100/day",
            # cosignatures posted per client address (a witness posts one a run)
            "REFEREE_WITNESS_RATE": "60/hour"}
PREFIX = "referee-limits"
# Endpoints every client may call whatever it did before: liveness, metrics and
# the docs (the static files of every blueprint too).
EXEMPT = ("api-docs.openapi_json", "api-docs.openapi_swagger_ui")
EXEMPT_BLUEPRINTS = ("ops",)

log = logging.getLogger("referee.limits")


class Limited(TooManyRequests):
    """429 with the seconds until the refusing window ends (referee/api/problems.py
    answers it as problem+json with Retry-After)."""

    def __init__(self, retry_after: int):
        super().__init__("too many requests: wait for the time Retry-After gives")
        self.retry_after = retry_after


@functools.lru_cache(maxsize=64)
def _parsed(text: str) -> tuple[tuple[int, int], ...]:
    """(amount, seconds) of each limit in a rate text."""
    return tuple((item.amount, item.get_expiry()) for item in parse_many(text))


# referee/disputes/api.py's endpoints, one counter for all of them
DISPUTE_ENDPOINTS = ("open_vote", "answer_vote", "open_dispute", "rule", "organisers_disputes")


def rate(name: str) -> tuple[tuple[int, int], ...]:
    # read at each request, so a changed environment (tests) applies at once
    return _parsed(os.environ.get(name) or DEFAULTS[name])


def token_key(authorization: str, remote: str | None) -> str:
    """Moves are counted per bearer token (its hash: no token is kept in the
    limiter's storage), or per address for a request without one."""
    if authorization:
        return "token:" + hashlib.sha256(authorization.encode("utf-8", "replace")).hexdigest()
    return "addr:" + address(remote)


def address(remote: str | None) -> str:
    return remote or "127.0.0.1"


def by_address(authorization: str, remote: str | None) -> str:
    return "addr:" + address(remote)


def by_address_and_token(authorization: str, remote: str | None) -> tuple[str, ...]:
    """Counted twice: per client address, and per bearer token where one is sent."""
    if authorization:
        return by_address(authorization, remote), token_key(authorization, remote)
    return (by_address(authorization, remote),)


# The WSGI environ key under which a request arrives already admitted
# (referee/api/lane.py): the limiter's decision was taken and counted for it once,
# so ``before`` takes it instead of counting the request again.
ADMITTED = "referee.admitted"


class Admission:
    """What the limiter decided for one request: ``over``, the 429 it earned; or
    ``tally``, its counting left to the move's append; or ``record``, the game's
    record read in the counters' round trip (or none of them)."""

    __slots__ = ("over", "tally", "record")

    def __init__(self, over=None, tally=None, record=None):
        self.over, self.tally, self.record = over, tally, record


def storage_uri(service) -> str:
    """Where the counters live: the store's Redis, else the queue's (a Redis
    Cluster store comes with a plain Redis for the queue, which then holds them),
    else this process's memory."""
    for url in (getattr(service.store, "url", None), getattr(service.queue, "url", None)):
        if isinstance(url, str) and url.startswith(("redis://", "rediss://", "unix://")):
            return url
    return "memory://"


def _windows(kind: str, ident: str | tuple[str, ...], limits, now: float) -> list[tuple[str, int, int, float]]:
    """(key, amount, seconds, window end) of each limit's current fixed window, for
    each of ``ident``'s counters (one, or several: an address and a token)."""
    out = []
    for one in (ident,) if isinstance(ident, str) else ident:
        for amount, seconds in limits:
            window = int(now // seconds)
            out.append((f"{PREFIX}:{kind}:{one}:{amount}/{seconds}:{window}", amount, seconds,
                        (window + 1) * seconds))
    return out


class Tally:
    """A move's counting left to its append: where the counters live in the store's
    own Redis and this process keeps the game's record (GameService.kept), or on a
    Redis Cluster store (the token's counter in the game's slot, ``counters``), the
    append's script steps them first (referee/store/redis.py), so the whole move
    makes one round trip. Over a limit, the script writes nothing of the game and
    ``refuse`` raises the 429 the round trip before the move would have. A request
    that ends before its append (a refusal, a replayed answer) is counted after it
    (``Limiter.after``), and answered 429 if over, as before."""

    __slots__ = ("limiter", "failed", "hit", "now", "done", "counters")

    def __init__(self, limiter: Limiter, failed: list, hit: list, now: float, counters=None):
        self.limiter, self.failed, self.hit, self.now, self.done = limiter, failed, hit, now, False
        self.counters = counters  # where ``settle`` counts them (None: the limiter's own)

    @property
    def reads(self) -> list[tuple[str, int]]:
        """(key, limit) of each counter read: the address's failed token checks."""
        return [(key, amount) for key, amount, _, _ in self.failed]

    @property
    def hits(self) -> list[tuple[str, int, int]]:
        """(key, limit, seconds) of each counter this request adds one to."""
        return [(key, amount, seconds) for key, amount, seconds, _ in self.hit]

    def refuse(self, index: int):
        """Raise the 429 of counter ``index`` (reads first, then hits)."""
        key, _, _, ends = (self.failed + self.hit)[index]
        raise self.limiter.refused(key, ends, self.now)


class Limiter:
    def __init__(self, uri: str, store=None, service=None):
        self.counters = MemoryCounters() if uri == "memory://" else RedisCounters(uri, store)
        self.service = service
        # A move's counters may go with its append: they are in the store's Redis.
        self.tallies = getattr(self.counters, "store", None) is not None and service is not None
        # On a Redis Cluster store a move's own counters live in its game's slot
        # (the append steps them there); the others stay where ``uri`` says.
        self.slots = SlotCounters(store.r) if getattr(store, "cluster", False) and service is not None else None
        self.errors = getattr(self.counters, "errors", ()) + (self.slots.errors if self.slots else ())
        # Windows this process has refused lately: a flood meets its 429 before the
        # move is judged, not in the append after it (the keys name their window).
        self._refused: set[str] = set()
        # A move on a cluster reads its address's failed token checks (apart from
        # its game's node) at most once a second an address in each process: the
        # move's one round trip stays its append. A 401 answered here reads them
        # afresh at once; another process's, within ``failed_fresh`` seconds.
        self.failed_fresh = 1.0
        self._failed_seen: dict[tuple, tuple[float, list[int]]] = {}
        # endpoints counted as another: the confirmation page posts codes as the API does
        self.counted_as = {"player_pages.confirm_post": "players.confirm",
                           **{f"disputes.{e}": "disputes" for e in DISPUTE_ENDPOINTS}}
        # endpoint -> (rate's environment name, the key of the counter it hits)
        self.routes = {"games.moves": ("REFEREE_MOVE_RATE", token_key),
                       "games.inbound_email": ("REFEREE_MOVE_RATE", token_key),
                       "players.confirm": ("REFEREE_CONFIRM_RATE", by_address),
                       "player_pages.confirm_post": ("REFEREE_CONFIRM_RATE", by_address),
                       "games.audit": ("REFEREE_AUDIT_RATE", by_address),
                       "players.register": ("REFEREE_REGISTER_RATE", by_address),
                       "players.search": ("REFEREE_SEARCH_RATE", by_address),
                       "players.recover": ("REFEREE_RECOVER_RATE", by_address),
                       "games.create_game": ("REFEREE_CREATE_RATE", by_address_and_token),
                       "leagues.create": ("REFEREE_CREATE_RATE", by_address_and_token),
                       "transparency.witness": ("REFEREE_WITNESS_RATE", by_address),
                       **{f"disputes.{e}": ("REFEREE_DISPUTE_RATE", token_key) for e in DISPUTE_ENDPOINTS}}


    @staticmethod
    def exempt(endpoint: str | None) -> bool:
        return (not endpoint or endpoint.rpartition(".")[2] == "static" or endpoint in EXEMPT
                or endpoint.partition(".")[0] in EXEMPT_BLUEPRINTS)

    def refused(self, key: str, ends: float, now: float) -> Limited:
        if len(self._refused) > 10000:  # old windows' keys: forget them all now and then
            self._refused.clear()
        self._refused.add(key)
        return Limited(max(1, math.ceil(ends - now)))

    def before(self) -> None:
        req = request._get_current_object()  # one look-up through the proxy, not one per use
        admitted = req.environ.pop(ADMITTED, None)
        if admitted is None:
            endpoint = req.endpoint
            if self.exempt(endpoint):
                return
            game = req.view_args.get("game_id") if endpoint == "games.moves" and req.view_args else None
            admitted = self.admit(endpoint, game, req.headers.get("Authorization", ""), req.remote_addr)
        if admitted.over is not None:
            raise admitted.over
        if admitted.tally is not None:
            g.referee_tally = admitted.tally  # counted by the append
        if admitted.record is not None:
            g.referee_record = admitted.record  # referee/api/routes.py's caller() takes it

    def admit(self, endpoint: str, game: str | None, authorization: str, remote: str | None) -> Admission:
        """Count a request to ``endpoint`` (not exempt) from ``remote`` with this
        Authorization header (``game``: a move's game) and say what it earns."""
        now = time.time()
        failed = _windows("auth-fail", address(remote), rate("REFEREE_AUTH_FAIL_RATE"), now)
        route = self.routes.get(endpoint)
        hits = _windows(self.counted_as.get(endpoint, endpoint), route[1](authorization, remote),
                        rate(route[0]), now) if route else []
        if game is not None and self.slots is not None:
            return self._admit_in_slot(game, failed, hits, now)
        # a move's game record comes along (read by the view otherwise)
        if (game is not None and self.tallies and self.service.kept(game)
                and not any(w[0] in self._refused for w in failed + hits)):
            return Admission(tally=Tally(self, failed, hits, now))
        over, record = self._count(failed, hits, now, game)
        return Admission(over=over, record=record)

    def _admit_in_slot(self, game: str, failed: list, hits: list, now: float) -> Admission:
        """A move on a Redis Cluster store: the address's failed token checks as
        read where the other counters live at most ``failed_fresh`` seconds ago
        (not reached: let through, logged), and the token's moves counted by the
        append, in the game's slot; so a move's one round trip is its append."""
        for n, (key, amount, _, ends) in zip(self._failed_counts(failed, now), failed, strict=False):  # none: not reached
            if n >= amount:
                return Admission(over=self.refused(key, ends, now))
        tally = Tally(self, [], in_slot(game, hits), now, self.slots)
        if any(w[0] in self._refused for w in tally.hit):  # a flood: its 429 before the move is judged
            return Admission(over=self.settle(tally))
        return Admission(tally=tally)

    def _failed_counts(self, failed: list, now: float) -> list[int]:
        """The counts of ``failed``'s windows (an address's failed token checks),
        read again once ``failed_fresh`` seconds old; none if not reached."""
        keys = tuple(w[0] for w in failed)  # they name their windows: a new window, a new read
        seen = self._failed_seen.get(keys)
        if seen is not None and now - seen[0] < self.failed_fresh:
            return seen[1]
        try:
            counts, _, _ = self.counters.step([(k, s) for k, _, s, _ in failed], [], now)
        except self.errors as err:
            unreached("rate limits not checked", err)
            return []
        if len(self._failed_seen) > 10000:  # old windows' reads: forget them all now and then
            self._failed_seen.clear()
        self._failed_seen[keys] = (now, counts)
        return counts

    def _count(self, failed: list, hits: list, now: float, game: str | None = None, counters=None):
        """Count a request: (the 429 it earns or None, the game's record if read)."""
        counters = counters or self.counters
        try:
            got, counted, record = counters.step([(k, s) for k, _, s, _ in failed],
                                                      [(k, s) for k, _, s, _ in hits], now, game)
        except self.errors as err:  # no counter store: serve rather than refuse everyone
            unreached("rate limits not checked", err)
            return None, None
        for n, (key, amount, _, ends) in zip(got, failed, strict=True):
            if n >= amount:
                if hits:  # refused before its own limit was asked: that hit never was
                    self._add([(k, s) for k, _, s, _ in hits], -1, now, counters)
                return self.refused(key, ends, now), None
        for n, (key, amount, _, ends) in zip(counted, hits, strict=True):
            if n > amount:
                return self.refused(key, ends, now), None
        return None, record

    def after(self, response):
        over = self.settle(g.get("referee_tally"))
        if over is not None:  # the answer it would have had before the move was judged
            return current_app.handle_http_exception(over)
        if response.status_code == 401 and not self.exempt(request.endpoint):
            now = time.time()
            failed = _windows("auth-fail", address(request.remote_addr), rate("REFEREE_AUTH_FAIL_RATE"), now)
            self._add([(k, s) for k, _, s, _ in failed], 1, now)
            self._failed_seen.pop(tuple(w[0] for w in failed), None)  # this process's moves read it afresh
        return response

    def settle(self, tally: Tally | None) -> Limited | None:
        """Count a request whose counting was left to an append that never came
        (a refusal, a replayed answer): the 429 it earns, if any."""
        if tally is None or tally.done:
            return None
        tally.done = True
        over, _ = self._count(tally.failed, tally.hit, tally.now, counters=tally.counters)
        return over

    def spend(self, name: str, kind: str, n: int, authorization: str, remote: str | None) -> None:
        """Count ``n`` of something one request does several of (invitations) against
        the rate ``name``, per address and token; over it, nothing is counted and 429."""
        if n <= 0:
            return
        now = time.time()
        windows = _windows(kind, by_address_and_token(authorization, remote), rate(name), now)
        keys = [(k, s) for k, _, s, _ in windows]
        self._add(keys, n, now)
        try:
            got, _, _ = self.counters.step(keys, [], now)
        except self.errors as err:
            unreached("rate limit not checked", err)
            return
        for count, (key, amount, _, ends) in zip(got, windows, strict=True):
            if count > amount:
                self._add(keys, -n, now)
                raise self.refused(key, ends, now)

    def _add(self, keys: list, by: int, now: float, counters=None) -> None:
        try:
            (counters or self.counters).add(keys, by, now)
        except self.errors as err:
            unreached("rate limit not counted", err)


def unreached(what: str, err: Exception) -> None:
    """Log a request let through because its counters could not be reached: once
    a failure (the requests in the pause after it pass without a line each)."""
    if isinstance(err, Paused):
        log.debug("%s: %s", what, err)
    else:
        log.warning("%s (let through): %s", what, err)


def spend(name: str, kind: str, n: int) -> None:
    """``Limiter.spend`` for the request being answered (429 over the rate)."""
    req = request._get_current_object()
    current_app.extensions["referee-limiter"].spend(name, kind, n, req.headers.get("Authorization", ""),
                                                    req.remote_addr)


def install(app: Flask, service) -> Limiter:
    """One limiter per app (its own counters), with the limits above."""
    limiter = app.extensions["referee-limiter"] = Limiter(storage_uri(service), service.store, service)
    app.before_request(limiter.before)
    app.after_request(limiter.after)
    return limiter
