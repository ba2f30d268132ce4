"""Players in the game store's Redis (the same client: a plain Redis or a Cluster).

Every key of a player carries the hash tag ``{p:ID}``, so a Redis Cluster keeps a
player on one shard and each player's script stays atomic there. The recorded
games (markers, their order, the plan of a recording under way) share the tag
``{referee:ratings}``; confirmation mail, ``{referee:player-mail}``.

Recording a finished game touches several players, so several slots: it is made
exactly once in three steps, each atomic and each safe to repeat.

1. ``RECORD``, one script in the ratings' slot: unless the game is recorded
   already, and only if no other game was recorded since the ratings were read (the
   order is still the one read) and no recording is cut short, it writes the
   game's marker and order number and keeps the whole plan (every player's rating
   before and after) as *pending*.
2. ``APPLY``, one script per player in that player's slot: the player's part,
   unless the player's set of applied games has this one already.
3. The pending plan is cleared.

A process killed anywhere leaves either nothing (before 1) or a pending plan,
which the next recording (or the retried job) finishes first (``finish_pending``)
before it reads any rating; so every player gets each game once, in the order
recorded, and no rating is read half-updated.
"""

from __future__ import annotations

import json

from referee.players import names
from referee.players.base import Conflict, PlayerStore
from referee.players.sqlite import entry_of

R = "{referee:ratings}:"
RATING_KEYS = [R + "games", R + "order", R + "pending"]
CAUGHT_UP = R + "caught-up"  # the catch-up's mark (referee/players/results.py)
M = "{referee:player-mail}:"
INVITES_KEPT = 100  # an address's newest games it was invited to, the most it is shown
LOBBY = "{referee:lobby}:open"  # open games' ids, by when they were opened
# the name index (referee/players/names.py): a sorted set of entries, all scored 0,
# so in the order of their bytes; and the mark that a store from before it was filled
NAMES, NAMES_FILLED = "{referee:player-names}", "{referee:player-names}:filled"

SWAP = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
return 1
"""

RECORD = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return {0, 0} end
local n = tonumber(redis.call('GET', KEYS[2]) or '0')
if redis.call('EXISTS', KEYS[3]) == 1 then return {-1, n} end
if n ~= tonumber(ARGV[2]) then return {-2, n} end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('SET', KEYS[2], n + 1)
redis.call('SET', KEYS[3], ARGV[4])
return {1, n + 1}
"""

# KEYS: the player's applied games, stats, ratings, this game's history.
# ARGV: game id, game, won (0/1), rated (0/1), rating, history entry.
APPLY = """
if redis.call('SADD', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('HINCRBY', KEYS[2], ARGV[2] .. '|played', 1)
redis.call('HINCRBY', KEYS[2], ARGV[2] .. '|won', tonumber(ARGV[3]))
if ARGV[4] == '1' then
  redis.call('HSET', KEYS[3], ARGV[2], ARGV[5])
  redis.call('RPUSH', KEYS[4], ARGV[6])
end
return 1
"""

FINISH = """
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
"""

# KEYS: the player, its confirmation codes' tries (one slot: the player's)
UPDATE = """
local old = redis.call('HGET', KEYS[1], 'confirm') or ''
redis.call('HSET', KEYS[1], 'contacts', ARGV[1], 'confirm', ARGV[2])
if old ~= ARGV[2] then redis.call('DEL', KEYS[2]) end
return 1
"""

# KEYS: the player's confirmation codes' tries (client -> count).
# ARGV: the client, the most tries, how long the count lives (ms).
TAKE_TRY = """
if tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0') >= tonumber(ARGV[2]) then return 0 end
redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return 1
"""

# KEYS: the player, its mailed recovery token. ARGV: the old token hash, the new one.
TAKE_RECOVERY = """
if redis.call('HGET', KEYS[1], 'token_hash') ~= ARGV[1] then return 0 end
if redis.call('HGET', KEYS[2], 'hash') ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], 'token_hash', ARGV[2])
redis.call('DEL', KEYS[2])
return 1
"""

CLAIM_MAIL = """
local at = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not at or tonumber(at) ~= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
return 1
"""


# KEYS: the player's pending invitations (a sorted set: what -> when it expires).
# ARGV: now, expires, what, the most pending at once. The set itself expires with
# its last invitation, so a player nobody answers keeps nothing for ever.
INVITE = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if not redis.call('ZSCORE', KEYS[1], ARGV[3]) and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then
  return redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2]
end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')[2]
redis.call('EXPIREAT', KEYS[1], math.ceil(tonumber(last)))
return false
"""


def _p(player_id: str, what: str) -> str:
    return f"{{p:{player_id}}}:{what}"


def _o(game_id: str) -> str:
    return f"{{o:{game_id}}}:open-game"


def _when(created: str) -> float:
    from datetime import datetime

    return datetime.fromisoformat(created.replace("Z", "+00:00")).timestamp()


def _text(v) -> str | None:
    return None if v is None else v.decode() if isinstance(v, bytes) else str(v)


class RedisPlayers(PlayerStore):
    def __init__(self, r):
        self.r = r
        self._record = r.register_script(RECORD)
        self._apply = r.register_script(APPLY)
        self._finish = r.register_script(FINISH)
        self._update = r.register_script(UPDATE)
        self._take_try = r.register_script(TAKE_TRY)
        self._claim_mail = r.register_script(CLAIM_MAIL)
        self._swap = r.register_script(SWAP)
        self._invite = r.register_script(INVITE)
        self._take_recovery = r.register_script(TAKE_RECOVERY)
        if not self.r.exists(NAMES_FILLED):  # a store from before the name index: its players indexed once
            for key in self.r.scan_iter(match="{p:*}:player", count=1000):
                pid, name = self.r.hmget(key, "id", "name")
                if pid is not None and name is not None:
                    self.r.zadd(NAMES, {e: 0 for e in names.entries(pid.decode(), name.decode())})
            self.r.set(NAMES_FILLED, 1)

    # ---- players ---------------------------------------------------------------------

    def create(self, player, token_hash, contacts, confirm):
        fields = {"id": player["id"], "name": player["name"], "bot": player.get("bot") or "",
                  "created": player["created"], "token_hash": token_hash, "contacts": json.dumps(contacts),
                  "confirm": "" if confirm is None else json.dumps(confirm)}
        if not self.r.hsetnx(_p(player["id"], "player"), "id", player["id"]):
            raise ValueError(f"player {player['id']} exists already")
        self.r.hset(_p(player["id"], "player"), mapping=fields)
        self.r.zadd(NAMES, {e: 0 for e in names.entries(player["id"], player["name"])})

    def names_after(self, after, prefix, limit):
        # every entry that begins with ``prefix`` sorts below its bytes and 0xff (no UTF-8 byte)
        got = self.r.zrangebylex(NAMES, b"(" + after.encode(), b"(" + prefix.encode() + b"\xff", start=0, num=limit)
        return [e.decode() for e in got]

    def get(self, player_id):
        h = self.r.hgetall(_p(player_id, "player"))
        if not h or b"token_hash" not in h:
            return None
        h = {k.decode(): v.decode() for k, v in h.items()}
        return {"id": h["id"], "name": h["name"], "bot": h["bot"] or None, "created": h["created"],
                "token_hash": h["token_hash"], "contacts": json.loads(h["contacts"]),
                "confirm": json.loads(h["confirm"]) if h["confirm"] else None}

    def update(self, player_id, contacts, confirm):
        self._update(keys=[_p(player_id, "player"), _p(player_id, "confirm-tries")],
                     args=[json.dumps(contacts), "" if confirm is None else json.dumps(confirm)])

    def take_try(self, player_id, client, most, ttl):
        return bool(self._take_try(keys=[_p(player_id, "confirm-tries")],
                                   args=[client, most, max(1, int(ttl * 1000))]))

    # ---- a lost token's recovery ------------------------------------------------------

    def recovery_set(self, player_id, token_hash, expires):
        key = _p(player_id, "recovery")
        with self.r.pipeline(transaction=True) as pipe:  # one slot: the player's
            pipe.delete(key)
            pipe.hset(key, mapping={"hash": token_hash, "expires": repr(expires)})
            pipe.expireat(key, int(expires) + 1)
            pipe.execute()

    def recovery_get(self, player_id):
        h, expires = self.r.hmget(_p(player_id, "recovery"), "hash", "expires")
        return {"hash": h.decode(), "expires": float(expires)} if h is not None and expires is not None else None

    def recovery_take(self, player_id, old_hash, new_hash):
        return bool(self._take_recovery(keys=[_p(player_id, "player"), _p(player_id, "recovery")],
                                        args=[old_hash, new_hash]))

    # ---- confirmation mail ------------------------------------------------------------

    def claim_address(self, address_key, now, window):
        return bool(self.r.set(M + "addr:" + address_key, int(now), nx=True, px=max(1, int(window * 1000))))

    def queue_mail(self, player_id, at):
        self.r.hdel(M + "tries", player_id)
        self.r.zadd(M + "due", {player_id: at})

    def own_address(self, address_key, player_id):
        self.r.set(f"{{a:{address_key}}}:owner", player_id)

    def address_owner(self, address_key):
        return _text(self.r.get(f"{{a:{address_key}}}:owner"))

    def due_mail(self, now, limit=100):
        got = self.r.zrangebyscore(M + "due", "-inf", now, start=0, num=limit, withscores=True)
        tries = self.r.hmget(M + "tries", [m for m, _ in got]) if got else []
        return [{"player": m.decode(), "next_try": s, "attempts": int(t or 0)}
                for (m, s), t in zip(got, tries, strict=True)]

    def claim_mail(self, entry, until):
        return bool(self._claim_mail(keys=[M + "due"], args=[entry["player"], repr(entry["next_try"]), repr(until)]))

    def mail_done(self, player_id):
        self.r.zrem(M + "due", player_id)
        self.r.hdel(M + "tries", player_id)

    def mail_failed(self, player_id, attempts, next_try, error):
        self.r.hset(M + "tries", player_id, attempts)
        self.r.zadd(M + "due", {player_id: next_try}, xx=True)

    # ---- the games a player holds a seat in -------------------------------------------

    def seat_in(self, player_id, game_id, seat):
        self.r.hset(_p(player_id, "seats"), game_id, seat)

    def unseat(self, player_id, game_id):
        self.r.hdel(_p(player_id, "seats"), game_id)

    def seats(self, player_id):
        return {_text(g): int(s) for g, s in self.r.hgetall(_p(player_id, "seats")).items()}

    # ---- open games (each its own key: a join is one script on one shard) --------------

    def open_create(self, game):
        self.r.set(_o(game["id"]), json.dumps(game, sort_keys=True), nx=True)
        self.r.zadd(LOBBY, {game["id"]: _when(game["created"])})

    def open_get(self, game_id):
        return _text(self.r.get(_o(game_id)))

    def open_swap(self, game_id, old_text, game):
        done = bool(self._swap(keys=[_o(game_id)], args=[old_text, json.dumps(game, sort_keys=True)]))
        if done and game["status"] != "open":  # out of the lobby (its read skips it meanwhile)
            self.r.zrem(LOBBY, game_id)
        return done

    def invite(self, address_key, game_id):
        # only the newest are ever read (``invited``): the list keeps no more
        key = f"{{a:{address_key}}}:invites"
        pipe = self.r.pipeline(transaction=False)
        pipe.rpush(key, game_id)
        pipe.ltrim(key, -INVITES_KEPT, -1)
        pipe.execute()

    def invited(self, address_key, limit=INVITES_KEPT):
        return [_text(g) for g in self.r.lrange(f"{{a:{address_key}}}:invites", -limit, -1)]

    def lobby(self, limit, after):
        # After the cursor's place (when it was opened, then its id, as the sorted set
        # orders ties), found from its own record: a game that left the lobby since
        # still marks its place.
        low, past = "-inf", None
        if after is not None:
            text = self.r.get(_o(after))
            if text is not None:
                low, past = _when(json.loads(text)["created"]), (_when(json.loads(text)["created"]), after)
        out = []
        offset = 0
        while len(out) < limit:
            rows = self.r.zrangebyscore(LOBBY, low, "+inf", start=offset, num=limit, withscores=True)
            if not rows:
                break
            offset += len(rows)
            ids = [_text(i) for i, score in rows if past is None or (score, _text(i)) > past]
            pipe = self.r.pipeline(transaction=False)  # one trip, keys on any shard
            for i in ids:
                pipe.get(_o(i))
            for text in pipe.execute():
                game = json.loads(text) if text else None
                if game is not None and game["status"] == "open" and len(out) < limit:
                    out.append(game)
        return out

    # ---- invitations (each key in the invited player's slot) ---------------------------

    def invitation_add(self, player_id, what, now, expires, most):
        full = self._invite(keys=[_p(player_id, "invitations")], args=[repr(now), repr(expires), what, most])
        return None if full is None else float(full)

    def invitation_drop(self, player_id, what):
        self.r.zrem(_p(player_id, "invitations"), what)

    def invitations_of(self, player_id, now):
        return [_text(w) for w in self.r.zrangebyscore(_p(player_id, "invitations"), f"({now!r}", "+inf")]

    def invitation_mail_claim(self, player_id, inviter, now, seconds):
        return bool(self.r.set(_p(player_id, "invited-by:" + inviter), int(now), nx=True,
                               px=max(1, int(seconds * 1000))))

    # ---- results ---------------------------------------------------------------------

    def ratings(self, player_id):
        return {k.decode(): json.loads(v) for k, v in self.r.hgetall(_p(player_id, "ratings")).items()}

    def stats(self, player_id):
        out: dict[str, dict] = {}
        for k, v in self.r.hgetall(_p(player_id, "stats")).items():
            game, _, what = k.decode().rpartition("|")
            out.setdefault(game, {"played": 0, "won": 0})[what] = int(v)
        return out

    def history(self, player_id, game, after=0, limit=100, newest=False):
        key = _p(player_id, "history:" + game)
        if newest:
            pipe = self.r.pipeline(transaction=True)  # one slot: the length and the page agree
            pipe.llen(key)
            pipe.lrange(key, -limit, -1)
            length, items = pipe.execute()
            first = length - len(items) + 1
        else:
            items, first = self.r.lrange(key, after, after + limit - 1), after + 1
        return [{"n": first + i, **json.loads(e)} for i, e in enumerate(items)]

    def rating_read(self, player_ids, game):
        order, pending = self.r.mget(RATING_KEYS[1], RATING_KEYS[2])
        pipe = self.r.pipeline(transaction=False)
        for pid in player_ids:
            pipe.hget(_p(pid, "ratings"), game)
        got = pipe.execute() if player_ids else []
        return (int(order or 0), None if pending is None else json.loads(pending),
                {pid: None if v is None else json.loads(v) for pid, v in zip(player_ids, got, strict=True)})

    def recorded(self, game_id):
        got = self.r.hget(RATING_KEYS[0], game_id)
        return None if got is None else json.loads(got)

    def caught_up(self):
        got = self.r.get(CAUGHT_UP)
        return None if got is None else got.decode()

    def mark_caught_up(self, mark):
        self.r.set(CAUGHT_UP, mark)

    def record(self, made, expected_order):
        order = expected_order + 1
        marker = {"order": order, "game": made["game"], "ended_at": made["ended_at"], "rated": made["rated"]}
        plan = json.dumps({**made, "order": order})
        self._commit_point("before commit")
        code, now = self._record(keys=RATING_KEYS, args=[made["game_id"], expected_order, json.dumps(marker), plan])
        if code == 0:
            return False
        if code < 0:
            raise Conflict(int(now))
        self._carry_out(plan)
        return True

    def _carry_out(self, plan_text: str) -> None:
        plan = json.loads(plan_text)
        for p in plan["players"]:
            pid, game = p["player"], plan["game"]
            entry = json.dumps(entry_of(plan, p, plan["order"])) if plan["rated"] else ""
            self._apply(keys=[_p(pid, "rated"), _p(pid, "stats"), _p(pid, "ratings"), _p(pid, "history:" + game)],
                        args=[plan["game_id"], game, int(p["won"]), int(plan["rated"]),
                              json.dumps(p.get("after")), entry])
            self._commit_point("between players")
        self._finish(keys=[RATING_KEYS[2]], args=[plan_text])

    def finish_pending(self):
        pending = self.r.get(RATING_KEYS[2])
        if pending is not None:
            self._carry_out(pending.decode())

    def recorded_games(self):
        got = [(k.decode(), json.loads(v)) for k, v in self.r.hgetall(RATING_KEYS[0]).items()]
        return sorted(got, key=lambda kv: kv[1]["order"])

    def all_ratings(self):
        out: dict[str, dict[str, dict]] = {}
        for key in self.r.scan_iter(match="{p:*}:ratings", count=1000):
            pid = key.decode()[3:].partition("}")[0]
            out[pid] = self.ratings(pid)
        return out
