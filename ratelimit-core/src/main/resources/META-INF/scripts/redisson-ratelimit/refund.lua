-- refund: gives back the permits of one grant a call took and did not use (a later limit of the same call
-- rejected it, a charge-by-outcome condition, a cancelled wait). Takes them from the member of the grant's slice
-- (see common.lua), which leaves the window when the grant would have, and adds them to the free ones, so free +
-- held = rate still holds. RRateLimiter's own release only adds to the free permits and leaves the grant in the window,
-- which then returns its permits a second time.
--
-- KEYS: see common.lua.
-- A lease's receipt, 'l<end>', gives back its unspent permits from its own member (see acquire-sliding.lua).
-- ARGV[1]: the permits. ARGV[2]: the clock, as for acquire (0: Redis's TIME). ARGV[3], ARGV[4]: see below.
-- ARGV[5]: the instance that took the grant (an in-flight lease names its holder). ARGV[6]: 'renew' to renew the
-- grant's lease instead (an algorithm whose grants are leases: in-flight.lua).
-- Reply: 1 when a grant was given back, 0 when none was found (it already left the window, or the
--   limiter's keys are gone).

local wanted, clock = tonumber(ARGV[1]), ARGV[2]
if wanted == nil or tonumber(clock) == nil then
  error('redisson-ratelimit: malformed refund arguments')
end
local rate, interval, rateType = stored_config(KEYS)
if rate == nil then
  -- an algorithm kept in one key (KINDS, see keyed.lua; ARGV[3]: the declared type; ARGV[4]: the grant's receipt,
  -- 'r<number>[:<number>]', the numbers its grant's reply ended with), which gives back only what the grant still
  -- holds
  local valueKey = limiter_keys(KEYS, ARGV[3] or '0')
  local value = redis.call('get', valueKey)
  local receipt, second = string.match(ARGV[4] or '', '^r(%d+):?(%d*)$')
  for _, kind in ipairs(KINDS) do
    local state = kind.read(value)
    if state ~= nil then
      if ARGV[6] == 'renew' then
        return kind.renew and kind.renew(valueKey, state, wanted, clock, tonumber(receipt), ARGV[5]) or 0
      end
      return kind.refund(valueKey, state, wanted, clock, tonumber(receipt), tonumber(second), ARGV[5])
    end
  end
  return 0
end
if ARGV[6] == 'renew' then
  return 0 -- a sliding window's grants are no leases
end
local now = now_millis(clock)
local valueKey, grantsKey = limiter_keys(KEYS, rateType)
-- what write_free last wrote of the counter (read once: the receipt's check and the give-back both need it)
local written, sliceEnd, slicePermits, started = written_free(redis.call('hget', KEYS[1], valueKey))

-- The permits back in the counter; the slice's permits in what write_free wrote, when the member was its newest.
local function give_back(id, permits)
  local stored = redis.call('get', valueKey)
  if stored == false then
    return
  end
  if written ~= stored then
    redis.call('incrby', valueKey, wanted) -- someone else wrote the counter: decide recounts it
    return
  end
  if sliceEnd ~= nil and 's' .. sliceEnd == id then
    slicePermits = permits - wanted
  end
  write_free(KEYS, valueKey, tonumber(stored) + wanted, sliceEnd, slicePermits, started)
end

-- Takes the permits from the grants member (the ZSET's `member`, scored `score`), and gives them back.
local function take(member, score, id, permits)
  redis.call('zrem', grantsKey, member)
  if permits > wanted then
    redis.call('zadd', grantsKey, score, struct.pack('Bc0I', string.len(id), id, permits - wanted))
  end
  give_back(id, permits)
  return 1
end

-- Takes the permits from the grants member of id `wanted_id` scored `score`, when it holds as many; 1 when taken.
local function take_from(score, wanted_id)
  local members = redis.call('zrangebyscore', grantsKey, score, score)
  for i = 1, #members do
    local id, permits = struct.unpack('Bc0I', members[i])
    if id == wanted_id then
      return permits >= wanted and take(members[i], score, id, permits) or 0
    end
  end
  return 0
end

local leaseEnd = tonumber(string.match(ARGV[4] or '', '^l(%d+)$'))
if leaseEnd ~= nil then
  -- a lease's unspent permits (receipt 'l<end>', see acquire-sliding.lua): from its own member, while it counts
  if leaseEnd <= now - interval then
    return 0
  end
  return take_from(leaseEnd, 'lease:' .. leaseEnd)
end
local receipt = tonumber(string.match(ARGV[4] or '', '^r(%d+)$'))
if receipt == nil and (ARGV[4] or '') ~= '' then
  return 0 -- another algorithm's grant, made before the limiter changed to a sliding window: not in its grants
end
if receipt ~= nil then
  -- the grant's time (µs): its permits are in its slice's member, unless they left the window, or the grants it was
  -- counted in were lost or left since (a ZSET started afresh never counted it)
  local seconds, micros = string.match(started or '', '^(%d+)%.(%d+)$')
  if seconds ~= nil and seconds * 1000000 + micros > receipt then
    return 0
  end
  local made = (receipt - receipt % 1000) / 1000
  local width = slice_width(interval)
  local stamp = made - made % width + width - 1
  if stamp <= now - interval then
    return 0
  end
  return take_from(stamp, 's' .. stamp)
end

-- without a receipt (a grant of a version that gave none): the newest member in the window that holds as many
local offset = 0
while true do
  local grants = redis.call('zrevrange', grantsKey, offset, offset + 63, 'withscores')
  if #grants == 0 then
    return 0
  end
  for i = 1, #grants, 2 do
    if tonumber(grants[i + 1]) <= now - interval then
      return 0 -- this one and every older one already left the window
    end
    local id, permits = struct.unpack('Bc0I', grants[i])
    if permits >= wanted and string.sub(id, 1, 5) ~= 'held:' and string.sub(id, 1, 6) ~= 'lease:' then
      return take(grants[i], grants[i + 1], id, permits)
    end
  end
  offset = offset + 64
end
