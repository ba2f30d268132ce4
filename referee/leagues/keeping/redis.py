"""Leagues in the game store's Redis (the same client: a plain Redis or a Cluster).

Every key of a league carries the hash tag ``{l:ID}``, so a Redis Cluster keeps a
league's meta and log on one shard and its append script stays atomic there; the
listing (``{referee:leagues}``, newest first) is a second write, as a game's is.
"""

from __future__ import annotations

import json

from referee.leagues.keeping.base import PUBLIC, Conflict, LeagueStore

LIST = "{referee:leagues}:newest"
OWING = "{referee:leagues-owing}"  # league id -> its mark (referee/leagues/healing.py)

# KEYS: the owing set. ARGV: mark, league. A mark only rises.
OWE = """
local had = redis.call('ZSCORE', KEYS[1], ARGV[2])
if not had or tonumber(had) < tonumber(ARGV[1]) then redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2]) end
"""

# KEYS: the owing set. ARGV: mark, league. Unmarked only if its mark is at most that.
PAID = """
local had = redis.call('ZSCORE', KEYS[1], ARGV[2])
if had and tonumber(had) <= tonumber(ARGV[1]) then redis.call('ZREM', KEYS[1], ARGV[2]) end
"""

CREATE = """
if redis.call('HSETNX', KEYS[1], 'meta', ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'status', ARGV[3], 'version', 1)
redis.call('RPUSH', KEYS[2], ARGV[2])
return 1
"""

# KEYS: meta, log. ARGV: expected length, status, events...
APPEND = """
local n = redis.call('LLEN', KEYS[2])
if n ~= tonumber(ARGV[1]) then return {0, n} end
for i = 3, #ARGV do redis.call('RPUSH', KEYS[2], ARGV[i]) end
redis.call('HSET', KEYS[1], 'status', ARGV[2], 'version', n + #ARGV - 2)
return {1, n + #ARGV - 2}
"""


def _player_key(player_id: str) -> str:
    """A player's leagues (its tag the player's, as the players' own keys)."""
    return f"{{p:{player_id}}}:leagues"


def _k(league_id: str, what: str) -> str:
    return f"{{l:{league_id}}}:{what}"


class RedisLeagues(LeagueStore):
    def __init__(self, r):
        self.r = r
        self._create = r.register_script(CREATE)
        self._append = r.register_script(APPEND)
        self._owe = r.register_script(OWE)
        self._paid = r.register_script(PAID)

    def create(self, meta, first):
        if not self._create(keys=[_k(meta["id"], "meta"), _k(meta["id"], "log")],
                            args=[json.dumps(meta), first.to_json(), meta.get("status", "running")]):
            raise ValueError(f"league {meta['id']} exists already")
        self.r.zadd(LIST, {f"{meta['created_at']}|{meta['id']}": 0})
        for player in meta.get("players", []):  # each player's index, under the player's tag
            self.r.zadd(_player_key(player), {f"{meta['created_at']}|{meta['id']}": 0})

    def index_player(self, league_id, player_id):
        meta = self.meta(league_id)
        self.r.zadd(_player_key(player_id), {f"{meta['created_at']}|{league_id}": 0})

    def keep_entropy(self, league_id, player_id, entropy):
        if entropy is None:
            self.r.hdel(_k(league_id, "entropy"), player_id)
        else:
            self.r.hset(_k(league_id, "entropy"), player_id, entropy)

    def entropies(self, league_id):
        return {p.decode(): e.decode() for p, e in self.r.hgetall(_k(league_id, "entropy")).items()}

    def meta(self, league_id):
        got = self.r.hmget(_k(league_id, "meta"), "meta", "status", "version")
        if got[0] is None:
            return None
        return {**json.loads(got[0]), "status": got[1].decode(), "version": int(got[2])}

    def raw_events(self, league_id, after=0):
        return [b.decode() for b in self.r.lrange(_k(league_id, "log"), after, -1)]

    def append(self, league_id, expected, events, status):
        self._commit_point("league append")
        code, n = self._append(keys=[_k(league_id, "meta"), _k(league_id, "log")],
                               args=[expected, status, *(ev.to_json() for ev in events)])
        if not code:
            raise Conflict(int(n))

    def owe(self, league_id, mark):
        self._owe(keys=[OWING], args=[mark, league_id])

    def paid(self, league_id, mark):
        self._paid(keys=[OWING], args=[mark, league_id])

    def owing(self):
        return {m.decode(): int(v) for m, v in self.r.zrange(OWING, 0, -1, withscores=True)}

    def note_games(self, league_id, number, games):
        if games:
            self.r.hset(_k(league_id, "made"), mapping={g: number for g in games})

    def noted_games(self, league_id):
        return {g.decode(): int(n) for g, n in self.r.hgetall(_k(league_id, "made")).items()}

    def drop_games(self, league_id, games):
        if games:
            self.r.hdel(_k(league_id, "made"), *games)

    def of_player(self, player_id, limit=100):
        out = []
        for member in self.r.zrevrangebylex(_player_key(player_id), "+", "-", start=0, num=limit):
            meta = self.meta(member.decode().rpartition("|")[2])
            if meta is not None:  # (a league whose creation failed after its index: none)
                out.append({k: meta.get(k) for k in PUBLIC})
        return out

    def page(self, limit=100):
        out = []
        for member in self.r.zrevrangebylex(LIST, "+", "-", start=0, num=limit):
            meta = self.meta(member.decode().rpartition("|")[2])
            if meta is not None:
                out.append({k: meta.get(k) for k in PUBLIC})
        return out
