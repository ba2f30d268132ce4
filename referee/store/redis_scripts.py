"""The Lua scripts of the Redis store (referee/store/redis.py): each runs atomically
on the node holding its keys, which for a game's own are all in its hash slot."""

# The listing's move of a game into the set of its status, out of the others, if
# ``version`` is newer than the one that last moved it (redis_listing.py).
# KEYS: the bucket's sets (all, version, then one per status); ARGV: member, id,
# version, status.
MOVE = """
local v = redis.call('HGET', KEYS[2], ARGV[2])
if v and tonumber(v) >= tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
redis.call('ZADD', KEYS[1], 0, ARGV[1])
for i = 3, #KEYS do
  if KEYS[i] == KEYS[1]:sub(1, -4) .. ARGV[4] then redis.call('ZADD', KEYS[i], 0, ARGV[1])
  else redis.call('ZREM', KEYS[i], ARGV[1]) end
end
return 1
"""

# KEYS: the game's log, meta, answer and cached state, then the tally's counters
# (the rate limiter's, referee/api/limits.py: the ones read, then the ones hit).
# ARGV: expected length, status, answer, snapshot (seq, code, blob), timer, the
# record's text ('' : not compared), '1' when the same append is sent again (see
# SENT_AGAIN), how many counters are read and hit, how many of the events are
# moves and the seats to act after them ('keep': as they were) for the listing,
# the seconds a recorded answer is kept (its Idempotency-Key honoured), the timer
# the writer has put into the deadline index already ('' : none), each read
# counter's limit, each hit one's limit and seconds, then the events.
#
# The deadline index (redis_timers.py) may run early, never late: the game's
# ``indexed`` field is a time no earlier than its entry there. A new timer no
# earlier than it needs no write to the index (the keeper's tick, finding nothing
# due at the old time, moves the entry on); one earlier, or with none, is refused
# here (4) when the append would otherwise be written (its rate counters already
# stepped: the writer sends it again without them), and the writer puts the timer
# into the index first and sends the append again naming it (ARGV[15]).
APPEND = """
local r, h = tonumber(ARGV[10]), tonumber(ARGV[11])
local a = 16
for i = 1, r do
  if tonumber(redis.call('GET', KEYS[4 + i]) or '0') >= tonumber(ARGV[a + i - 1]) then return {3, i} end
end
a = a + r
local over = 0
for j = 1, h do
  local key = KEYS[4 + r + j]
  redis.call('SET', key, 0, 'EX', ARGV[a + 2 * j - 1], 'NX')
  if redis.call('INCR', key) > tonumber(ARGV[a + 2 * j - 2]) and over == 0 then over = j end
end
if over > 0 then return {3, r + over} end
local first = a + 2 * h
local n = redis.call('LLEN', KEYS[1])
local at = tonumber(ARGV[1])
if n ~= at then
  -- This very append sent again (its answer was lost with its connection) finds
  -- its own events where they were to go, to the byte (each is salted and
  -- chained): it has landed, once.
  local k = #ARGV - first + 1
  if ARGV[9] == '1' and n >= at + k then
    local got = redis.call('LRANGE', KEYS[1], at, at + k - 1)
    for i = 1, k do if got[i] ~= ARGV[first + i - 1] then return {0, n} end end
    return {1, at + k, '', redis.call('HGET', KEYS[2], 'created_at')}
  end
  return {0, n}
end
if ARGV[8] ~= '' and redis.call('HGET', KEYS[2], 'record') ~= ARGV[8] then return {0, n} end
local was = redis.call('HGET', KEYS[2], 'status')
local created = redis.call('HGET', KEYS[2], 'created_at')
if ARGV[3] ~= '' then
  local got = redis.call('GET', KEYS[3])
  if got then return {2, got} end
end
if ARGV[7] ~= 'keep' and ARGV[7] ~= 'none' and ARGV[15] == '' then
  local indexed = redis.call('HGET', KEYS[2], 'indexed')
  if not indexed or ARGV[7] < indexed then return {4, n} end
end
for i = first, #ARGV do redis.call('RPUSH', KEYS[1], ARGV[i]) end
local v = n + #ARGV - first + 1
redis.call('HSET', KEYS[2], 'status', ARGV[2], 'version', v)
if ARGV[7] == 'none' then redis.call('HDEL', KEYS[2], 'timer')
elseif ARGV[7] ~= 'keep' then redis.call('HSET', KEYS[2], 'timer', ARGV[7]) end
if ARGV[15] ~= '' then redis.call('HSET', KEYS[2], 'indexed', ARGV[15]) end
if ARGV[3] ~= '' then redis.call('SET', KEYS[3], ARGV[3], 'EX', ARGV[14]) end
if ARGV[4] ~= '' then redis.call('HSET', KEYS[4], 'seq', ARGV[4], 'code', ARGV[5], 'blob', ARGV[6]) end
-- a game from before the count has none until the listing counts its log (COUNT_MOVES)
if ARGV[12] ~= '0' and redis.call('HEXISTS', KEYS[2], 'moves') == 1 then
  redis.call('HINCRBY', KEYS[2], 'moves', ARGV[12])
end
if ARGV[13] ~= 'keep' then redis.call('HSET', KEYS[2], 'to_act', ARGV[13]) end
return {1, v, was, created}
"""

# The moves of a game stored before 0.3.0, counted once from its log, atomically
# with respect to its appends (KEYS: its log and meta).
COUNT_MOVES = """
local n = redis.call('HGET', KEYS[2], 'moves')
if n then return tonumber(n) end
n = 0
for _, text in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
  local e = cjson.decode(text)
  if type(e.actor) == 'number' and type(e.payload) == 'table' and e.payload.move ~= nil then n = n + 1 end
end
redis.call('HSET', KEYS[2], 'moves', n)
return n
"""


# A new game's record and first event, at once (one hash slot: also on a cluster,
# where a MULTI transaction across commands is not to be relied on).
CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'record', ARGV[1], 'status', ARGV[2], 'version', ARGV[3],
           'game', ARGV[4], 'created_at', ARGV[5], 'moves', 0)
redis.call('RPUSH', KEYS[2], ARGV[6])
if ARGV[7] ~= '' then redis.call('HSET', KEYS[1], 'timer', ARGV[7], 'indexed', ARGV[7]) end
if ARGV[8] ~= '' then redis.call('HSET', KEYS[1], 'to_act', ARGV[8]) end
return 1
"""


# The keeper's write of a game's timer into the deadline index (redis_timers.py),
# after it fired what was due (SET_TIMER), if ``version`` is not older than the one
# that last wrote it: a keeper finishing late never raises an entry a newer append
# lowered. KEYS: the bucket's timers and versions; ARGV: id, version, score ('' : none).
INDEX_TIMER = """
local v = redis.call('HGET', KEYS[2], ARGV[1])
if v and tonumber(v) > tonumber(ARGV[2]) then return 0 end
if ARGV[3] == '' then
  redis.call('ZREM', KEYS[1], ARGV[1])
  redis.call('HDEL', KEYS[2], ARGV[1])
else
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
end
return 1
"""
# A writer's entry put into the deadline index before its append: never later than
# the entry there (the index may run early, never late), tagged with the version
# the append makes so that a keeper's late write for an older one leaves it.
# KEYS: the bucket's timers and versions; ARGV: id, version, score.
LOWER_TIMER = """
local s = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not s or tonumber(ARGV[3]) < tonumber(s) then redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1]) end
local v = redis.call('HGET', KEYS[2], ARGV[1])
if not v or tonumber(v) < tonumber(ARGV[2]) then redis.call('HSET', KEYS[2], ARGV[1], ARGV[2]) end
return 1
"""

# The keeper's move of a timer, only if the log is still at its version; the entry
# it writes next (INDEX_TIMER) is what ``indexed`` vouches for from now on (an entry
# still earlier until then is early, never late).
SET_TIMER = """
if redis.call('HGET', KEYS[1], 'version') ~= ARGV[1] then return 0 end
if ARGV[2] == '' then redis.call('HDEL', KEYS[1], 'timer', 'indexed')
else redis.call('HSET', KEYS[1], 'timer', ARGV[2], 'indexed', ARGV[2]) end
return 1
"""
