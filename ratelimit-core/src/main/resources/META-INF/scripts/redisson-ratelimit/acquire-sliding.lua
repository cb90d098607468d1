-- acquire-sliding: acquire for a limiter declared as a sliding window, alone, for its common case: no config yet,
-- no counter and no grants (a new limiter), or the config stored, of the declared type and, unless the check is '-', the
-- declared one, with no counter (recounted from the grants) or the counter and its copy agreeing (see write_free in
-- common.lua) and grants in the ZSET, or none left in the window with every permit free. Anything else (a config to
-- apply, lost grants, a counter written by someone else, another algorithm's state) answers {-4} before writing
-- anything, and the caller sends the call again as acquire, whose decide_sliding (decide.lua) knows every case.
-- The decision is decide_sliding's (the same writes, arithmetic and reply; expired grants are read before they are
-- removed, so that no case left to acquire finds anything written), written for Redis's cost per call, which runs
-- the whole chunk each time: no function definitions, and operators where they do what a library call would
-- (s + 0 is tonumber(s), x - x % 1 is math.floor(x)), since each call of a library function costs about 1k
-- instructions.
--
-- A lease (the argument ends with ' <lease ms> <permits wanted>', see decide.lua): the grant may take more permits
-- than asked, min(wanted, free / 2), for the caller to spend in memory until the lease ends; stamped at its end
-- (now + lease ms) in a member of its own, 'lease:<end>', so that the window counts it from now until one interval
-- after the last moment it can be spent. Its reply: {0, free, next, end, permits granted}; a grant of no more than
-- asked (free too low to share) is a plain one, stamped now. Refunded by its end (refund.lua).
--
-- KEYS: see common.lua. ARGV[1]: decide_sliding's argument (see decide.lua).

local wantedText, clock, typeArg, check, leaseArg = string.match(ARGV[1],
  '^(%d+) (%d+) %S+ %d+ %d+ ([01]) %d+ ([-urk])(.*)$')
local rateArg, intervalArg, keepAliveArg
if wantedText == nil then
  error('redisson-ratelimit: malformed acquire argument')
end
local leaseMillis, leaseWanted
if leaseArg ~= '' then
  leaseMillis, leaseWanted = string.match(leaseArg, '^ (%d+) (%d+)$')
  if leaseMillis == nil then
    error('redisson-ratelimit: malformed acquire argument')
  end
end
local wanted = wantedText
local valueKey, grantsKey = KEYS[2], KEYS[4]
if typeArg == '1' then
  valueKey, grantsKey = KEYS[3], KEYS[5]
end
local config = redis.call('hmget', KEYS[1], 'rate', 'interval', 'type', 'keepAliveTime', valueKey)
local rate, interval, keepAlive = config[1], config[2], config[4]
local stored, configured = nil, rate and interval and config[3]
if not configured or check ~= '-' then
  rateArg, intervalArg, keepAliveArg = string.match(ARGV[1], '^%d+ %d+ %S+ (%d+) (%d+) [01] (%d+)')
end
if not configured then
  -- a new limiter: the declared config, written unless no call could ever take from it
  rate, interval, keepAlive, wanted = rateArg + 0, intervalArg + 0, keepAliveArg + 0, wanted + 0
  if wanted > rate then
    return {-1, rate}
  end
  stored = redis.call('get', valueKey)
  if stored or redis.call('exists', grantsKey) == 1 then
    return {-4} -- a counter or grants without config, or another algorithm's state
  end
  redis.call('hset', KEYS[1], 'rate', rate, 'interval', interval, 'type', typeArg, 'keepAliveTime', keepAlive)
else
  if config[3] ~= typeArg or (check ~= '-' and (rate ~= rateArg or interval ~= intervalArg
      or keepAlive ~= keepAliveArg)) then
    return {-4}
  end
  rate, interval, keepAlive, wanted = rate + 0, interval + 0, (keepAlive or 0) + 0, wanted + 0
  if wanted > rate then
    return {-1, rate}
  end
  stored = redis.call('get', valueKey)
end
local field = config[5]
local written, sliceEnd, slicePermits, started
if field then
  written, sliceEnd, slicePermits, started = string.match(field, '^([^:]*):(%d+):(%d+):?([%d.]*)$')
end
if stored and written ~= stored then
  return {-4}
end
local now, nowMicros, time
if clock == '0' then
  time = redis.call('time')
  local micros = time[2] + 0 -- the text made a number once, not at each use
  now = time[1] * 1000 + (micros - micros % 1000) / 1000
  nowMicros = time[1] * 1000000 + micros
else
  now = clock + 0
  nowMicros = now * 1000
  time = {(now - now % 1000) / 1000, now % 1000 * 1000}
end

local free, oldest
local edge = now - interval
local changed, leaving = false, nil
if not configured then
  free, oldest, changed = rate, {}, true -- a new limiter: no grants (looked for above)
elseif not stored then
  -- no counter (a limiter RRateLimiter's trySetRate made, or a lost counter): the grants tell
  redis.call('zremrangebyscore', grantsKey, '0', edge)
  local grants = redis.call('zrange', grantsKey, '0', '-1')
  free = rate
  for i = 1, #grants do
    local _, permits = struct.unpack('Bc0I', grants[i])
    free = free - permits
  end
  oldest = redis.call('zrange', grantsKey, '0', '0', 'withscores')
  changed = true
else
  free = stored + 0
  oldest = redis.call('zrange', grantsKey, '0', '1', 'withscores')
  if #oldest == 0 then
    return {-4}
  end
  if oldest[2] + 0 <= edge then
    if #oldest == 2 or oldest[4] + 0 > edge then
      leaving = oldest[1]
      local _, permits = struct.unpack('Bc0I', leaving)
      free = free + permits
      oldest = {oldest[3], oldest[4]}
    else
      -- read before anything is written: a case left to acquire must find the state as it was
      local expired = redis.call('zrangebyscore', grantsKey, '0', edge)
      for i = 1, #expired do
        local _, permits = struct.unpack('Bc0I', expired[i])
        free = free + permits
      end
      oldest = redis.call('zrangebyscore', grantsKey, '(' .. edge, '+inf', 'withscores', 'limit', '0', '1')
      if #oldest == 0 and free ~= rate then
        return {-4}
      end
      redis.call('zremrangebyscore', grantsKey, '0', edge)
    end
    changed = true
    if #oldest == 0 and free ~= rate then
      -- the one grant left the window, yet the counter says more are out (lost grants), or fewer: acquire's case;
      -- nothing was written on this path
      return {-4}
    end
  end
end

local wait, nextMillis, added = 0, interval, false
local width = (interval - interval % 1024) / 1024
if width < interval / 1024 then
  width = width + 1
end
if width < 1 then
  width = 1
end
local leaseEnd, leased
if free >= wanted and leaseMillis then
  leased = leaseWanted + 0
  local share = (free - free % 2) / 2
  if leased > share then
    leased = share
  end
  if leased > wanted then
    leaseEnd = now + leaseMillis
  end
end
if leaseEnd then
  -- the lease's own member (merged with another lease ending in the same ms), outside the slices
  local id = 'lease:' .. leaseEnd
  local before = 0
  local same = redis.call('zrangebyscore', grantsKey, leaseEnd, leaseEnd)
  for i = 1, #same do
    local sameId, permits = struct.unpack('Bc0I', same[i])
    if sameId == id then
      before = permits
      redis.call('zrem', grantsKey, same[i])
    end
  end
  redis.call('zadd', grantsKey, leaseEnd, struct.pack('Bc0I', #id, id, before + leased))
  if #oldest == 0 then
    started = time[1] .. '.' .. time[2]
  end
  if leaving then
    redis.call('zrem', grantsKey, leaving)
  end
  free = free - leased
  added, changed = true, true
elseif free >= wanted then
  local stamp = now - now % width + width - 1
  local stampText = tostring(stamp)
  if #oldest == 0 then
    started = time[1] .. '.' .. time[2] -- the grants start with this one (see write_free in common.lua)
  end
  if sliceEnd ~= stampText or #oldest == 0 or slicePermits == '0' then
    local id = 's' .. stampText
    redis.call('zadd', grantsKey, stampText, struct.pack('Bc0I', #id, id, wanted))
    sliceEnd, slicePermits = stampText, wantedText
  else
    local id = 's' .. stampText
    local merged = struct.pack('Bc0I', #id, id, slicePermits + wanted)
    redis.call('zadd', grantsKey, stampText, merged)
    if redis.call('zrem', grantsKey, struct.pack('Bc0I', #id, id, slicePermits + 0)) == 1 then
      slicePermits = slicePermits + wanted
    else
      -- the member was gone (given back whole, or lost): the slice holds this grant alone
      redis.call('zrem', grantsKey, merged)
      redis.call('zadd', grantsKey, stampText, struct.pack('Bc0I', #id, id, wanted))
      slicePermits = wantedText
    end
  end
  if leaving then
    redis.call('zrem', grantsKey, leaving)
  end
  free = free - wanted
  added, changed = true, true
else
  if leaving then
    redis.call('zrem', grantsKey, leaving)
  end
  wait = interval
  local back = free
  local grants = redis.call('zrange', grantsKey, '0', wanted - free - 1, 'withscores')
  for i = 1, #grants, 2 do
    local _, permits = struct.unpack('Bc0I', grants[i])
    back = back + permits
    if back >= wanted then
      wait = grants[i + 1] + interval - now
      wait = wait < 0 and 0 or (wait > interval and interval or wait)
      break
    end
  end
  if wait < 1 then
    wait = 1
  end
end
if #oldest > 0 then
  nextMillis = oldest[2] + interval - now
  nextMillis = nextMillis < 0 and 0 or (nextMillis > interval and interval or nextMillis)
end
if changed then
  local freeText = free .. '' -- formatted once (Redis formats a number argument again)
  redis.call('set', valueKey, freeText, 'KEEPTTL')
  redis.call('hset', KEYS[1], valueKey, freeText .. ':' .. (sliceEnd or 0) .. ':' .. (slicePermits or 0) .. ':'
    .. (started or ''))
end
if keepAlive > 0 then
  local needed = interval + width
  if leaseEnd then
    needed = needed + leaseMillis -- a lease's member counts one interval past its end
  end
  local lifetime = needed
  if keepAlive > lifetime then
    lifetime = keepAlive
  end
  local slack = lifetime / 16
  slack = slack - slack % 1
  if added and slack > lifetime - needed then
    slack = lifetime - needed
  end
  if not stored and configured then
    -- a renewal forced by a lost counter must not cut short a member stamped ahead (a lease's): it counts until one
    -- interval past its score
    local newest = redis.call('zrange', grantsKey, -1, -1, 'withscores')
    if #newest > 0 and newest[2] + interval - now > lifetime then
      lifetime = newest[2] + interval - now
    end
  end
  if not stored or redis.call('pttl', grantsKey) < lifetime - slack then
    redis.call('pexpire', KEYS[1], lifetime)
    redis.call('pexpire', valueKey, lifetime)
    redis.call('pexpire', grantsKey, lifetime)
  end
elseif keepAlive == 0 then
  -- no keep-alive of our own: the keys follow a TTL set on the config hash, as RRateLimiter's do
  local ttl = redis.call('pttl', KEYS[1])
  if ttl > 0 then
    redis.call('pexpire', valueKey, ttl)
    redis.call('pexpire', grantsKey, ttl)
  end
end
if leaseEnd then
  return {0, free < 0 and 0 or free, nextMillis, leaseEnd, leased}
end
if wait == 0 then
  return {0, free < 0 and 0 or free, nextMillis, nowMicros} -- the grant's receipt, see decide.lua
end
return {wait, free < 0 and 0 or free, nextMillis}
