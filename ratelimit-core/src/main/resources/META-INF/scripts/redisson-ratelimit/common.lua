-- Shared by the sliding window's scripts (prepended to each after clock.lua when it is loaded, as written: a line
-- number Redis reports is translated back to its file and line by LuaScripts).
-- A limiter, in RRateLimiter's layout, as five keys (KEYS[1..5] of a script on one limiter; the helpers below
-- take them as a table, since a script may decide several limiters): keys[1] the config hash (rate, interval ms,
-- type 0 OVERALL / 1 PER_CLIENT, keepAliveTime ms), keys[2] and keys[3] the free permits (shared, this
-- client's), keys[4] and keys[5] the grants ZSET (shared, this client's): members packed as RRateLimiter packs
-- them, struct 'Bc0I' (id, permits), scored with the time they stand for. A member holds its permits until one
-- interval after its score.
-- Slices: the grants made within one slice of the window (1/SLICES of the interval, at least 1 ms) share one
-- member, id 's<slice end>', scored with the slice's last ms: no grant leaves the window before it should, and a
-- window never holds more than SLICES + 1 of our members, whatever the rate.
-- The law every script keeps: free + permits of the grants in the ZSET = rate.

local SLICES = 1024

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
-- it without touching the grants), and is recounted from the grants. The field also tells the newest slice's
-- member and when the grants started (the time of the grant that found the ZSET empty or lost, as '<s>.<µs>': a
-- grant made before was never counted by the grants there now, so a refund gives it nothing back): '<free>:<slice
-- end>:<its permits>:<started>'.
local function write_free(keys, valueKey, free, sliceEnd, slicePermits, started)
  redis.call('set', valueKey, free, 'KEEPTTL')
  redis.call('hset', keys[1], valueKey, free .. ':' .. (sliceEnd or 0) .. ':' .. (slicePermits or 0) .. ':'
    .. (started or ''))
end

-- The field write_free wrote: the free permits it wrote (a string, as GET answers them; false when none), the
-- newest slice's end and permits (numbers, nil when unknown) and when the grants started (the text written, '' or
-- nil when unknown).
local function written_free(field)
  if not field then
    return false
  end
  local free, sliceEnd, slicePermits, started = string.match(field, '^([^:]*):(%d+):(%d+):?([%d.]*)$')
  if free == nil then
    return field
  end
  return free, tonumber(sliceEnd), tonumber(slicePermits), started
end

-- The time `micros` (a number of µs) as write_free keeps when the grants started, '<s>.<µs>': whole numbers below
-- 2^47, which Lua writes exactly without a format call.
local function started_text(micros)
  local fraction = micros % 1000000
  return ((micros - fraction) / 1000000) .. '.' .. fraction
end

-- The width of a slice, in ms, for an interval.
local function slice_width(interval)
  return math.max(1, math.ceil(interval / SLICES))
end

-- The member of a slice ending at `stamp` that holds `permits`.
local function slice_member(stamp, permits)
  local id = 's' .. stamp
  return struct.pack('Bc0I', string.len(id), id, permits)
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

-- Adds a grant of `permits` made at `now` to the member of its slice, and returns that slice's end and permits.
-- sliceEnd and slicePermits: the newest slice's member as written_free read it, trusted only when the ZSET had
-- members (a lost ZSET lost it too) and checked by removing it, after the new member is in (a ZSET left empty
-- would go, and its TTL with it).
local function add_to_slice(grantsKey, sliceEnd, slicePermits, permits, now, interval, hadMembers)
  local width = slice_width(interval)
  local stamp = now - now % width + width - 1
  if sliceEnd ~= stamp or not hadMembers or slicePermits == 0 then
    redis.call('zadd', grantsKey, stamp, slice_member(stamp, permits))
    return stamp, permits
  end
  local merged = slice_member(stamp, slicePermits + permits)
  redis.call('zadd', grantsKey, stamp, merged)
  if redis.call('zrem', grantsKey, slice_member(stamp, slicePermits)) == 1 then
    return stamp, slicePermits + permits
  end
  -- the member was gone (given back whole, or lost): the slice holds this grant alone
  redis.call('zrem', grantsKey, merged)
  redis.call('zadd', grantsKey, stamp, slice_member(stamp, permits))
  return stamp, permits
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
