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

import redis

from referee.events import Event
from referee.store import Conflict, DuplicateRequest, GameRecord, Snapshot, Store

INDEX = "referee:games"  # every game id, scored by creation time (not sharded by game)

APPEND = """
local n = redis.call('LLEN', KEYS[1])
if n ~= tonumber(ARGV[1]) then return {0, n} end
if ARGV[3] ~= '' then
  local got = redis.call('GET', KEYS[3])
  if got then return {2, got} end
end
for i = 7, #ARGV do redis.call('RPUSH', KEYS[1], ARGV[i]) end
local v = n + #ARGV - 6
redis.call('HSET', KEYS[2], 'status', ARGV[2], 'version', v)
if ARGV[3] ~= '' then redis.call('SET', KEYS[3], ARGV[3]) end
if ARGV[4] ~= '' then redis.call('HSET', KEYS[4], 'seq', ARGV[4], 'code', ARGV[5], 'blob', ARGV[6]) end
return {1, v}
"""


def _k(game_id: str, what: str) -> str:
    return f"{{g:{game_id}}}:{what}"


class RedisStore(Store):
    keeps_snapshots = True

    def __init__(self, url: str):
        self.url = url
        self.r = redis.Redis.from_url(url)
        self._append = self.r.register_script(APPEND)

    def create(self, record: GameRecord, first: Event) -> None:
        pipe = self.r.pipeline(transaction=True)
        pipe.hset(_k(record.id, "meta"), mapping={
            "record": json.dumps(record.to_dict()), "status": record.status, "version": first.seq,
            "game": record.game, "created_at": record.created_at})
        pipe.rpush(_k(record.id, "log"), first.to_json())
        pipe.execute()
        # The index lives outside the game's hash slot, so it is a second write: a
        # crash between the two leaves a game that is reachable but not listed.
        self.r.zadd(INDEX, {record.id: _ts(record.created_at)})

    def record(self, game_id: str) -> GameRecord | None:
        got = self.r.hmget(_k(game_id, "meta"), "record", "status", "version")
        if got[0] is None:
            return None
        rec = GameRecord.from_dict(json.loads(got[0]))
        rec.status, rec.version = got[1].decode(), int(got[2])
        return rec

    def raw_events(self, game_id: str, after: int = 0, limit: int | None = None) -> list[str]:
        end = -1 if limit is None else after + limit - 1
        return [b.decode() for b in self.r.lrange(_k(game_id, "log"), after, end)]

    def events(self, game_id: str, after: int = 0, limit: int | None = None) -> list[Event]:
        return [Event.from_json(b) for b in self.raw_events(game_id, after, limit)]

    def append(self, game_id, expected, events, *, status, idem=None, snapshot=None):
        keys = [_k(game_id, "log"), _k(game_id, "meta"),
                _k(game_id, "answer:" + idem[0]) if idem else _k(game_id, "answer:"),
                _k(game_id, "snap")]
        args = [expected, status, json.dumps(idem[1]) if idem else "",
                snapshot.seq if snapshot else "", snapshot.code if snapshot else "",
                snapshot.blob if snapshot else b""]
        args += [e.to_json() for e in events]
        outcome = self._append(keys=keys, args=args)
        code, value = outcome[0], outcome[1]
        if code == 0:
            raise Conflict(int(value))
        if code == 2:
            raise DuplicateRequest(json.loads(value))

    def answer(self, game_id: str, key: str) -> dict | None:
        got = self.r.get(_k(game_id, "answer:" + key))
        return json.loads(got) if got else None

    def snapshot(self, game_id: str) -> Snapshot | None:
        seq, code, blob = self.r.hmget(_k(game_id, "snap"), "seq", "code", "blob")
        if seq is None:
            return None
        return Snapshot(int(seq), code.decode(), blob)

    def games(self, status=None, limit=1000):
        ids = [i.decode() for i in self.r.zrevrange(INDEX, 0, -1)]
        out = []
        for gid in ids:
            meta = self.r.hmget(_k(gid, "meta"), "game", "created_at", "status", "version")
            if meta[0] is None:
                continue
            row = {"id": gid, "game": meta[0].decode(), "created_at": meta[1].decode(),
                   "status": meta[2].decode(), "version": int(meta[3])}
            if status is None or row["status"] == status:
                out.append(row)
            if len(out) >= limit:
                break
        return out

    def ping(self) -> bool:
        return bool(self.r.ping())

    def close(self) -> None:
        self.r.close()


def _ts(at: str) -> float:
    from datetime import datetime

    return datetime.strptime(at, "%Y-%m-%dT%H:%M:%S.%fZ").timestamp()
