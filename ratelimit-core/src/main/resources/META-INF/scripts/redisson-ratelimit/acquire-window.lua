-- acquire-window: acquire for a limiter declared as a fixed window (see fixed-window.lua), alone, for its common
-- case: the key absent or holding an ended window (an empty window), or the current window, with the declared rate
-- and bounds or, when the check is '-', the stored ones. Anything else (another config to check, another algorithm's
-- state) answers {-4}, and the caller sends the call again as acquire, which knows them all. The decision is
-- window_own's and window_decide's, step for step (same reply, receipt included), written for Redis's cost per call as
-- acquire-bucket.lua is.
--
-- A lease (the argument's 'L<lease ms>:<permits wanted>' before the grant id): the grant may take min(wanted, half the
-- window's free permits), counted in the window like any grant, for the caller to spend in memory until the lease ends
-- or the window does, whichever comes first: so every permit spent in a window was counted in it. Its reply: a grant's,
-- next the whole ms left in the window (rounded down: the caller stops spending no later than the window's end by
-- Redis's clock), then the permits granted. When half the free permits are no more than asked, a plain grant.
--
-- KEYS: see common.lua. ARGV[1]: the fixed window's argument, see algorithms.lua (its grant id unused here).

local wanted, clock, rate, interval, rateType, check, bounds, leaseMark =
  string.match(ARGV[1], '^f (%d+) (%d+) (%d+) (%d+) ([01]) ([-urk]) ([%d,]+) (L?)')
if wanted == nil then
  error('redisson-ratelimit: malformed fixed window argument')
end
local leaseWanted
if leaseMark ~= '' then
  -- else a grant id that starts with L
  leaseWanted = string.match(ARGV[1], ' L%d+:(%d+) %S+$')
end
wanted, rate = wanted + 0, rate + 0
local now, nowMicros
if clock == '0' then
  local time = redis.call('time')
  local micros = time[2] + 0 -- the text made a number once, not at each use
  now = time[1] * 1000 + (micros - micros % 1000) / 1000
  nowMicros = time[1] * 1000000 + micros
else
  now = clock + 0
  nowMicros = now * 1000
end
-- window_bounds
local start, finish
if bounds == '0' then
  local length = interval + 0
  start = now - now % length
  finish = start + length
else
  local previous, nextEnd
  previous, start, finish, nextEnd = string.match(bounds, '^(%d+),(%d+),(%d+),(%d+)$')
  if previous == nil then
    error('redisson-ratelimit: malformed fixed window argument')
  end
  if now < previous + 0 or now >= nextEnd + 0 then
    return {-5, now} -- stale bounds, see fixed-window.lua
  elseif now < start + 0 then
    start, finish = previous + 0, start + 0
  elseif now >= finish + 0 then
    start, finish = finish + 0, nextEnd + 0
  else
    start, finish = start + 0, finish + 0
  end
end
local valueKey = rateType == '1' and KEYS[3] or KEYS[2]
local value = redis.call('get', valueKey)
local count, suffix = 0, nil
if value then
  local storedCount, storedSuffix = string.match(value, '^f(%d+)(:.*)$') -- see fixed-window.lua
  if storedCount == nil or #storedSuffix ~= 33 then
    return {-4} -- not a fixed window's, or one of an earlier layout
  end
  local storedStart, storedEnd, storedRate = struct.unpack('>ddd', storedSuffix, 2)
  if now < storedEnd then
    if check ~= '-' and (storedRate ~= rate or storedStart ~= start or storedEnd ~= finish) then
      return {-4} -- another config to check: acquire.lua applies the check
    end
    -- the current window, with its own config (which decides when the check says not to look, as in window_own),
    -- written back with its own bounds' bytes
    count, suffix, rate, start, finish = storedCount + 0, storedSuffix, storedRate, storedStart, storedEnd
  elseif check ~= '-' and redis.call('exists', KEYS[1]) == 1 then
    return {-4}
  end
elseif check ~= '-' and redis.call('exists', KEYS[1]) == 1 then
  return {-4} -- a sliding window's config hash, looked for on a config check only, as window_own does
end
if wanted > rate then
  return {-1, rate}
end
local left = finish - now
if left < 0 then
  left = 0
end
if count + wanted <= rate then
  local granted = wanted
  if leaseWanted then
    local share = rate - count
    share = (share - share % 2) / 2
    granted = leaseWanted + 0
    if granted > share then
      granted = share
    end
    if granted <= wanted then
      granted = wanted
    end
  end
  if suffix then
    redis.call('set', valueKey, 'f' .. (count + granted) .. suffix, 'KEEPTTL') -- see window_write
  else
    redis.call('set', valueKey, 'f' .. (count + granted) .. ':' .. struct.pack('>dddd', start, finish, rate, nowMicros),
      'PX', left < 1 and 1 or left)
  end
  if granted > wanted then
    local spend = finish * 1000 - nowMicros
    return {0, rate - count - granted, (spend - spend % 1000) / 1000, start, nowMicros, granted}
  end
  return {0, rate - count - wanted, left, start, nowMicros}
end
return {left < 1 and 1 or left, count < rate and rate - count or 0, left}
