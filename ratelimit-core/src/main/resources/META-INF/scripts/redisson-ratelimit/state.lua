-- state: reads what a limiter holds now, as the next acquire would see it, without writing anything.
-- For reads that are not decisions (the actuator endpoint, operations APIs): a decision's own reply
-- already carries the permits left.
--
-- KEYS: see common.lua.
-- ARGV[1]: "<clock> <rate> <interval ms> <type>": clock as for acquire (0: Redis's TIME), then the
--   declared config, used when none is stored.
-- Reply: {free, next}: the permits free now (never below 0) and the ms until the oldest grant leaves the
--   window (0 when nothing is held).

local clock, rateArg, intervalArg, typeArg = string.match(ARGV[1], '^(%d+) (%d+) (%d+) ([01])$')
if clock == nil then
  error('redisson-ratelimit: malformed state argument')
end
local rate, interval, type = stored_config(KEYS)
if rate == nil then
  rate, interval, type = tonumber(rateArg), tonumber(intervalArg), typeArg
end
local now = now_millis(clock)
local valueKey, grantsKey = limiter_keys(KEYS, type)
local live = redis.call('zrangebyscore', grantsKey, '(' .. (now - interval), '+inf', 'withscores')
local liveGrants = {}
for i = 1, #live, 2 do
  liveGrants[#liveGrants + 1] = live[i]
end
local stored = redis.call('get', valueKey)
local free
if stored == false then
  free = rate - held(liveGrants)
else
  free = tonumber(stored) + held(redis.call('zrangebyscore', grantsKey, 0, now - interval))
  local count = #liveGrants
  if count > 0 and free + count > rate then
    free = rate - held(liveGrants)
  elseif count == 0 and free > rate then
    free = rate
  end
end
local nextMillis = 0
if #live > 0 then
  nextMillis = until_expiry(live[2], interval, now)
end
return {math.max(0, free), nextMillis}
