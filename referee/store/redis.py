"""The shared store: Redis, for several API processes and workers.

Every key of a game carries the hash tag ``{g:ID}`` so a Redis Cluster keeps a
game on one shard and the append script (which touches only that game's keys)
stays atomic there. The script checks the log's length, the idempotency key,
then writes events, status, the request's answer and the cached state at once.

For durability configure Redis with ``appendonly yes`` and ``appendfsync always``
(``deploy/redis.conf``): only then is an acknowledged move never lost.
"""

from __future__ import annotations

import json
import logging
import os
import threading

import redis

from referee.events import Event
from referee.store.base import KEEP, Conflict, DuplicateRequest, GameRecord, Snapshot, Store
from referee.store.redis_layout import move_old_layout
from referee.store.redis_listing import Listing
from referee.store.redis_scripts import (
    APPEND,
    COUNT_MOVES,
    CREATE,
    INDEX_TIMER,
    LOWER_TIMER,
    MOVE,
    SET_TIMER,
)
from referee.store.redis_timers import DeadlineIndex

log = logging.getLogger("referee.store")
DEFAULT_ANSWER_HOURS = 168
DEFAULT_WAIT_MS = 1000
# The listing (redis_listing.py) and the deadline index (redis_timers.py) are
# split by hash into buckets (buckets.py), each written beside a game's own atomic
# write; the layout before the split is moved into them at start (redis_layout.py).

SENT_AGAIN = 8  # APPEND's ARGV[9], counted from 0 in the arguments a call passes


class ThreadConnections:
    """Each thread's own connection to one Redis server, for the round trips every
    move makes: redis-py's client checks a connection out of its pool and probes
    its socket before each command, which costs a busy server as much as the round
    trip itself. A connection the server dropped shows when it is next used (the
    caller decides whether to send again)."""

    def __init__(self, pool):
        self._pool = pool
        self._local = threading.local()

    def send(self, commands: list[tuple]) -> list:
        """Send ``commands`` at once; their replies (an error reply raises)."""
        conn = getattr(self._local, "conn", None)
        if conn is None or self._local.pid != os.getpid():  # a forked worker makes its own
            conn = self._pool.connection_class(**self._pool.connection_kwargs)
            self._local.conn, self._local.pid = conn, os.getpid()
        try:
            conn.send_packed_command(conn.pack_commands(commands))  # connects when it must
            return [conn.read_response() for _ in commands]
        except BaseException:
            conn.disconnect()  # replies may be left unread: the next use connects afresh
            raise


def answer_hours() -> int:
    """How long a recorded answer is kept, so that a retry with the same
    Idempotency-Key gets it: ``REFEREE_IDEMPOTENCY_HOURS`` (at least 24, the
    contract's promise; default a week), after which the key expires."""
    given = os.environ.get("REFEREE_IDEMPOTENCY_HOURS", "").strip() or str(DEFAULT_ANSWER_HOURS)
    if not given.isdigit() or int(given) < 24:
        raise ValueError(f"REFEREE_IDEMPOTENCY_HOURS={given!r}: a whole number of hours, at least 24")
    return int(given)


def wait_replicas() -> tuple[int, int]:
    """``REFEREE_WAIT_REPLICAS=N`` (0: off) acknowledges an append only once N
    replicas have it (Redis' WAIT), waiting at most ``REFEREE_WAIT_MS``."""
    n = os.environ.get("REFEREE_WAIT_REPLICAS", "").strip() or "0"
    ms = os.environ.get("REFEREE_WAIT_MS", "").strip() or str(DEFAULT_WAIT_MS)
    if not n.isdigit():
        raise ValueError(f"REFEREE_WAIT_REPLICAS={n!r}: a whole number of replicas (0: off)")
    if not ms.isdigit() or int(ms) < 1:
        raise ValueError(f"REFEREE_WAIT_MS={ms!r}: a whole number of milliseconds, at least 1")
    return int(n), int(ms)


def cluster_seeds(url: str) -> list[tuple[str, int]]:
    """The nodes named in ``redis+cluster://HOST:PORT[,HOST:PORT...][/...]``."""
    rest = url.split("://", 1)[1]
    hosts = rest.split("/", 1)[0].split("?", 1)[0].rpartition("@")[2]
    seeds = []
    for part in hosts.split(","):
        host, _, port = part.strip().rpartition(":")
        if not host or not port.isdigit():
            raise ValueError(f"store {url!r}: name each node as HOST:PORT, separated by commas")
        seeds.append((host.strip("[]"), int(port)))
    return seeds


def cluster_options(url: str) -> dict:
    """The password, user and TLS of a cluster URL (``rediss+cluster://user:pass@...``)."""
    scheme, rest = url.split("://", 1)
    options: dict = {"ssl": True} if scheme.startswith("rediss") else {}
    auth = rest.split("/", 1)[0].rpartition("@")[0]
    if auth:
        user, colon, password = auth.partition(":")
        options.update({"username": user or None, "password": password} if colon else {"password": user})
    return options


def _k(game_id: str, what: str) -> str:
    return f"{{g:{game_id}}}:{what}"


class RedisStore(Store):
    keeps_snapshots = True

    def __init__(self, url: str):
        self.url = url
        # a cluster keeps a move's rate counters in its game's slot (referee/api/limits.py)
        self.cluster = "+cluster://" in url
        self.answer_seconds = answer_hours() * 3600
        self.wait_replicas, self.wait_ms = wait_replicas()
        if "+cluster://" in url:
            # A Redis Cluster: one or more of its nodes' addresses (any one reachable
            # is enough); the client finds the others and sends each game's commands
            # to the node that owns its hash slot.
            from redis.cluster import ClusterNode, RedisCluster

            seeds = cluster_seeds(url)
            self.r = RedisCluster(startup_nodes=[ClusterNode(host, port) for host, port in seeds],
                                  **cluster_options(url))
            self.threads = None  # its client sends each game's commands to the node holding it
        else:
            self.r = redis.Redis.from_url(url)
            self.threads = ThreadConnections(self.r.connection_pool)
        self._create = self.r.register_script(CREATE)
        self._append = self.r.register_script(APPEND)
        self._move = self.r.register_script(MOVE)
        self._set_timer = self.r.register_script(SET_TIMER)
        self._count_moves = self.r.register_script(COUNT_MOVES)
        self.listing = Listing(self.r, self._move)
        self.timers = DeadlineIndex(self.r, self.r.register_script(INDEX_TIMER), self.r.register_script(LOWER_TIMER))
        move_old_layout(self)

    def _list(self, game_id: str, created_at: str, status: str, version: int) -> None:
        """Put the game in the listing under ``status`` as of ``version``."""
        self.listing.put(game_id, created_at, status, version)

    def create(self, record: GameRecord, first: Event, timer: str | None = None,
               to_act: list[int] | None = None) -> None:
        if timer is not None:  # the index may run early, never late: its entry first
            self.timers.lower(record.id, first.seq, timer)
        made = self._create(keys=[_k(record.id, "meta"), _k(record.id, "log")],
                            args=[json.dumps(record.to_dict()), record.status, first.seq, record.game,
                                  record.created_at, first.to_json(), timer or "",
                                  "" if to_act is None else json.dumps(to_act)])
        if not made:
            raise ValueError(f"game {record.id} exists already")
        # The listing lives outside the game's hash slot, so it is a second write: a
        # crash between the two leaves a game that is reachable but not listed.
        self._list(record.id, record.created_at, record.status, first.seq)

    def _index(self, game_id: str, version: int, timer: str | None) -> None:
        self.timers.put(game_id, version, timer)

    def record(self, game_id: str) -> GameRecord | None:
        return self.record_from(self.r.hmget(*self.record_read(game_id)))

    @staticmethod
    def record_read(game_id: str) -> tuple:
        """The HMGET arguments that read a game's record: another round trip to the
        same Redis (the rate limiter's, referee/api/limits.py) may carry it."""
        return _k(game_id, "meta"), "record", "status", "version"

    @staticmethod
    def record_from(got: list) -> GameRecord | None:
        if got[0] is None:
            return None
        raw = got[0].decode()
        rec = GameRecord.from_dict(json.loads(raw))
        rec.status, rec.version, rec.raw = got[1].decode(), int(got[2]), raw
        return rec

    def version(self, game_id: str) -> int | None:
        got = self.r.hget(_k(game_id, "meta"), "version")
        return None if got is None else int(got)

    def put_record(self, record: GameRecord) -> None:
        # status and version live in their own fields, so this never undoes an append
        self.r.hset(_k(record.id, "meta"), "record", json.dumps(record.to_dict()))

    def raw_events(self, game_id: str, after: int = 0, limit: int | None = None) -> list[str]:
        end = -1 if limit is None else after + limit - 1
        return [b.decode() for b in self.r.lrange(_k(game_id, "log"), after, end)]

    def events(self, game_id: str, after: int = 0, limit: int | None = None) -> list[Event]:
        return [Event.from_json(b) for b in self.raw_events(game_id, after, limit)]

    def append(self, game_id, expected, events, *, status, idem=None, snapshot=None, timer=KEEP,
               record_text=None, tally=None, to_act=KEEP):
        keys = [_k(game_id, "log"), _k(game_id, "meta"),
                _k(game_id, "answer:" + idem[0]) if idem else _k(game_id, "answer:"),
                _k(game_id, "snap")]
        args = [expected, status, json.dumps(idem[1]) if idem else "",
                snapshot.seq if snapshot else "", snapshot.code if snapshot else "",
                snapshot.blob if snapshot else b"",
                "keep" if timer is KEEP else "none" if timer is None else timer,
                "" if record_text is None else record_text, ""]
        listing = [sum(e.is_move for e in events), "keep" if to_act is KEEP else json.dumps(to_act)]
        texts = [e.to_json() for e in events]
        ahead = ""  # the timer this writer has put into the deadline index already
        first_keys, first_args = keys, args
        while True:
            keys, args = list(first_keys), list(first_args)
            counting = tally is not None and not tally.done
            if counting:  # the request's rate counters, stepped before anything else
                keys += [key for key, _ in tally.reads] + [key for key, _, _ in tally.hits]
                args += [len(tally.reads), len(tally.hits), *listing, self.answer_seconds, ahead,
                         *(amount for _, amount in tally.reads)]
                for _, amount, seconds in tally.hits:
                    args += [amount, seconds]
            else:
                args += [0, 0, *listing, self.answer_seconds, ahead]
            outcome, replicated = self._run_append(keys, args + texts)
            if counting:
                tally.done = True  # counted once, whatever the game's part says
            if outcome[0] != 4:
                break
            # a timer earlier than the game's record vouches the index holds (redis_timers.py):
            # into the index first, then the append again (a second round trip, rarely)
            ahead = timer
            self.timers.lower(game_id, expected + len(events), timer)
        code, value = outcome[0], outcome[1]
        if code == 3:
            tally.refuse(int(value) - 1)  # raises: over a limit, nothing of the game written
        if code == 0:
            raise Conflict(int(value))
        if code == 2:
            raise DuplicateRequest(json.loads(value))
        if (outcome[2] or b"").decode() != status and outcome[3]:
            self._list(game_id, outcome[3].decode(), status, int(value))
            if timer is None and status in ("finished", "aborted"):  # over: its early entry goes too
                self._index(game_id, int(value), None)
        return replicated

    def _run_append(self, keys: list, args: list):
        if self.threads is None:
            if self.wait_replicas:
                return self._append_and_wait_on_node(keys, args)
            return self._append(keys=keys, args=args), True
        try:
            return self._evalsha(("EVALSHA", self._append.sha, len(keys), *keys, *args))
        except redis.ConnectionError:
            # Sent once more on a new connection, marked so. Safe: if the first did
            # land, the script finds its events in the log and answers as if it had
            # just written them (APPEND), never writing them twice. (Its rate
            # counters, if any, may count twice: that window is one step stricter.)
            args = [*args[:SENT_AGAIN], "1", *args[SENT_AGAIN + 1:]]
            return self._evalsha(("EVALSHA", self._append.sha, len(keys), *keys, *args))

    def _evalsha(self, command: tuple):
        # WAIT, when asked for, rides in the same packet on the same connection: it
        # counts the replicas that have every write this connection made.
        commands = [command, ("WAIT", self.wait_replicas, self.wait_ms)] if self.wait_replicas else [command]
        try:
            replies = self.threads.send(commands)
        except redis.exceptions.NoScriptError:  # a restarted or flushed Redis: load it first
            self.r.script_load(APPEND)
            replies = self.threads.send(commands)
        return self._replicated(replies)

    def _append_and_wait_on_node(self, keys: list, args: list):
        """The append and its WAIT on one connection to the node holding the game
        (a cluster client would send the keyless WAIT to any node)."""
        node = self.r.get_node_from_key(keys[0])
        pool = self.r.get_redis_connection(node).connection_pool
        commands = [("EVALSHA", self._append.sha, len(keys), *keys, *args),
                    ("WAIT", self.wait_replicas, self.wait_ms)]
        for attempt in (1, 2):
            conn = pool.get_connection()
            try:
                conn.send_packed_command(conn.pack_commands(commands))
                replies = [conn.read_response() for _ in commands]
            except redis.exceptions.NoScriptError:
                conn.disconnect()  # the WAIT's reply is left unread
                pool.release(conn)
                if attempt == 2:
                    raise
                self.r.get_redis_connection(node).script_load(APPEND)
                continue
            except redis.ResponseError as err:  # MOVED, ASK: the slot moved (a failover)
                conn.disconnect()
                pool.release(conn)
                if str(err).split(" ", 1)[0] in ("MOVED", "ASK"):
                    self.r.nodes_manager.initialize()
                    raise redis.ConnectionError(f"game's slot moved: {err}") from err
                raise
            except BaseException:
                conn.disconnect()
                pool.release(conn)
                raise
            pool.release(conn)
            return self._replicated(replies)
        raise AssertionError("unreachable")

    def _replicated(self, replies: list):
        """The append's outcome, and whether as many replicas as asked confirmed it."""
        outcome = replies[0]
        if len(replies) > 1 and outcome[0] == 1 and int(replies[1]) < self.wait_replicas:
            log.warning("%s of %s replicas confirmed an append within %s ms", replies[1], self.wait_replicas,
                        self.wait_ms)
            return outcome, False
        return outcome, True

    def due_timers(self, now: str, limit: int = 100) -> list[str]:
        return self.timers.due(now, limit)

    def set_timer(self, game_id: str, version: int, timer: str | None) -> bool:
        if not self._set_timer(keys=[_k(game_id, "meta")], args=[version, timer or ""]):
            return False
        self._index(game_id, version, timer)
        return True

    def timer(self, game_id: str) -> str | None:
        got = self.r.hget(_k(game_id, "meta"), "timer")
        return got.decode() if got else None

    def repair_timers(self) -> int:
        """Nothing to repair: the index runs early, never late, whatever a crash
        leaves (redis_timers.py), so a keeper's start reads no game."""
        return 0

    def answer(self, game_id: str, key: str) -> dict | None:
        got = self.r.get(_k(game_id, "answer:" + key))
        return json.loads(got) if got else None

    def confirm_replicated(self, game_id: str) -> bool:
        # A write of the game's node's own, then WAIT on that connection: a replica
        # that has this write has every earlier one of that node (replication is one
        # ordered stream), the recorded move among them. The key is the game's,
        # small, and expires.
        if not self.wait_replicas:
            return True
        commands = [("SET", _k(game_id, "replicated"), "1", "PX", "60000"),
                    ("WAIT", self.wait_replicas, self.wait_ms)]
        if hasattr(self.r, "get_node_from_key"):  # a cluster: WAIT must go to the game's node
            conn_of = self.r.get_redis_connection(self.r.get_node_from_key(_k(game_id, "replicated")))
        else:
            conn_of = self.r
        pool = conn_of.connection_pool
        conn = pool.get_connection()
        try:
            conn.send_packed_command(conn.pack_commands(commands))
            replies = [conn.read_response() for _ in commands]
        except BaseException:
            conn.disconnect()
            raise
        finally:
            pool.release(conn)
        confirmed = int(replies[1])
        if confirmed < self.wait_replicas:
            log.warning("%s of %s replicas confirmed a retried move within %s ms", confirmed, self.wait_replicas,
                        self.wait_ms)
        return confirmed >= self.wait_replicas

    def snapshot(self, game_id: str) -> Snapshot | None:
        seq, code, blob = self.r.hmget(_k(game_id, "snap"), "seq", "code", "blob")
        if seq is None:
            return None
        return Snapshot(int(seq), code.decode(), blob)

    def page(self, status=None, limit=100, after=None):
        top = "+"
        if after is not None:
            created = self.r.hget(_k(after, "meta"), "created_at")
            if created is None:
                return [], None
            top = f"({created.decode()}|{after}"
        members = self.listing.newest(status, top, limit + 1)
        more = len(members) > limit
        members = members[:limit]
        pipe = self.r.pipeline(transaction=False)
        for m in members:
            pipe.hmget(_k(m.rpartition("|")[2], "meta"), "game", "created_at", "status", "version", "record",
                       "moves", "to_act")
        out = []
        for m, meta in zip(members, pipe.execute(), strict=True):
            gid = m.rpartition("|")[2]
            if meta[0] is None:
                continue
            row = {"id": gid, "game": meta[0].decode(), "created_at": meta[1].decode(),
                   "status": meta[2].decode(), "version": int(meta[3]),
                   "players": json.loads(meta[4])["players"],
                   "moves": int(meta[5]) if meta[5] is not None else self._counted(gid),
                   "to_act": None if meta[6] is None else json.loads(meta[6])}
            if status is not None and row["status"] != status:
                # Left behind by a crash between the game's write and the listing's.
                self._list(gid, row["created_at"], row["status"], row["version"])
                continue
            out.append(row)
        return out, (members[-1].rpartition("|")[2] if more else None)

    def glance(self, game_ids, players=False):
        ids = list(game_ids)
        if not ids:
            return {}
        fields = ("game", "created_at", "status", "version", "to_act", "timer") + (("record",) if players else ())
        pipe = self.r.pipeline(transaction=False)  # one trip, keys on any shard
        for gid in ids:
            pipe.hmget(_k(gid, "meta"), *fields)
        out, acting = {}, {}  # the seats to act: a few texts, each read once
        for gid, meta in zip(ids, pipe.execute(), strict=True):
            if meta[0] is None:
                continue
            if meta[4] is not None and meta[4] not in acting:
                acting[meta[4]] = json.loads(meta[4])
            out[gid] = {"game": meta[0].decode(), "created_at": meta[1].decode(), "status": meta[2].decode(),
                        "version": int(meta[3]), "to_act": acting.get(meta[4]),
                        "timer": None if meta[5] is None else meta[5].decode()}
            if players:
                out[gid]["players"] = json.loads(meta[6])["players"]
        return out

    def _counted(self, game_id: str) -> int:
        """The moves of a game stored before the count was kept, counted once."""
        return int(self._count_moves(keys=[_k(game_id, "log"), _k(game_id, "meta")]))

    def ping(self) -> bool:
        return bool(self.r.ping())

    def close(self) -> None:
        self.r.close()

