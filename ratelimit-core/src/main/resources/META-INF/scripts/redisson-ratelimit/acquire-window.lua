-- acquire-window: acquire for a limiter declared as a fixed window (see fixed-window.lua), alone, for its common
-- case: the key absent or holding an ended window (an empty window), or the current window with the declared rate
-- and bounds. Anything else (another config, another algorithm's state) answers {-4}, and the caller sends the call
-- again as acquire, which knows them all. No function definitions and one pattern per text: Redis runs the whole
-- chunk on each call. The decision is window_own's and window_decide's, step for step (same reply, receipt included).
--
-- KEYS: see common.lua. ARGV[1]: the fixed window's argument, see algorithms.lua (its grant id, last, unused here).

local wanted, clock, rate, interval, rateType, check, previous, start, finish, nextEnd =
  string.match(ARGV[1], '^f (%d+) (%d+) (%d+) (%d+) ([01]) ([-urk]) (%d+) (%d+) (%d+) (%d+) ')
if wanted == nil then
  error('redisson-ratelimit: malformed fixed window argument')
end
wanted, rate = tonumber(wanted), tonumber(rate)
local now
if clock == '0' then
  local time = redis.call('time')
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
else
  now = tonumber(clock)
end
-- window_bounds
finish = tonumber(finish)
if finish == 0 then
  start = now - now % tonumber(interval)
  finish = start + tonumber(interval)
elseif now < tonumber(start) then
  start, finish = tonumber(previous), tonumber(start)
elseif now >= finish then
  start, finish = finish, tonumber(nextEnd)
else
  start = tonumber(start)
end
local valueKey = rateType == '1' and KEYS[3] or KEYS[2]
local value = redis.call('get', valueKey)
local count, suffix = 0, nil
if value then
  local storedCount, storedSuffix, storedStart, storedEnd, storedRate =
    string.match(value, '^f(%d+)(:(%d+):(%d+):(%d+))$')
  if storedCount == nil then
    return {-4}
  end
  if now < tonumber(storedEnd) then
    if tonumber(storedRate) ~= rate or tonumber(storedStart) ~= start or tonumber(storedEnd) ~= finish then
      return {-4}
    end
    -- the current window: written back with its own text
    count, suffix, start = tonumber(storedCount), storedSuffix, storedStart
  elseif check ~= '-' and redis.call('exists', KEYS[1]) == 1 then
    return {-4}
  end
elseif check ~= '-' and redis.call('exists', KEYS[1]) == 1 then
  return {-4} -- a sliding window's config hash, looked for on a config check only, as window_own does
end
if wanted > rate then
  return {-1, rate}
end
local left = math.max(0, finish - now)
if count + wanted <= rate then
  redis.call('set', valueKey, 'f' .. (count + wanted) .. (suffix or (':' .. start .. ':' .. finish .. ':' .. rate)),
    'PX', math.max(1, left))
  return {0, rate - count - wanted, left, 'w' .. start}
end
return {math.max(1, left), math.max(0, rate - count), left}
