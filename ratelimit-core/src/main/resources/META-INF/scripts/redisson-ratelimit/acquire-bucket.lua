-- acquire-bucket: acquire for a limiter declared as a token bucket (see token-bucket.lua), alone, for its common
-- case: the key absent (a full bucket) or holding a bucket with the declared config. Anything else (another
-- config, another algorithm's state) answers {-4}, and the caller sends the call again as acquire, which knows them
-- all. No function definitions and one pattern per text: Redis runs the whole chunk on each call. The decision is
-- bucket_decide's, step for step (same arithmetic, same reply).
--
-- KEYS: see common.lua. ARGV[1]: the token bucket's argument, see algorithms.lua (its grant id, last, unused here).

local wanted, clock, rateType, check, config, rate, interval, burst =
  string.match(ARGV[1], '^g (%d+) (%d+) ([01]) ([-urk]) ((%d+):(%d+):(%d+)) ')
if wanted == nil then
  error('redisson-ratelimit: malformed token bucket argument')
end
wanted, rate, interval, burst = tonumber(wanted), tonumber(rate), tonumber(interval), tonumber(burst)
local valueKey = rateType == '1' and KEYS[3] or KEYS[2]
local now
if clock == '0' then
  local time = redis.call('time')
  now = tonumber(time[1]) * 1000000 + tonumber(time[2])
else
  now = tonumber(clock) * 1000
end
local value = redis.call('get', valueKey)
local start = now
if value then
  local storedTat, storedConfig = string.match(value, '^g([^:]+):(.+)$')
  if storedConfig ~= config then
    return {-4}
  end
  local tat = tonumber(storedTat)
  if tat > now then
    start = tat
  end
elseif check ~= '-' and redis.call('exists', KEYS[1]) == 1 then
  return {-4} -- a sliding window's config hash, looked for on a config check only, as bucket_own does
end
if wanted > burst then
  return {-1, burst}
end
local emission = interval * 1000 / rate
local after = start + wanted * emission
local wait, tat = 0, after
if after - now > burst * emission then
  wait = math.max(1, math.floor((after - now - burst * emission) / 1000))
  tat = start
else
  redis.call('set', valueKey, 'g' .. string.format('%.17g', after) .. ':' .. config, 'PX',
    math.max(1, math.ceil((after - now) / 1000)))
end
-- bucket_state at tat
local used = math.max(0, tat - now)
local free = math.floor(burst - used / emission + 1e-9)
if free >= burst then
  return {wait, burst, 0}
end
return {wait, math.max(0, free), math.max(1, math.floor((used - (burst - free - 1) * emission) / 1000))}
