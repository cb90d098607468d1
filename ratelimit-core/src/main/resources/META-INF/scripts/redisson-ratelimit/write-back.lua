-- write-back: the grants one instance made in memory (the local outage policy) while Redis gave no decision,
-- written into the limiter's window once Redis answers again, so that every instance's later decisions count them.
-- Each becomes a grant like any other (struct 'Bc0I' member, see common.lua), scored with the time it was made by
-- this call's clock: now - its age, the age measured on the instance's monotonic clock when the call was sent (so a
-- call delayed on its way places its grants later, held longer, never earlier; the instance then writes them again,
-- and the earliest placement is kept). The free permits go down by the permits added, into debt when Redis granted
-- meanwhile (decide pays a debt from the grants that expire).
-- Idempotent: a grant whose member (its id and permits) is in the window already is not counted again.
--
-- KEYS: the limiter's five keys, see common.lua.
-- ARGV[1]: the clock, as for acquire (0: Redis's TIME). ARGV[2]: the declared type (0 / 1), used when no config is
--   stored; for an algorithm kept in one key followed by its mark and declaration, " g <rate> <interval ms> <burst>"
--   (token bucket) or " f <rate> <interval ms>" (fixed window, " c" added for a calendar quota): see
--   write_back_other and the algorithm's write_back.
-- ARGV[3]: the declared interval (ms), likewise. ARGV[4]: the keys' time to live (ms) when no config is
--   stored. ARGV[5..]: the grants, each "<id> <permits> <age ms>".
-- Reply: the permits added.

-- The grants written back into an algorithm kept in one key (KINDS, see keyed.lua; no config hash: its state is in
-- the free-permits key of the declared type), as that algorithm counts them.
local function write_back_other(keys, declared, clock)
  local rateType, mark, rateArg, intervalArg, extraArg = string.match(declared, '^([01]) (%a) (%d+) (%d+) ?(%w*)$')
  local kind = mark and KIND_OF_MARK[string.byte(mark)]
  if kind == nil then
    error('redisson-ratelimit: malformed write-back algorithm')
  end
  local valueKey = limiter_keys(keys, rateType)
  return kind.write_back(keys, valueKey, redis.call('get', valueKey), rateArg, intervalArg, extraArg, clock)
end

local clock, declaredType = ARGV[1], ARGV[2]
local declaredInterval, ttl = tonumber(ARGV[3]), tonumber(ARGV[4])
if tonumber(clock) == nil or declaredInterval == nil or ttl == nil then
  error('redisson-ratelimit: malformed write-back arguments')
end
local declaredAlgorithm = ARGV[2]
declaredType = string.sub(ARGV[2], 1, 1)
local rate, interval, rateType = stored_config(KEYS)
if rate == nil and string.len(declaredAlgorithm) > 1 then
  return write_back_other(KEYS, declaredAlgorithm, clock)
end
if rate == nil then
  -- no config (a limiter first seen during the outage, or lost): the first decision writes it and recounts the
  -- free permits from the grants, these included
  interval, rateType = declaredInterval, declaredType
end
local now = now_millis(clock)
local valueKey, grantsKey = limiter_keys(KEYS, rateType)
local added = 0
for i = 5, #ARGV do
  local id, permits, age = string.match(ARGV[i], '^(%S+) (%d+) (%d+)$')
  if id == nil then
    error('redisson-ratelimit: malformed write-back grant')
  end
  local at = now - tonumber(age)
  if at > now - interval then
    local member = struct.pack('Bc0I', string.len(id), id, tonumber(permits))
    local placed = redis.call('zscore', grantsKey, member)
    if not placed then
      redis.call('zadd', grantsKey, at, member)
      added = added + tonumber(permits)
    elseif at < tonumber(placed) then
      redis.call('zadd', grantsKey, at, member) -- written again sooner after it was made: placed nearer its time
    end
  end
end
if added == 0 then
  return 0 -- a write again: nothing to count, nor to keep alive
end
if rate == nil then
  redis.call('pexpire', grantsKey, ttl)
  return added
end
local stored = redis.call('get', valueKey)
if stored ~= false then
  -- the counter and what decide last wrote of it move together (see write_free), unless they differ already;
  -- the newest slice stays what it was: the grants written back are members of their own
  local written, sliceEnd, slicePermits, started = written_free(redis.call('hget', KEYS[1], valueKey))
  if written == stored then
    write_free(KEYS, valueKey, tonumber(stored) - added, sliceEnd, slicePermits, started)
  else
    redis.call('decrby', valueKey, added)
  end
end
local configTtl = redis.call('pttl', KEYS[1])
if configTtl > 0 then
  redis.call('pexpire', grantsKey, configTtl)
end
return added
