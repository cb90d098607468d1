-- in-flight: at most `rate` permits held at once, each by a lease that ends when its call gives it back or, unless
-- renewed, one lease period after it was taken or last renewed (prepended to the scripts that know it, after
-- keyed.lua). Two keys of the limiter's type: its free-permits key (keys[2] OVERALL, keys[3] PER_CLIENT) holding
-- 'i<held>:<last lease id>:<rate>:<lease ms>', and its grants key (keys[4], keys[5]) holding one member per lease,
-- '<lease id>:<permits>:<holder>', scored with the ms (Redis's clock) at which it ends; the holder names the instance
-- that took it (for the actuator: who holds how many). A lease id is the µs of the grant,
-- or one more than the last id when that is later: unique for the limiter even after its keys were deleted, so that
-- the give-back of a lease from before a reset never takes a later lease. Held = the permits of the leases not
-- ended; a lease that ended is dropped with its permits by the next call that reads the limiter. Both keys expire
-- one lease period after the last write, when every lease has ended.
-- Callers that wait for permits (a waitTimeout) are granted in the order they were first refused, across instances:
-- the free-permits key lists them after the state, '|<waiter id>:<permits>:<end ms>' each in that order, each
-- until the end its last attempt gave (the end of its wait, and at most a few seconds: it asks again within one),
-- and a call is granted only when no waiter listed before it (every listed one, for a call not listed) is left.

local IN_FLIGHT_MARK = string.byte('i')

-- The stored state, {held, last, rate, lease, waiters}; nil when `value` is not an in-flight limit's.
local function flight_read(value)
  if not value or string.byte(value) ~= IN_FLIGHT_MARK then
    return nil
  end
  local held, last, rate, lease, listed = string.match(value, '^i(%d+):(%d+):(%d+):(%d+)(.*)$')
  if held == nil then
    return nil
  end
  local waiters = {}
  for id, permits, ends in string.gmatch(listed, '|([^|:]+):(%d+):(%d+)') do
    waiters[#waiters + 1] = {id = id, permits = tonumber(permits), ends = tonumber(ends)}
  end
  return {held = tonumber(held), last = tonumber(last), rate = tonumber(rate), lease = tonumber(lease),
    waiters = waiters}
end

-- The leases key beside the free-permits key `valueKey` of `keys`.
local function flight_leases_key(keys, valueKey)
  return valueKey == keys[3] and keys[5] or keys[4]
end

-- The permits of the leases that ended by `now` (ms); drops them when `drop`.
local function flight_ended(leasesKey, now, drop)
  local ended = redis.call('zrangebyscore', leasesKey, '-inf', now)
  if #ended == 0 then
    return 0
  end
  local permits = 0
  for i = 1, #ended do
    permits = permits + tonumber(string.match(ended[i], '^%d+:(%d+)'))
  end
  if drop then
    redis.call('zremrangebyscore', leasesKey, '-inf', now)
  end
  return permits
end

local function flight_write(valueKey, leasesKey, state)
  -- string.format: Lua writes a number of 15 digits or more with an exponent
  local value = string.format('i%d:%d:%d:%d', state.held, state.last, state.rate, state.lease)
  for _, waiter in ipairs(state.waiters or {}) do
    value = value .. string.format('|%s:%d:%d', waiter.id, waiter.permits, waiter.ends)
  end
  redis.call('set', valueKey, value, 'PX', state.lease)
  redis.call('pexpire', leasesKey, state.lease)
end

-- The waiters whose wait has not ended by `now`, in order; the one of id `id` among them (nil when not listed),
-- the permits of those listed before it (of all, when not listed), and whether any had ended.
local function flight_waiters(state, id, now)
  local waiters, mine, ahead = {}, nil, 0
  for _, waiter in ipairs(state.waiters or {}) do
    if waiter.ends > now then
      waiters[#waiters + 1] = waiter
      if waiter.id == id then
        mine = waiter
      elseif mine == nil then
        ahead = ahead + waiter.permits
      end
    end
  end
  return waiters, mine, ahead, #waiters ~= #(state.waiters or {})
end

-- Takes `wanted` permits for one lease, or refuses. Returns {0, free, 0, lease id} for a grant, {1, free, 0} for a
-- refusal (when permits come back is not known: when a call ends), {-1, rate} when it asks for more than the rate.
-- changed: the config changed with this call, so the state is written whatever the decision. waiter: '-' for a
-- call that does not wait, else '<n>:<ms>', the n-th waiter of `holder`, listed until `ms` from now when refused.
local function flight_decide(valueKey, leasesKey, state, wanted, now, nowMicros, changed, holder, waiter)
  local n, waits = string.match(waiter or '-', '^(%d+):(%d+)$')
  local waiterId = n and (n .. '/' .. holder) or nil
  local waiters, mine, ahead, ended = flight_waiters(state, waiterId, now)
  state.waiters = waiters
  if wanted > state.rate then
    if changed or ended then
      flight_write(valueKey, leasesKey, state)
    end
    return {-1, state.rate}
  end
  if state.held + wanted > state.rate or ahead > 0 then
    if waiterId ~= nil then
      -- listed (or kept listed) in the order of its first refusal
      local ends = now + tonumber(waits)
      if mine then
        mine.ends = ends
      else
        waiters[#waiters + 1] = {id = waiterId, permits = wanted, ends = ends}
      end
    end
    if changed or ended or waiterId ~= nil then
      flight_write(valueKey, leasesKey, state)
    end
    return {1, math.max(0, state.rate - state.held - ahead), 0}
  end
  if mine then
    table.remove(waiters, 1) -- it was first
  end
  local id = math.max(nowMicros, state.last + 1)
  redis.call('zadd', leasesKey, now + state.lease, string.format('%d:%d:%s', id, wanted, holder))
  state.held, state.last = state.held + wanted, id
  flight_write(valueKey, leasesKey, state)
  if #waiters > 0 and state.held < state.rate then
    redis.call('publish', KEYS[1] .. ':released', state.rate - state.held) -- the next waiter may fit now
  end
  return {0, state.rate - state.held, 0, id}
end

-- The argument of an in-flight decision (see algorithms.lua), parsed: permits, clock, grant id, rate, lease ms,
-- type, check, holder, waiter.
local function flight_argument(argument)
  local permits, clock, rateType, check, rate, lease, grantId, holder, waiter =
    string.match(argument, '^i (%d+) (%d+) ([01]) ([-urk]) (%d+):(%d+) (%S+) (%S+) (%S+)$')
  if permits == nil then
    error('redisson-ratelimit: malformed in-flight argument')
  end
  return tonumber(permits), clock, grantId, tonumber(rate), tonumber(lease), rateType, check, holder, waiter
end

-- The decision of a limiter declared as an in-flight limit, whatever it holds. A change of rate or lease period
-- follows the check: 'u' keeps the leases under the new config, 'r' drops them (their calls' give-backs then find
-- nothing), '-' and 'k' decide with the stored config. A change from another algorithm: 'u' counts the permits it
-- has out as held for one lease period, 'r' starts empty.
local function flight_decide_any(keys, argument)
  local wanted, clock, grantId, rate, lease, rateType, check, holder, waiter = flight_argument(argument)
  local nowMicros = now_micros(clock)
  local now = (nowMicros - nowMicros % 1000) / 1000
  local valueKey = type_key(keys, rateType)
  local leasesKey = flight_leases_key(keys, valueKey)
  local value = redis.call('get', valueKey)
  local state = flight_read(value)
  if state == nil then
    local other = (value or (check ~= '-' and redis.call('exists', keys[1]) == 1))
      and other_state(keys, valueKey, value, now, nowMicros, 'in-flight') or nil
    if other ~= nil and (check == '-' or check == 'k') then
      return decide_as_stored(keys, other, check, wanted, clock, grantId, rate, lease, rateType)
    end
    if other ~= nil then
      other.clear()
      local state = {held = 0, last = 0, rate = rate, lease = lease}
      if check == 'u' and other.out > 0 then
        -- the permits the other algorithm has out count as held by a lease nobody renews: for one lease period
        state.held, state.last = other.out, nowMicros
        redis.call('zadd', leasesKey, now + lease, string.format('%d:%d:%s', nowMicros, other.out, other.kind))
      end
      return with_stored(flight_decide(valueKey, leasesKey, state, wanted, now, nowMicros, true, holder, waiter),
        other.config,
        check == 'u' and 1 or 2, other.kind)
    end
    if not value and redis.call('exists', keys[1]) == 0 then
      redis.call('del', leasesKey) -- leases of a state that is gone (deleted, evicted) ended with it
    end
    return flight_decide(valueKey, leasesKey, {held = 0, last = 0, rate = rate, lease = lease}, wanted, now,
      nowMicros, false, holder, waiter)
  end
  state.held = math.max(0, state.held - flight_ended(leasesKey, now, true))
  local keep, done = checked(check, state.rate ~= rate or state.lease ~= lease)
  local stored = {state.rate, state.lease, tonumber(rateType), 0}
  if not keep and done ~= nil then
    state.rate, state.lease = rate, lease
    if done == 2 then
      redis.call('del', leasesKey)
      state.held = 0
    end
  end
  local reply = flight_decide(valueKey, leasesKey, state, wanted, now, nowMicros, not keep and done ~= nil, holder,
    waiter)
  if done ~= nil then
    with_stored(reply, stored, done, 'in-flight')
  end
  return reply
end

-- Gives back the lease `receipt` of `wanted` permits that `holder` took (a call that ended), or with `renew` renews it
-- (it then ends one lease period from now); 1 when it was held, 0 when it had ended or was dropped.
local function flight_give_back(valueKey, state, wanted, clock, receipt, holder, renew)
  local leasesKey = flight_leases_key(KEYS, valueKey)
  local now = now_millis(clock)
  if receipt == nil or holder == nil then
    return 0
  end
  local member = string.format('%d:%d:%s', receipt, wanted, holder)
  local ends = tonumber(redis.call('zscore', leasesKey, member))
  if ends == nil or ends <= now then
    return 0
  end
  if renew then
    redis.call('zadd', leasesKey, now + state.lease, member)
  else
    redis.call('zrem', leasesKey, member)
    state.held = math.max(0, state.held - wanted)
    redis.call('publish', KEYS[1] .. ':released', wanted) -- wakes the callers waiting (ReleaseSubscriptions)
  end
  flight_write(valueKey, leasesKey, state)
  return 1
end

register_kind({mark = IN_FLIGHT_MARK, name = 'in-flight', decide = flight_decide_any,
  refund = function(valueKey, state, wanted, clock, receipt, _, holder)
    return flight_give_back(valueKey, state, wanted, clock, receipt, holder, false)
  end,
  renew = function(valueKey, state, wanted, clock, receipt, holder)
    return flight_give_back(valueKey, state, wanted, clock, receipt, holder, true)
  end,
  read = flight_read,
  write_back = function()
    return 0 -- a call admitted in memory during an outage holds no lease in Redis
  end,
  other = function(keys, valueKey, state, now, nowMicros)
    local leasesKey = flight_leases_key(keys, valueKey)
    local held = math.max(0, state.held - flight_ended(leasesKey, now, false))
    return {kind = 'in-flight', out = held, config = {state.rate, state.lease, valueKey == keys[3] and 1 or 0, 0},
      clear = function() redis.call('del', valueKey, leasesKey) end,
      decide = function(wanted)
        state.held = math.max(0, state.held - flight_ended(leasesKey, now, true))
        return flight_decide(valueKey, leasesKey, state, wanted, now, nowMicros, false, '-')
      end}
  end,
  -- {free, 0, holder, permits, holder, permits, ...}: who holds how many
  state = function(state, clock, valueKey)
    local leasesKey = flight_leases_key(KEYS, valueKey)
    local now = now_millis(clock)
    local held = math.max(0, state.held - flight_ended(leasesKey, now, false))
    local reply, at = {math.max(0, state.rate - held), 0}, {}
    for _, lease in ipairs(redis.call('zrangebyscore', leasesKey, '(' .. now, '+inf')) do
      local permits, holder = string.match(lease, '^%d+:(%d+):(.*)$')
      if at[holder] == nil then
        at[holder] = #reply + 2
        reply[#reply + 1] = holder
        reply[#reply + 1] = 0
      end
      reply[at[holder]] = reply[at[holder]] + tonumber(permits)
    end
    return reply
  end})
