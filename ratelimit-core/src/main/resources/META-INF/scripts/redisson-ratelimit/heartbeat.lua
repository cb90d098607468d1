-- heartbeat: one application instance says it is alive, and learns how many are.
-- Runs alone (without common.lua). Stamped with Redis's clock, so that instances with skewed clocks agree.
--
-- KEYS[1]: the ZSET of live instances, member = instance id, score = its last heartbeat (ms, Redis's clock).
-- ARGV[1]: this instance's id. ARGV[2]: how long (ms) an instance counts as live after its last heartbeat.
-- Reply: {live instances, this instance's rank among them by id (0-based)}.

local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. (now - ttl))
redis.call('PEXPIRE', KEYS[1], ttl)
local live = redis.call('ZRANGE', KEYS[1], 0, -1)
table.sort(live)
local rank = 0
for i, id in ipairs(live) do
  if id == ARGV[1] then
    rank = i - 1
  end
end
return {#live, rank}
