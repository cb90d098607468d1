-- state: reads what a limiter holds now, as the next acquire would see it, without writing anything.
-- For reads that are not decisions (the actuator endpoint, operations APIs): a decision's own reply
-- already carries the permits left.
--
-- KEYS: see common.lua.
-- ARGV[1]: the clock, as for acquire (0: Redis's TIME). ARGV[2] .. ARGV[4]: the declared rate, interval ms
--   and type, used when no config is stored. ARGV[5]: see below.
-- Reply: {free, next}: the permits free now (never below 0) and the ms until the oldest grant leaves the
--   window (0 when nothing is held); an in-flight limit's then each holder and the permits its leases hold.

local clock = ARGV[1]
local rate, interval, rateType, _, fields = stored_config(KEYS, KEYS[2], KEYS[3])
if rate == nil and tonumber(clock) ~= nil then
  -- an algorithm kept in one key (KINDS, see keyed.lua), in the declared type's key; ARGV[5]: the declared
  -- algorithm's state when nothing is stored ('<free>'; the sliding window when absent)
  local valueKey = limiter_keys(KEYS, ARGV[4])
  local value = redis.call('get', valueKey)
  for _, kind in ipairs(KINDS) do
    local state = kind.read(value)
    if state ~= nil then
      local reply = kind.state(state, clock, valueKey)
      if reply ~= nil then
        return reply
      end
    end
  end
  if ARGV[5] ~= nil then
    return {tonumber(ARGV[5]), 0}
  end
end
if rate == nil then
  rate, interval, rateType = tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
end
if tonumber(clock) == nil or rate == nil or interval == nil or (rateType ~= '0' and rateType ~= '1') then
  error('redisson-ratelimit: malformed state arguments')
end
local now = now_millis(clock)
local valueKey, grantsKey = limiter_keys(KEYS, rateType)
local live = redis.call('zrangebyscore', grantsKey, '(' .. (now - interval), '+inf', 'withscores')
local liveGrants = {}
for i = 1, #live, 2 do
  liveGrants[#liveGrants + 1] = live[i]
end
local stored = redis.call('get', valueKey)
local written = written_free(valueKey == KEYS[2] and fields[5] or fields[6])
local free
if stored == false then
  free = rate - held(liveGrants)
else
  free = tonumber(stored) + held(redis.call('zrangebyscore', grantsKey, 0, now - interval))
  local holding = held(liveGrants)
  if #liveGrants > 0 and (stored ~= written or free + holding > rate) then
    -- someone else wrote the counter, or it says more is free than the grants leave: recounted, as the next
    -- decision does
    free = rate - holding
  elseif #liveGrants == 0 and free > rate then
    free = rate
  end
end
local nextMillis = 0
if #live > 0 then
  nextMillis = until_expiry(live[2], interval, now)
end
return {math.max(0, free), nextMillis}
