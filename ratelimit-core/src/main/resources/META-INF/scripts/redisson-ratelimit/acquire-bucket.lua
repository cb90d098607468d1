-- acquire-bucket: acquire for a limiter declared as a token bucket (see token-bucket.lua), alone, for its common
-- case: the key absent (a full bucket) or holding a bucket, with the declared config or, when the check is '-', the
-- stored one. Anything else (another config to check, another algorithm's state) answers {-4}, and the caller sends
-- the call again as acquire, which knows them all. The decision is bucket_decide's and bucket_state's, step for step
-- (same arithmetic, same reply), written for Redis's cost per call, which runs the whole chunk each time: no function
-- definitions, and operators where they do what a library call would (x - x % 1 is math.floor(x), s + 0 is
-- tonumber(s)), since each call of a library function costs about 1k instructions.
--
-- A lease (the argument's 'L<lease ms>:<permits wanted>' before the grant id): the grant may take more permits than
-- asked, for the caller to spend in memory until the lease ends, stamped at its end as the sliding window's: tat =
-- max(tat, now + lease) + permits' time, allowed while tat - now stays within the burst's time. So while the lease
-- runs, what the bucket holds plus what the lease holds is never above the burst, and every span T still holds at most
-- burst + rate * T / interval spent permits. It takes min(wanted, half of what the bucket can give under that rule);
-- when that is no more than asked, the grant is a plain one. Each lease adds its period to credited: a refund of a
-- grant made before it then credits a lease period less (the lease's stamp may have absorbed that much of the grant's
-- time, see bucket_refund). Its reply: a grant's, then the permits granted.
--
-- KEYS: see common.lua. ARGV[1]: the token bucket's argument, see algorithms.lua (its grant id unused here).

local wanted, clock, rateType, check, config, rate, interval, burst, leaseMark =
  string.match(ARGV[1], '^g (%d+) (%d+) ([01]) ([-urk]) ((%d+):(%d+):(%d+)) (L?)')
if wanted == nil then
  error('redisson-ratelimit: malformed token bucket argument')
end
local leaseMillis, leaseWanted
if leaseMark ~= '' then
  -- else a grant id that starts with L
  leaseMillis, leaseWanted = string.match(ARGV[1], ' L(%d+):(%d+) %S+$')
end
wanted, burst = wanted + 0, burst + 0
local valueKey = rateType == '1' and KEYS[3] or KEYS[2]
local now
if clock == '0' then
  local time = redis.call('time')
  now = time[1] * 1000000 + time[2]
else
  now = clock * 1000
end
local value = redis.call('get', valueKey)
local start, born, credited, storedTat = now, now, 0, nil
if value then
  -- 'g', tat, born, credited, config (see token-bucket.lua); the config first: a shorter value has no numbers to
  -- unpack
  if string.sub(value, 26) ~= config then
    -- another config: the stored one decides when the check says not to look (as in bucket_own), else acquire.lua
    -- applies the check
    local stored, storedRate, storedInterval, storedBurst = string.match(value, '^((%d+):(%d+):(%d+))$', 26)
    if check ~= '-' or stored == nil then
      return {-4}
    end
    config, rate, interval, burst = stored, storedRate, storedInterval, storedBurst + 0
  end
  local mark
  mark, storedTat, born, credited = struct.unpack('>c1ddd', value)
  if mark ~= 'g' then
    return {-4}
  end
  if storedTat > now then
    start = storedTat
  end
elseif check ~= '-' and redis.call('exists', KEYS[1]) == 1 then
  return {-4} -- a sliding window's config hash, looked for on a config check only, as bucket_own does
end
if wanted > burst then
  return {-1, burst}
end
local emission = interval * 1000 / rate
local after = start + wanted * emission
local wait, tat, leased = 0, after, nil
if leaseWanted then
  local leaseEnd = now + leaseMillis * 1000
  if leaseEnd < start then
    leaseEnd = start
  end
  local can = burst - (leaseEnd - now) / emission + 1e-9
  can = can - can % 1
  leased = leaseWanted + 0
  if leased > (can - can % 2) / 2 then
    leased = (can - can % 2) / 2
  end
  if leased > wanted then
    after = leaseEnd + leased * emission
    tat = after
    credited = credited + leaseMillis * 1000
  else
    leased = nil
  end
end
if after - now > burst * emission then
  wait = (after - now - burst * emission) / 1000
  wait = wait + (-wait) % 1 -- math.ceil: a retry after the wait finds the permits refilled
  if wait < 1 then
    wait = 1
  end
  tat = start
else
  -- bucket_write: the key's expiry kept while it stays the one of its tat (bucket_expiry)
  local step = burst * emission / 8
  local expiry = after + (-after) % step
  if storedTat and storedTat + (-storedTat) % step == expiry then
    redis.call('set', valueKey, 'g' .. struct.pack('>ddd', after, born, credited) .. config, 'KEEPTTL')
  else
    local ttl = (expiry - now) / 1000
    ttl = ttl + (-ttl) % 1 -- math.ceil
    redis.call('set', valueKey, 'g' .. struct.pack('>ddd', after, born, credited) .. config, 'PX', ttl < 1 and 1 or ttl)
  end
end
-- bucket_state at tat
local used = tat - now
if used < 0 then
  used = 0
end
local free = burst - used / emission + 1e-9
free = free - free % 1
if free >= burst then
  return wait == 0 and {0, burst, 0, (after + credited) * 4, born} or {wait, burst, 0}
end
local nextMillis = (used - (burst - free - 1) * emission) / 1000
nextMillis = nextMillis - nextMillis % 1
if wait == 0 then
  -- the receipt, see bucket_receipt; a lease's permits last
  if leased then
    return {0, free < 0 and 0 or free, nextMillis < 1 and 1 or nextMillis, (after + credited) * 4, born, leased}
  end
  return {0, free < 0 and 0 or free, nextMillis < 1 and 1 or nextMillis, (after + credited) * 4, born}
end
return {wait, free < 0 and 0 or free, nextMillis < 1 and 1 or nextMillis}
