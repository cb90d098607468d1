-- Shared by every script of redisson-ratelimit but heartbeat (prepended to each when it is loaded, as written: a
-- line number Redis reports is translated back to its file and line by LuaScripts).
-- A limiter, in RRateLimiter's layout, as five keys (KEYS[1..5] of a script on one limiter; the helpers below
-- take them as a table, since a script may decide several limiters): keys[1] the config hash (rate, interval ms,
-- type 0 OVERALL / 1 PER_CLIENT, keepAliveTime ms), keys[2] and keys[3] the free permits (shared, this
-- client's), keys[4] and keys[5] the grants ZSET (shared, this client's): one member per grant, struct 'Bc0I'
-- (id, permits), scored with the time of the grant. A grant holds its permits until one interval after its score.
-- The law every script keeps: free + permits of the grants in the ZSET = rate.

-- The time of this call in ms: Redis's own clock for '0', else the caller's clock it carries.
local function now_millis(clock)
  if clock ~= '0' then
    return tonumber(clock)
  end
  local time = redis.call('time')
  return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end

-- The permits the given ZSET members hold.
local function held(grants)
  local sum = 0
  for i = 1, #grants do
    local _, permits = struct.unpack('Bc0I', grants[i])
    sum = sum + permits
  end
  return sum
end

-- The free-permits and grants keys of a limiter of the given type ('0' OVERALL, '1' PER_CLIENT).
local function limiter_keys(keys, rateType)
  if rateType == '1' then
    return keys[3], keys[5]
  end
  return keys[2], keys[4]
end

-- The stored config: rate, interval, type, keep-alive, then the hash's fields (rate first, so the fields named
-- `...` from index 5 on, false when absent), in one read; rate nil when the hash is gone or incomplete.
local function stored_config(keys, ...)
  local config = redis.call('hmget', keys[1], 'rate', 'interval', 'type', 'keepAliveTime', ...)
  local rate, interval = tonumber(config[1]), tonumber(config[2])
  if rate == nil or interval == nil or config[3] == false then
    return nil, nil, nil, nil, config
  end
  return rate, interval, config[3], tonumber(config[4]) or 0, config
end

-- Every count of free permits a script of ours writes is also written to the config hash, in a field named after
-- the counter's key: a counter that differs from it was written by someone else (RRateLimiter's release adds to
-- it without touching the grants), and is recounted from the grants.
local function write_free(keys, valueKey, free)
  redis.call('set', valueKey, free, 'KEEPTTL')
  redis.call('hset', keys[1], valueKey, free)
end

-- Free permits as the grants in the window leave them: rate - held, after dropping the expired grants.
local function recount(grantsKey, rate, interval, now)
  redis.call('zremrangebyscore', grantsKey, 0, now - interval)
  return rate - held(redis.call('zrange', grantsKey, 0, -1))
end

-- Adds a grant of `permits` stamped `now`, as RRateLimiter packs its members.
local function add_grant(grantsKey, id, permits, now)
  redis.call('zadd', grantsKey, now, struct.pack('Bc0I', string.len(id), id, permits))
end

-- Holds `permits` from `now` for grants that were lost while the counter says they are taken: a grant like
-- any other (so RRateLimiter's own script works with it), named apart so that a refund never gives it back.
local function hold_lost_grants(grantsKey, grantId, permits, now)
  add_grant(grantsKey, 'held:' .. grantId, permits, now)
  return {'held:' .. grantId, now}
end

-- The ms until the grant with this score leaves the window, within [0, interval].
local function until_expiry(score, interval, now)
  return math.max(0, math.min(interval, tonumber(score) + interval - now))
end
