-- decide: the decision of acquire (one limiter) and acquire-many (several) for the sliding window, as a function
-- shared by both (prepended to them after switch.lua; algorithms.lua dispatches to it). Its common case is
-- repeated inline in acquire-sliding.lua: a change to the decision goes into both.
--
-- decide_sliding(keys, argument): takes permits from one limiter, or answers when they can be free.
-- keys: the limiter's five keys, see common.lua (config, free shared, free this client's, grants shared,
--   grants this client's).
-- argument: "<permits> <clock> <grant id> <rate> <interval ms> <type> <keep-alive ms> <check>", one argument:
--   Redis spends less time on one argument matched by a pattern than on eight (measured with INFO commandstats).
--   clock: 0 reads Redis's TIME, else the caller's clock in ms (ratelimit.clock=client); grant id: names the
--   hold this call may put on lost grants (grants go to their slice's member, see common.lua);
--   rate .. keep-alive: the declared config, written when none is stored;
--   check: '-' uses the stored config, 'u' / 'r' / 'k' compare it with the declared one and, when they
--   differ, update it keeping the window, reset it, or keep the stored one (ratelimit.on-config-change).
--   Then, for a call that would take a lease, ' <lease ms> <permits wanted>': only acquire-sliding.lua leases;
--   here (the cases it leaves to acquire) the call is a plain one, granted the permits asked.
-- Returns {wait, free, next}: wait 0 when granted, else the ms until the permits can be free (1..interval);
--   free the permits left (never below 0); next the ms until the oldest grant leaves the window
--   (0..interval). When the check found another stored config, six more: rate, interval, type and
--   keep-alive of the stored one, 1 updated, 2 reset or 3 kept, and 'sliding'. A grant's reply ends with its
--   time in µs, the receipt its refund names (see refund.lua).
--   Or {-1, rate} when the call asks for more permits than the rate in force: nothing is taken, nothing is
--   written for a limiter without config, and a config change the call brings is applied whole (its recount
--   included) all the same.
--
-- The law free + held = rate is kept through every change: a lowered rate leaves free below 0 (a debt the
-- next expiring grants pay), a raised one frees the difference at once; a lost counter is recounted from
-- the grants, and so is a counter someone else wrote (see write_free); lost grants with a counter left are
-- held as one grant of (rate - free) from now, and a limiter with neither starts a fresh window.

decide_sliding = function(keys, argument)
  local permitsArg, clock, grantId, rateArg, intervalArg, typeArg, keepAliveArg, check =
    string.match(argument, '^(%d+) (%d+) (%S+) (%d+) (%d+) ([01]) (%d+) ([-urk])[ %d]*$')
  if permitsArg == nil then
    error('redisson-ratelimit: malformed acquire argument')
  end
  local wanted = tonumber(permitsArg)
  local declared = {tonumber(rateArg), tonumber(intervalArg), typeArg, tonumber(keepAliveArg)}
  local nowMicros = now_micros(clock)
  local now = (nowMicros - nowMicros % 1000) / 1000

  local declaredValueKey = limiter_keys(keys, typeArg)
  local rate, interval, rateType, keepAlive, fields = stored_config(keys, declaredValueKey)
  local write, recounting = false, false
  local change = nil
  local switched = nil -- another algorithm's state found, and what was done with it
  local unconfigured -- the counter as read when no config is stored: read once, for both uses below
  if rate == nil then
    rate, interval, rateType, keepAlive = declared[1], declared[2], declared[3], declared[4]
    if wanted > rate then
      return {-1, rate} -- before writing anything: a limiter no call could ever take from is not created
    end
    unconfigured = redis.call('get', declaredValueKey)
    local other = other_state(keys, declaredValueKey, unconfigured, now, nowMicros, 'sliding')
    if other ~= nil then
      if other.elsewhere then
        return {OTHER_ALGORITHM}
      end
      if check == '-' or check == 'k' then
        local reply = other.decide(wanted)
        return check == 'k' and with_change(reply, other, 3) or reply
      end
      other.clear()
      unconfigured = false
      if check == 'u' and other.out > 0 then
        unconfigured = tostring(rate - other.out)
        redis.call('set', declaredValueKey, unconfigured) -- held from now, below, as lost grants are
      end
      switched = {other, check == 'u' and 1 or 2}
    end
    write = true
  elseif check ~= '-' and (rate ~= declared[1] or interval ~= declared[2] or rateType ~= declared[3]
      or keepAlive ~= declared[4]) then
    change = {rate, interval, tonumber(rateType), keepAlive, 3}
    if check ~= 'k' then
      rate, interval, rateType, keepAlive = declared[1], declared[2], declared[3], declared[4]
      write = true
      recounting = check ~= 'r'
      change[5] = recounting and 1 or 2
    end
  end
  local tooMany = wanted > rate
  if tooMany and not write then
    return {-1, rate}
  end
  if write then
    redis.call('hset', keys[1], 'rate', rate, 'interval', interval, 'type', rateType, 'keepAliveTime', keepAlive)
    if change ~= nil and not recounting then
      redis.call('del', keys[2], keys[3], keys[4], keys[5])
    end
  end
  local valueKey, grantsKey = limiter_keys(keys, rateType)
  local writtenField = fields[5]
  if valueKey ~= declaredValueKey then
    writtenField = redis.call('hget', keys[1], valueKey) -- a type other than the declared one is kept
  end
  local written, sliceEnd, slicePermits, started = written_free(writtenField)

  local stored
  if unconfigured ~= nil and valueKey == declaredValueKey then
    stored = unconfigured
  else
    stored = redis.call('get', valueKey)
  end
  if stored and tonumber(stored) == nil then
    -- not a count (another algorithm's state left under the key of a type this limiter changed to): recounted
    stored = false
  end
  local free
  local changed, added = false, false -- added: a member that needs the keys to live one more interval
  local oldest, leaving
  if recounting and stored ~= false and tonumber(stored) < change[1] and redis.call('zcard', grantsKey) == 0 then
    -- the config changed while the grants were lost: hold what the counter said was taken before recounting
    hold_lost_grants(grantsKey, grantId, change[1] - tonumber(stored), now)
    added = true
  end
  if stored == false or recounting then
    free = recount(grantsKey, rate, interval, now)
    changed = true
    oldest = redis.call('zrange', grantsKey, 0, 0, 'withscores')
  else
    free = tonumber(stored)
    -- the oldest grant tells when the next permit returns; while it is in the window, no grant left it. Else the
    -- grants that left give their permits back: the oldest alone when the second oldest is still in (the common
    -- case, one call fewer), else read without their scores (eight at a time, then the rest by score: reading
    -- more scores cost Redis more, it formats each).
    local edge = now - interval
    oldest = redis.call('zrange', grantsKey, 0, 1, 'withscores')
    if #oldest > 0 and tonumber(oldest[2]) <= edge then
      if #oldest == 2 or tonumber(oldest[4]) > edge then
        leaving = oldest[1] -- removed once a grant is in: a ZSET left empty would go, and its TTL with it
        local _, permits = struct.unpack('Bc0I', leaving)
        free = free + permits
        oldest = {oldest[3], oldest[4]} -- empty when it was the only one
      else
        local expired = redis.call('zrangebyscore', grantsKey, 0, edge, 'limit', 0, 8)
        if #expired == 8 then
          expired = redis.call('zrangebyscore', grantsKey, 0, edge)
        end
        redis.call('zremrangebyscore', grantsKey, 0, edge)
        free = free + held(expired)
        oldest = redis.call('zrange', grantsKey, 0, 0, 'withscores')
      end
      changed = true
    end
    local empty = #oldest == 0
    if empty and free < rate then
      -- the grants are gone but the counter is not: what it says is taken stays taken, from now
      oldest = hold_lost_grants(grantsKey, grantId, rate - free, now)
      added = true
    elseif empty and free > rate then
      free = rate
      changed = true
    elseif not empty and stored ~= written then
      -- someone else wrote the counter (RRateLimiter's release or tryAcquire): the grants tell what is free
      if leaving then
        redis.call('zrem', grantsKey, leaving)
        leaving = nil
      end
      free = rate - held(redis.call('zrange', grantsKey, 0, -1))
      changed = true
    end
  end

  local wait, nextMillis = 0, interval
  if tooMany then
    wait = -1
    if leaving then
      redis.call('zrem', grantsKey, leaving)
    end
  elseif free >= wanted then
    -- after a hold on lost grants, the slice's member was lost with them
    local hadMembers = #oldest > 0 and not added
    sliceEnd, slicePermits = add_to_slice(grantsKey, sliceEnd, slicePermits, wanted, now, interval, hadMembers)
    if not hadMembers then
      started = started_text(nowMicros)
    end
    if leaving then
      redis.call('zrem', grantsKey, leaving)
    end
    free = free - wanted
    added = true
    changed = true
    if #oldest > 0 then
      nextMillis = until_expiry(oldest[2], interval, now)
    end
  else
    if leaving then
      redis.call('zrem', grantsKey, leaving)
    end
    wait = interval
    local back = free
    local grants = redis.call('zrange', grantsKey, 0, wanted - free - 1, 'withscores')
    for i = 1, #grants, 2 do
      local _, permits = struct.unpack('Bc0I', grants[i])
      back = back + permits
      if back >= wanted then
        wait = until_expiry(grants[i + 1], interval, now)
        break
      end
    end
    wait = math.max(1, wait)
    if #oldest > 0 then
      nextMillis = until_expiry(oldest[2], interval, now)
    end
  end
  if changed then
    write_free(keys, valueKey, free, sliceEnd, slicePermits, started)
  end
  -- the keys outlive the newest grant's stay in the window (up to one slice past its time, see common.lua) and
  -- are renewed lazily: a TTL within the slack of the full one is left as it is. A call that added no grant
  -- needs no more than what the grants need, which the last grant renewed
  local lifetime, renew = 0, false
  if keepAlive > 0 then
    local width = slice_width(interval)
    lifetime = math.max(keepAlive, interval + width)
    local slack = math.floor(lifetime / 16)
    if added then
      slack = math.min(slack, lifetime - interval - width)
    end
    renew = write or stored == false or redis.call('pttl', grantsKey) < lifetime - slack
    if write or stored == false then
      -- a forced renewal must not cut short a member stamped ahead (a lease's, see acquire-sliding.lua): it counts
      -- until one interval past its score
      local newest = redis.call('zrange', grantsKey, -1, -1, 'withscores')
      if #newest > 0 then
        lifetime = math.max(lifetime, tonumber(newest[2]) + interval - now)
      end
    end
  end
  if renew then
    redis.call('pexpire', keys[1], lifetime)
    redis.call('pexpire', valueKey, lifetime)
    redis.call('pexpire', grantsKey, lifetime)
  elseif keepAlive == 0 then
    -- no keep-alive of our own: the keys follow a TTL set on the config hash, as RRateLimiter's do
    local ttl = redis.call('pttl', keys[1])
    if ttl > 0 then
      redis.call('pexpire', valueKey, ttl)
      redis.call('pexpire', grantsKey, ttl)
    end
  end

  if tooMany then
    return {-1, rate}
  end
  local reply = {wait, math.max(0, free), nextMillis}
  if wait == 0 then
    reply[4] = nowMicros -- the receipt a refund of the grant names: its time, which tells its slice (see refund.lua)
  end
  if switched ~= nil then
    return with_change(reply, switched[1], switched[2])
  end
  if change ~= nil then
    return with_stored(reply, change, change[5], 'sliding')
  end
  return reply
end
