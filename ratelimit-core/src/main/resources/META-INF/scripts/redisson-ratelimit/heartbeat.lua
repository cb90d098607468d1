-- heartbeat: one application instance says it is alive (or that it leaves), and learns how many are, how many
-- stopped beating without leaving, and when another one last granted permits in memory (under the local outage
-- policy, grants Redis does not know).
-- Runs alone (without common.lua). Stamped with Redis's clock, so that instances with skewed clocks agree.
--
-- KEYS[1]: the ZSET of instances, member = instance id, score = its last heartbeat (ms, Redis's clock).
-- KEYS[2]: the ZSET of grants made in memory, member = instance id, score = its last such grant (ms, Redis's clock).
-- ARGV[1]: this instance's id. ARGV[2]: how long (ms) an instance counts as live after its last heartbeat.
-- ARGV[3]: ms since this instance last granted in memory, or -1. ARGV[4]: how long (ms) such a grant is reported.
-- ARGV[5]: how long (ms) after its last heartbeat an instance that stopped beating without leaving is told as missing.
-- ARGV[6]: '1' when this instance leaves (its context closes): taken out at once, never told as missing.
-- Reply: {live instances, this instance's rank among them by id (0-based),
--         ms since another instance last granted in memory (within ARGV[4]), or -1,
--         instances that stopped beating without leaving (within ARGV[5])}.

local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[2])
local kept = math.max(ttl, tonumber(ARGV[5]))
if ARGV[6] == '1' then
  redis.call('ZREM', KEYS[1], ARGV[1])
else
  redis.call('ZADD', KEYS[1], now, ARGV[1])
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. (now - kept))
redis.call('PEXPIRE', KEYS[1], kept)
local live = redis.call('ZRANGEBYSCORE', KEYS[1], now - ttl, '+inf')
local missing = redis.call('ZCOUNT', KEYS[1], '-inf', '(' .. (now - ttl))
table.sort(live)
local rank = 0
for i, id in ipairs(live) do
  if id == ARGV[1] then
    rank = i - 1
  end
end

local reported = tonumber(ARGV[4])
local age = tonumber(ARGV[3])
if age >= 0 and age <= reported then
  local before = redis.call('ZSCORE', KEYS[2], ARGV[1])
  if not before or tonumber(before) < now - age then
    redis.call('ZADD', KEYS[2], now - age, ARGV[1])
  end
  redis.call('PEXPIRE', KEYS[2], reported)
end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. (now - reported))
local others = -1
local newest = redis.call('ZREVRANGE', KEYS[2], 0, 1, 'WITHSCORES')
for i = 1, #newest, 2 do
  if newest[i] ~= ARGV[1] then
    others = math.max(0, now - tonumber(newest[i + 1]))
    break
  end
end
return {#live, rank, others, missing}
