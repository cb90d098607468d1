-- fixed-window: a counter per window (prepended to the scripts that know it, after keyed.lua; its common case is
-- repeated inline in acquire-window.lua: a change to the decision goes into both). The key is the
-- limiter's free-permits key of its type (keys[2] OVERALL, keys[3] PER_CLIENT), holding 'f<count>:' and then the
-- window's start (ms), end (ms) and rate as 24 bytes (struct '>ddd': big-endian doubles), and expiring at the
-- window's end (an absent key is an empty window). The binary numbers are read and written without a number's text
-- (shorter, and cheaper per call). A call that would take the count above the rate is refused and takes nothing.
-- The windows: aligned to the epoch (start = now - now % interval), or, for a calendar quota, the caller's
-- computation of the previous, current and next window's bounds (the caller knows the zone's calendar), of which
-- Redis's clock picks the one it is in. When Redis's clock is in none of them (the caller's clock is a window or more
-- off), nothing is decided or written: the reply is {-5, Redis's time in ms}, from which the caller computes the
-- bounds again.

local STALE_BOUNDS = -5

-- The stored state: count, start, end, rate (numbers); nil when `value` is not a fixed window's.
local function window_read(value)
  if not value then
    return nil
  end
  local count, suffix = string.match(value, '^f(%d+)(:.*)$')
  if count == nil or string.len(suffix) ~= 25 then
    return nil
  end
  local start, finish, rate = struct.unpack('>ddd', suffix, 2)
  return tonumber(count), start, finish, rate
end

-- The window holding `now`: from the bounds given (previous start, start, end, next end; all 0 for windows of
-- `interval` aligned to the epoch, whose argument says '0'); nil when none of them holds it.
local function window_bounds(now, interval, previous, start, finish, nextEnd)
  if finish == 0 then
    local first = now - now % interval
    return first, first + interval
  end
  if now < previous or now >= nextEnd then
    return nil
  elseif now < start then
    return previous, start
  elseif now >= finish then
    return finish, nextEnd
  end
  return start, finish
end

-- Writes the window's count; suffix: ':' and the packed bounds and rate as stored, or nil to build it.
local function window_write(valueKey, count, start, finish, rate, now, suffix)
  redis.call('set', valueKey, 'f' .. count .. (suffix or (':' .. struct.pack('>ddd', start, finish, rate))),
    'PX', math.max(1, finish - now))
end

-- Takes `wanted` permits from the window [start, finish) that holds `count`, or tells when they can be free (suffix:
-- see window_write). changed: the config (or the algorithm) changed with this call, so the window is written whatever
-- the decision: the new config holds from now on, with the count carried out of the old one.
-- Returns {wait ms (0 when granted), free, next ms (until the window ends)}, or {-1, rate}.
local function window_decide(valueKey, wanted, now, rate, count, start, finish, suffix, changed)
  local left = math.max(0, finish - now)
  if wanted <= rate and count + wanted <= rate then
    window_write(valueKey, count + wanted, start, finish, rate, now, suffix)
    return {0, rate - count - wanted, left}
  end
  if changed then
    window_write(valueKey, count, start, finish, rate, now, suffix)
  end
  if wanted > rate then
    return {-1, rate}
  end
  return {math.max(1, left), math.max(0, rate - count), left}
end

-- The argument of a fixed window's decision (see algorithms.lua), parsed: permits, clock, grant id, rate, interval,
-- type, check, and the window [start, end) that holds `now` (nil, nil when the bounds given are stale).
local function window_argument(argument)
  local permits, clock, rate, interval, rateType, check, bounds, grantId =
    string.match(argument, '^f (%d+) (%d+) (%d+) (%d+) ([01]) ([-urk]) ([%d,]+) (%S+)$')
  local previous, start, finish, nextEnd = 0, 0, 0, 0
  if permits ~= nil and bounds ~= '0' then
    previous, start, finish, nextEnd = string.match(bounds, '^(%d+),(%d+),(%d+),(%d+)$')
  end
  if permits == nil or previous == nil then
    error('redisson-ratelimit: malformed fixed window argument')
  end
  local now = now_millis(clock)
  local first, last = window_bounds(now, tonumber(interval), tonumber(previous), tonumber(start), tonumber(finish),
    tonumber(nextEnd))
  return tonumber(permits), clock, grantId, tonumber(rate), tonumber(interval), rateType, check, now, first, last
end

-- A fixed window's grant carries its window's start (ms) as a last element, of which the caller makes the receipt a
-- refund names ('w<start>'): a number, since formatting it as text costs Redis about 2.5k instructions per grant.
local function with_receipt(reply, start)
  if reply[1] == 0 then
    reply[#reply + 1] = start
  end
  return reply
end

-- The decision of a limiter declared as a fixed window, when it holds a fixed window or nothing; nil when it holds
-- another algorithm's state (a value of another form, or a sliding window's config hash), which switch.lua handles.
-- A stored window that is the current one is written back with its own bounds' bytes, without packing them again.
local function window_own(keys, argument)
  local wanted, _, _, rate, _, rateType, check, now, start, finish = window_argument(argument)
  if start == nil then
    return {STALE_BOUNDS, now}
  end
  local valueKey = type_key(keys, rateType)
  local value = redis.call('get', valueKey)
  local count, suffix, storedStart, storedEnd, storedRate
  if value then
    count, suffix = string.match(value, '^f(%d+)(:.*)$')
    if count ~= nil and string.len(suffix) ~= 25 then
      count = nil
    elseif count ~= nil then
      storedStart, storedEnd, storedRate = struct.unpack('>ddd', suffix, 2)
    end
  end
  if count == nil or now >= storedEnd then
    if (value and count == nil) or (check ~= '-' and redis.call('exists', keys[1]) == 1) then
      return nil -- another algorithm's config hash is looked for on a config check only, as bucket_own does
    end
    return with_receipt(window_decide(valueKey, wanted, now, rate, 0, start, finish), start)
  end
  count = tonumber(count)
  local keep, done = checked(check, storedRate ~= rate or storedStart ~= start or storedEnd ~= finish)
  if keep or done == nil then
    rate, start, finish = storedRate, storedStart, storedEnd
  else
    suffix = nil
    if done == 2 then
      count = 0
    end
  end
  local reply = window_decide(valueKey, wanted, now, rate, count, start, finish, suffix, not keep and done ~= nil)
  if done ~= nil then
    with_stored(reply, {storedRate, storedEnd - storedStart, tonumber(rateType), 0}, done, 'fixed-window')
  end
  return with_receipt(reply, start)
end
