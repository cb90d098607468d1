-- fixed-window: a counter per window (prepended to the scripts that know it, after keyed.lua; its common case is
-- repeated inline in acquire-window.lua: a change to the decision goes into both). The key is the
-- limiter's free-permits key of its type (keys[2] OVERALL, keys[3] PER_CLIENT), holding 'f<count>:' and then the
-- window's start (ms), end (ms), rate and the µs its count started at (the first grant it counts: a grant made before
-- was never counted by it, so a refund gives it nothing back) as 32 bytes (struct '>dddd': big-endian doubles), and
-- expiring at the window's end (an absent key is an empty window). The binary numbers are read and written without a number's text
-- (shorter, and cheaper per call). A call that would take the count above the rate is refused and takes nothing.
-- The windows: aligned to the epoch (start = now - now % interval), or, for a calendar quota, the caller's
-- computation of the previous, current and next window's bounds (the caller knows the zone's calendar), of which
-- Redis's clock picks the one it is in. When Redis's clock is in none of them (the caller's clock is a window or more
-- off), nothing is decided or written: the reply is {-5, Redis's time in ms}, from which the caller computes the
-- bounds again.

local STALE_BOUNDS = -5

-- The stored state: count, start, end, rate and when the count started (numbers), and the suffix they were read
-- from (see window_write); nil when `value` is not a fixed window's.
local function window_read(value)
  if not value then
    return nil
  end
  local count, suffix = string.match(value, '^f(%d+)(:.*)$')
  local length = suffix and string.len(suffix)
  if length == 33 then
    local start, finish, rate, started = struct.unpack('>dddd', suffix, 2)
    return tonumber(count), start, finish, rate, started, suffix
  elseif length == 25 then
    local start, finish, rate = struct.unpack('>ddd', suffix, 2)
    return tonumber(count), start, finish, rate, 0, suffix -- written by a version that kept no start of the count
  end
  return nil
end

-- The window holding `now`: from the bounds given (previous start, start, end, next end; all 0 for windows of
-- `interval` aligned to the epoch, whose argument says '0'); nil when none of them holds it.
local function window_bounds(now, interval, previous, start, finish, nextEnd)
  if finish == 0 then
    local first = now - now % interval
    return first, first + interval
  end
  if now < previous or now >= nextEnd then
    return nil
  elseif now < start then
    return previous, start
  elseif now >= finish then
    return finish, nextEnd
  end
  return start, finish
end

-- Writes the window's count; suffix: ':' and the packed bounds, rate and start of the count as stored, or nil to
-- build it (started: when the count started). A stored suffix is the window the key holds, written to expire at that
-- window's end: its expiry is kept (KEEPTTL), which spares Redis setting it again and rewriting the command with an
-- absolute time for its replicas, a tenth of the decision's cost.
local function window_write(valueKey, count, start, finish, rate, now, suffix, started)
  if suffix then
    redis.call('set', valueKey, 'f' .. count .. suffix, 'KEEPTTL')
  else
    redis.call('set', valueKey, 'f' .. count .. ':' .. struct.pack('>dddd', start, finish, rate, started), 'PX',
      math.max(1, finish - now))
  end
end

-- Takes `wanted` permits from the window [start, finish) that holds `count`, or tells when they can be free (suffix,
-- started: see window_write). changed: the config (or the algorithm) changed with this call, so the window is written
-- whatever the decision: the new config holds from now on, with the count carried out of the old one.
-- Returns {wait ms (0 when granted), free, next ms (until the window ends)}, or {-1, rate}.
local function window_decide(valueKey, wanted, now, rate, count, start, finish, suffix, changed, started)
  local left = math.max(0, finish - now)
  if wanted <= rate and count + wanted <= rate then
    window_write(valueKey, count + wanted, start, finish, rate, now, suffix, started)
    return {0, rate - count - wanted, left}
  end
  if changed then
    window_write(valueKey, count, start, finish, rate, now, suffix, started)
  end
  if wanted > rate then
    return {-1, rate}
  end
  return {math.max(1, left), math.max(0, rate - count), left}
end

-- The argument of a fixed window's decision (see algorithms.lua), parsed: permits, clock, grant id, rate, interval,
-- type, check, and the window [start, end) that holds `now` (nil, nil when the bounds given are stale).
local function window_argument(argument)
  local permits, clock, rate, interval, rateType, check, bounds, grantId =
    string.match(argument, '^f (%d+) (%d+) (%d+) (%d+) ([01]) ([-urk]) ([%d,]+) .-(%S+)$')
  local previous, start, finish, nextEnd = 0, 0, 0, 0
  if permits ~= nil and bounds ~= '0' then
    previous, start, finish, nextEnd = string.match(bounds, '^(%d+),(%d+),(%d+),(%d+)$')
  end
  if permits == nil or previous == nil then
    error('redisson-ratelimit: malformed fixed window argument')
  end
  local nowMicros = now_micros(clock)
  local now = (nowMicros - nowMicros % 1000) / 1000
  local first, last = window_bounds(now, tonumber(interval), tonumber(previous), tonumber(start), tonumber(finish),
    tonumber(nextEnd))
  return tonumber(permits), clock, grantId, tonumber(rate), tonumber(interval), rateType, check, now, first, last,
    nowMicros
end

-- A fixed window's grant ends with its window's start (ms) and its own time (µs), the receipt its refund names:
-- numbers, since formatting them as text costs Redis about 2.5k instructions each per grant.
local function with_receipt(reply, start, nowMicros)
  if reply[1] == 0 then
    reply[#reply + 1] = start
    reply[#reply + 1] = nowMicros
  end
  return reply
end

-- The decision of a limiter declared as a fixed window, when it holds a fixed window or nothing; nil when it holds
-- another algorithm's state (a value of another form, or a sliding window's config hash), which switch.lua handles.
-- A stored window that is the current one is written back with its own bounds' bytes, without packing them again.
local function window_own(keys, argument)
  local wanted, _, _, rate, _, rateType, check, now, start, finish, nowMicros = window_argument(argument)
  if start == nil then
    return {STALE_BOUNDS, now}
  end
  local valueKey = type_key(keys, rateType)
  local value = redis.call('get', valueKey)
  local count, storedStart, storedEnd, storedRate, started, suffix = window_read(value)
  if count == nil or now >= storedEnd then
    if (value and count == nil) or (check ~= '-' and redis.call('exists', keys[1]) == 1) then
      return nil -- another algorithm's config hash is looked for on a config check only, as bucket_own does
    end
    return with_receipt(window_decide(valueKey, wanted, now, rate, 0, start, finish, nil, false, nowMicros), start,
      nowMicros)
  end
  local keep, done = checked(check, storedRate ~= rate or storedStart ~= start or storedEnd ~= finish)
  if keep or done == nil then
    rate, start, finish = storedRate, storedStart, storedEnd
  else
    suffix = nil
    if done == 2 then
      count, started = 0, nowMicros
    end
  end
  local reply = window_decide(valueKey, wanted, now, rate, count, start, finish, suffix, not keep and done ~= nil,
    started)
  if done ~= nil then
    with_stored(reply, {storedRate, storedEnd - storedStart, tonumber(rateType), 0}, done, 'fixed-window')
  end
  return with_receipt(reply, start, nowMicros)
end

-- The decision of a limiter declared as a fixed window, whatever it holds.
local function window_decide_any(keys, argument)
  local reply = window_own(keys, argument)
  if reply ~= nil then
    return reply
  end
  local wanted, clock, grantId, rate, interval, rateType, check, now, start, finish, nowMicros =
    window_argument(argument)
  local valueKey = type_key(keys, rateType)
  local other = other_state(keys, valueKey, redis.call('get', valueKey), now, nowMicros, 'fixed-window')
  if other == nil then
    return with_receipt(window_decide(valueKey, wanted, now, rate, 0, start, finish, nil, false, nowMicros), start,
      nowMicros)
  end
  if check == '-' or check == 'k' then
    return decide_as_stored(keys, other, check, wanted, clock, grantId, rate, interval, rateType)
  end
  other.clear()
  return with_receipt(with_stored(window_decide(valueKey, wanted, now, rate, check == 'u' and other.out or 0,
    start, finish, nil, true, nowMicros), other.config, check == 'u' and 1 or 2, other.kind), start, nowMicros)
end

-- The window's count goes down, in the window the grant was counted in only (receipt: that window's start), and
-- only when the count started before the grant (made: the grant's µs): a count started afresh since (the window's
-- state was lost) never counted it.
local function window_refund(valueKey, state, wanted, clock, receipt, made)
  local now = now_millis(clock)
  if now >= state.finish or (receipt ~= nil and receipt ~= state.start) or (made ~= nil and state.started > made) then
    return 0
  end
  window_write(valueKey, math.max(0, state.count - wanted), state.start, state.finish, state.rate, now, nil,
    state.started)
  return 1
end

-- A fixed window counts the grants written back that were made in its current window; a window not stored yet is
-- started only for windows aligned to the epoch (a calendar quota's bounds are the caller's: calendar 'c').
local function window_write_back(keys, valueKey, value, rateArg, intervalArg, calendar, clock)
  local now = now_millis(clock)
  local count, start, finish, rate, started = window_read(value)
  if count == nil or now >= finish then
    local interval = tonumber(intervalArg)
    if count ~= nil or calendar == 'c' then
      return 0
    end
    count, start, rate, started = 0, now - now % interval, tonumber(rateArg), now * 1000
    finish = start + interval
  end
  local added = 0
  for i = 5, #ARGV do
    local _, permits, age = string.match(ARGV[i], '^(%S+) (%d+) (%d+)$')
    if now - tonumber(age) >= start then
      added = added + tonumber(permits)
    end
  end
  if added > 0 then
    window_write(valueKey, count + added, start, finish, rate, now, nil, started)
  end
  return added
end

register_kind({mark = string.byte('f'), name = 'fixed-window', decide = window_decide_any, refund = window_refund,
  write_back = window_write_back,
  read = function(value)
    local count, start, finish, rate, started = window_read(value)
    return count and {count = count, start = start, finish = finish, rate = rate, started = started} or nil
  end,
  other = function(keys, valueKey, state, now, nowMicros)
    if now >= state.finish then
      return nil -- its window is over: nothing is out
    end
    return {kind = 'fixed-window', out = state.count,
      config = {state.rate, state.finish - state.start, valueKey == keys[3] and 1 or 0, 0},
      clear = function() redis.call('del', valueKey) end,
      decide = function(wanted)
        return with_receipt(window_decide(valueKey, wanted, now, state.rate, state.count, state.start, state.finish,
          nil, false, state.started), state.start, nowMicros)
      end}
  end,
  state = function(state, clock)
    local now = now_millis(clock)
    if now >= state.finish then
      return nil
    end
    return {math.max(0, state.rate - state.count), state.finish - now}
  end})
