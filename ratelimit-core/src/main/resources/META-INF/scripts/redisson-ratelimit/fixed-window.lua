-- fixed-window: a counter per window (prepended to the scripts that decide, after common.lua). The key is the
-- limiter's free-permits key of its type (keys[2] OVERALL, keys[3] PER_CLIENT), holding
-- 'f<count>:<window start ms>:<window end ms>:<rate>' and expiring at the window's end (an absent key is an empty
-- window). A call that would take the count above the rate is refused and takes nothing.
-- The windows: aligned to the epoch (start = now - now % interval), or, for a calendar quota, the caller's
-- computation of the previous, current and next window's bounds (the caller knows the zone's calendar), of which
-- Redis's clock picks the one it is in.

-- The stored state: count, start, end, rate (numbers); nil when `value` is not a fixed window's.
local function window_read(value)
  if not value then
    return nil
  end
  local count, start, finish, rate = string.match(value, '^f(%d+):(%d+):(%d+):(%d+)$')
  if count == nil then
    return nil
  end
  return tonumber(count), tonumber(start), tonumber(finish), tonumber(rate)
end

-- The window holding `now`: from the bounds given (previous start, start, end, next end; all 0 for windows of
-- `interval` aligned to the epoch).
local function window_bounds(now, interval, previous, start, finish, nextEnd)
  if finish == 0 then
    local first = now - now % interval
    return first, first + interval
  end
  if now < start then
    return previous, start
  elseif now >= finish then
    return finish, nextEnd
  end
  return start, finish
end

-- The count of the window [start, finish) as the stored state tells it (0 for another window).
local function window_count(count, storedStart, storedEnd, start, finish)
  if count ~= nil and storedStart == start and storedEnd == finish then
    return count
  end
  return 0
end

local function window_write(valueKey, count, start, finish, rate, now)
  redis.call('set', valueKey, 'f' .. count .. ':' .. start .. ':' .. finish .. ':' .. rate,
    'PX', math.max(1, finish - now))
end

-- Takes `wanted` permits from the window [start, finish) that holds `count`, or tells when they can be free.
-- Returns {wait ms (0 when granted), free, next ms (until the window ends)}, or {-1, rate}.
local function window_decide(valueKey, wanted, now, rate, count, start, finish)
  if wanted > rate then
    return {-1, rate}
  end
  local left = math.max(0, finish - now)
  if count + wanted <= rate then
    window_write(valueKey, count + wanted, start, finish, rate, now)
    return {0, rate - count - wanted, left}
  end
  return {math.max(1, left), math.max(0, rate - count), left}
end
