-- token-bucket: a token bucket as GCRA on one key (prepended to the scripts that know it, after keyed.lua; its
-- common case is repeated inline in acquire-bucket.lua: a change to the decision goes into both).
-- The key is the limiter's free-permits key of its type (keys[2] OVERALL, keys[3] PER_CLIENT), holding 'g', then
-- tat, born and credited as 8 bytes each (struct '>ddd': big-endian doubles), then '<rate>:<interval ms>:<burst>':
-- tat, the theoretical arrival time in microseconds of Redis's clock (the time at which the bucket is full again);
-- born, the time this state was written from nothing (an absent key, another algorithm's state or a changed config);
-- credited, the µs its refunds gave back since, plus each lease's period (see bucket_refund); and the config it was
-- written with. The binary
-- numbers are read and written without a number's text (shorter, and cheaper per call). A grant of n permits moves
-- tat n * interval / rate later; a grant is allowed while tat - now stays within burst * interval / rate. So over any
-- span T at most burst + rate * T / interval permits are granted. An absent key is a full bucket: the key expires at
-- bucket_expiry(tat), when the bucket is full again or at most an eighth of its refill time later.

local BUCKET_MARK = string.byte('g')

-- The stored state: tat, rate, interval, burst, born, credited (numbers); nil when `value` is not a token bucket's.
local function bucket_read(value)
  if not value or string.byte(value) ~= BUCKET_MARK then
    return nil
  end
  local rate, interval, burst = string.match(value, '^(%d+):(%d+):(%d+)$', 26)
  if rate == nil then
    return nil
  end
  local tat, born, credited = struct.unpack('>ddd', value, 2)
  return tat, tonumber(rate), tonumber(interval), tonumber(burst), born, credited
end

-- The permits a bucket with this tat has out at `now` (those not refilled yet), rounded up.
local function bucket_out(tat, rate, interval, now)
  if tat <= now then
    return 0
  end
  return math.ceil((tat - now) * rate / (interval * 1000) - 1e-9)
end

-- What the bucket holds at `now`: whole permits free, and the ms until the next one is refilled (0 when full; whole
-- ms rounded down, at least 1, so that it never says later than Redis would grant, see LocalRejectionCache).
local function bucket_state(tat, rate, interval, burst, now)
  local emission = interval * 1000 / rate
  local used = math.max(0, tat - now)
  local free = math.floor(burst - used / emission + 1e-9)
  if free >= burst then
    return burst, 0
  end
  local nextMicros = used - (burst - free - 1) * emission
  return math.max(0, free), math.max(1, math.floor(nextMicros / 1000))
end

-- When the key of a bucket whose tat is `tat` expires: the first multiple of an eighth of its refill time (burst *
-- emission µs, counted from the epoch) at or after tat. A write whose tat has the same expiry as the tat the key holds
-- keeps the key's expiry (KEEPTTL), which spares Redis setting it again and rewriting the command with an absolute
-- time for its replicas, a tenth of the decision's cost; so a busy bucket sets its expiry once per eighth of its
-- burst's permits, and an idle key outlives its full bucket by at most an eighth of its refill time.
local function bucket_expiry(tat, emission, burst)
  local step = burst * emission / 8
  return tat + (-tat) % step
end

-- Writes the bucket's state, to expire at bucket_expiry(tat); config: '<rate>:<interval>:<burst>'. storedTat: the tat
-- the key holds, written with the same config, whose expiry the key has; nil for a state written from nothing or from
-- another config.
local function bucket_write(valueKey, tat, born, credited, config, now, emission, burst, storedTat)
  local value = 'g' .. struct.pack('>ddd', tat, born, credited) .. config
  local expiry = bucket_expiry(tat, emission, burst)
  if storedTat and bucket_expiry(storedTat, emission, burst) == expiry then
    redis.call('set', valueKey, value, 'KEEPTTL')
  else
    redis.call('set', valueKey, value, 'PX', math.max(1, math.ceil((expiry - now) / 1000)))
  end
end

-- Writes a bucket whose config just changed as it stands when its call takes nothing (refused, or asking for more
-- than the burst): the new config holds from now on, with the permits carried out of the old one, as a state born
-- now; a full bucket is an absent key.
local function bucket_keep(valueKey, tat, config, now, emission, burst)
  if tat and tat > now then
    bucket_write(valueKey, tat, now, 0, config, now, emission, burst)
  else
    redis.call('del', valueKey)
  end
end

-- A grant's reply ends with its receipt, the two numbers a refund of it names (see bucket_refund): the bucket's tat
-- right after it plus its credited then, in quarter µs (a reply's numbers are whole; Redis's clock in µs as a double
-- is a whole quarter until 2^51 µs, and so is every credit, a difference of two such times: exact), and its born.
local function bucket_receipt(reply, granted, born)
  if reply[1] == 0 and granted then
    reply[#reply + 1] = granted * 4
    reply[#reply + 1] = born
  end
  return reply
end

-- Takes `wanted` permits from the bucket (tat false: full) or tells when they can be free. Returns
-- {wait ms (0 when granted), free, next ms}, or {-1, burst} when the call asks for more than the burst, and, for a
-- grant, the bucket's tat after it plus its credited, and its born (see bucket_receipt). config: the stored form of
-- rate, interval and burst, or nil to build it. born, credited: the stored state's, nil when the state is written
-- from nothing (born now, nothing credited). changed: the config (or the algorithm) changed with this call, so the
-- state is written whatever the decision (see bucket_keep).
local function bucket_decide(valueKey, wanted, now, rate, interval, burst, tat, config, born, credited, changed)
  config = config or (rate .. ':' .. interval .. ':' .. burst)
  if not born then
    born, credited = now, 0
  end
  local emission = interval * 1000 / rate
  if wanted > burst then
    if changed then
      bucket_keep(valueKey, tat, config, now, emission, burst)
    end
    return {-1, burst}
  end
  local start = math.max(tat or now, now)
  local after = start + wanted * emission
  if after - now <= burst * emission then
    bucket_write(valueKey, after, born, credited, config, now, emission, burst, (not changed) and tat or nil)
    local free, nextMillis = bucket_state(after, rate, interval, burst, now)
    return {0, free, nextMillis}, after + credited, born
  end
  if changed then
    bucket_keep(valueKey, tat, config, now, emission, burst)
  end
  local free, nextMillis = bucket_state(start, rate, interval, burst, now)
  -- whole ms rounded up (at least 1): a retry after the wait finds the permits refilled
  return {math.max(1, math.ceil((after - now - burst * emission) / 1000)), free, nextMillis}
end

-- The argument of a token bucket's decision (see algorithms.lua), parsed: permits, clock, grant id, type, check, the
-- config as stored ('<rate>:<interval>:<burst>'), rate, interval, burst.
local function bucket_argument(argument)
  local permits, clock, rateType, check, config, rate, interval, burst, grantId =
    string.match(argument, '^g (%d+) (%d+) ([01]) ([-urk]) ((%d+):(%d+):(%d+)) .-(%S+)$')
  if permits == nil then
    error('redisson-ratelimit: malformed token bucket argument')
  end
  return tonumber(permits), clock, grantId, rateType, check, config, tonumber(rate), tonumber(interval),
    tonumber(burst)
end

-- The decision of a limiter declared as a token bucket, when it holds a token bucket or nothing; nil when it holds
-- another algorithm's state (a value of another form, or a sliding window's config hash, looked for on a config
-- check), which switch.lua handles. The stored config is compared as text: parsed only when it differs.
local function bucket_own(keys, argument)
  local wanted, clock, _, rateType, check, config, rate, interval, burst = bucket_argument(argument)
  local valueKey = type_key(keys, rateType)
  local now = now_micros(clock)
  local value = redis.call('get', valueKey)
  if not value then
    -- another algorithm's config hash is looked for on a config check only: a change of algorithm is a change of
    -- the declared spec, which every instance checks at its first decision with it
    if check ~= '-' and redis.call('exists', keys[1]) == 1 then
      return nil
    end
    return bucket_receipt(bucket_decide(valueKey, wanted, now, rate, interval, burst, false, config))
  end
  if string.byte(value) ~= BUCKET_MARK or string.len(value) < 26 then
    return nil
  end
  local storedConfig = string.sub(value, 26)
  local tat, born, credited = struct.unpack('>ddd', value, 2)
  if storedConfig == config then
    return bucket_receipt(bucket_decide(valueKey, wanted, now, rate, interval, burst, tat, config, born, credited))
  end
  local _, storedRate, storedInterval, storedBurst = bucket_read(value)
  local keep, done = checked(check, true)
  if keep then
    rate, interval, burst, config = storedRate, storedInterval, storedBurst, storedConfig
  else
    -- a state written from another config is born now: no grant made before it is given back to it (its time was
    -- counted in the old config's units)
    born, credited = nil, nil
    if done == 1 then
      tat = now + bucket_out(tat, storedRate, storedInterval, now) * interval * 1000 / rate
    else
      tat = false
    end
  end
  local reply, granted, grantBorn = bucket_decide(valueKey, wanted, now, rate, interval, burst, tat, config, born,
    credited, not keep)
  if done == nil then
    return bucket_receipt(reply, granted, grantBorn)
  end
  return bucket_receipt(with_stored(reply, {storedRate, storedInterval, tonumber(rateType), 0}, done,
    'token-bucket:' .. storedBurst), granted, grantBorn)
end

-- The decision of a limiter declared as a token bucket, whatever it holds.
local function bucket_decide_any(keys, argument)
  local reply = bucket_own(keys, argument)
  if reply ~= nil then
    return reply
  end
  local wanted, clock, grantId, rateType, check, _, rate, interval, burst = bucket_argument(argument)
  local valueKey = type_key(keys, rateType)
  local now = now_micros(clock)
  local other = other_state(keys, valueKey, redis.call('get', valueKey), math.floor(now / 1000), now, 'token-bucket')
  if other == nil then
    return bucket_receipt(bucket_decide(valueKey, wanted, now, rate, interval, burst, false))
  end
  if check == '-' or check == 'k' then
    return decide_as_stored(keys, other, check, wanted, clock, grantId, rate, interval, rateType)
  end
  -- applied whatever the decision, a refusal included: the old state is gone, the new one carries what it had out
  other.clear()
  local start = check == 'u' and now + other.out * interval * 1000 / rate or false
  local reply, granted, born = bucket_decide(valueKey, wanted, now, rate, interval, burst, start, nil, nil, nil, true)
  return bucket_receipt(with_stored(reply, other.config, check == 'u' and 1 or 2, other.kind), granted, born)
end

-- The bucket's tat moves back by the part of the grant that has not refilled since, and credited goes up by as much.
-- The grant's part of the timeline ended at its receipt's tat (end); every later grant that found the bucket emptier
-- than it would have been without this one kept that difference, and one that found it full without this one left
-- at least its tat - its time of it; so as long as nothing is given back, crediting at most end - now (and at most the
-- permits' time) never takes tat earlier than the tat without the grant: no permit that had refilled anyway is freed.
-- A refund of another grant since can have moved this grant's end back by at most what it credited, so receipt -
-- credited now (end + credited then - credited now) is never after the grant's end as it stands: the same bound
-- holds after any refunds. A lease (acquire-bucket.lua) is stamped ahead, tat = max(tat, now + lease) + its time: it
-- can absorb up to a lease period of an earlier grant's time beyond now, so each lease adds its period to credited,
-- and a refund of a grant made before it credits that much less. It holds only in the state the grant was counted in: a
-- state born since (lost, expired, or written from another config or algorithm) never counted it, and is given nothing.
-- Nor is anything given back without a receipt (receipt: end + credited then in quarter µs, second: the born it was
-- counted in; see bucket_receipt).
local function bucket_refund(valueKey, state, wanted, clock, receipt, second)
  local now = now_micros(clock)
  if not (receipt and second) or second ~= state.born or state.tat <= now then
    return 0
  end
  local credit = math.min(wanted * state.interval * 1000 / state.rate, receipt / 4 - state.credited - now)
  if credit <= 0 then
    return 0
  end
  local tat = math.max(now, state.tat - credit)
  bucket_write(valueKey, tat, state.born, state.credited + (state.tat - tat),
    state.rate .. ':' .. state.interval .. ':' .. state.burst, now, state.interval * 1000 / state.rate, state.burst,
    state.tat)
  return 1
end

-- A token bucket charges each grant written back from its time: tat = max(tat, made) + permits' time, so a grant
-- whose permits were refilled since costs nothing. A write again charges again: only ever fewer permits later.
local function bucket_write_back(keys, valueKey, value, rateArg, intervalArg, burstArg, clock)
  local nowMicros = now_micros(clock)
  local tat, rate, interval, burst, born, credited = bucket_read(value)
  local storedTat = tat
  if tat == nil then
    tat, rate, interval, burst = nowMicros, tonumber(rateArg), tonumber(intervalArg), tonumber(burstArg)
    born, credited = nowMicros, 0
  end
  local added = 0
  for i = 5, #ARGV do
    local _, permits, age = string.match(ARGV[i], '^(%S+) (%d+) (%d+)$')
    tat = math.max(tat, nowMicros - tonumber(age) * 1000) + tonumber(permits) * interval * 1000 / rate
    added = added + tonumber(permits)
  end
  if tat > nowMicros then
    bucket_write(valueKey, tat, born, credited, rate .. ':' .. interval .. ':' .. burst, nowMicros,
      interval * 1000 / rate, burst, storedTat)
  end
  return added
end

register_kind({mark = BUCKET_MARK, name = 'token-bucket', decide = bucket_decide_any, refund = bucket_refund,
  write_back = bucket_write_back,
  read = function(value)
    local tat, rate, interval, burst, born, credited = bucket_read(value)
    return tat and {tat = tat, rate = rate, interval = interval, burst = burst, born = born, credited = credited}
      or nil
  end,
  other = function(keys, valueKey, state, now, nowMicros)
    return {kind = 'token-bucket:' .. state.burst, out = bucket_out(state.tat, state.rate, state.interval, nowMicros),
      config = {state.rate, state.interval, valueKey == keys[3] and 1 or 0, 0},
      clear = function() redis.call('del', valueKey) end,
      decide = function(wanted)
        return bucket_receipt(bucket_decide(valueKey, wanted, nowMicros, state.rate, state.interval, state.burst,
          state.tat, nil, state.born, state.credited))
      end}
  end,
  state = function(state, clock)
    local free, nextMillis = bucket_state(state.tat, state.rate, state.interval, state.burst, now_micros(clock))
    return {free, nextMillis}
  end})
