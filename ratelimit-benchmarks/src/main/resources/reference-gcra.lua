-- The least a token bucket decision on Redis's clock costs, what the harness measures the project's token bucket
-- against: GCRA on one key holding only the theoretical arrival time (µs), no config kept beside it, no free permits
-- or refill time worked out for the reply. KEYS[1]: the bucket; ARGV[1]: µs per permit; ARGV[2]: the burst's µs.
local t = redis.call('time')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local tat = tonumber(redis.call('get', KEYS[1])) or now
if tat < now then tat = now end
local after = tat + tonumber(ARGV[1])
if after - now <= tonumber(ARGV[2]) then
  redis.call('set', KEYS[1], after, 'PX', math.max(1, math.ceil((after - now) / 1000)))
  return {0, 1, 0}
end
return {1, 0, 1}
