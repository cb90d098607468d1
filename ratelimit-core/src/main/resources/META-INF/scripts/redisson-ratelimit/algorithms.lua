-- algorithms: decide(keys, argument), the decision of acquire and acquire-many for a limiter of any algorithm
-- (prepended to them after decide.lua). The argument's first character tells the algorithm:
--   a digit: the sliding window, see decide.lua;
--   'g': a token bucket (token-bucket.lua), "g <permits> <clock> <grant id> <rate> <interval ms> <type> <burst>
--     <check>";
--   'f': a fixed window (fixed-window.lua), "f <permits> <clock> <grant id> <rate> <interval ms> <type> <check>
--     <previous start> <start> <end> <next end>", the bounds in ms of Redis's clock (all 0: windows of the interval
--     aligned to the epoch).
-- clock, type and check as in decide.lua. The reply as decide.lua's, the stored config (when the check found
-- another) followed by a ninth element: the stored algorithm ('sliding', 'token-bucket:<burst>', 'fixed-window').
-- The stored config of a token bucket or fixed window is compared with the declared one as decide.lua compares a
-- sliding window's, and so is another algorithm's state (see switch.lua).

local LETTER_G, LETTER_F = string.byte('g'), string.byte('f')

-- Applies the check to a stored config that differs from the declared one: the config to decide with (the stored or
-- the declared one), and the change reply's code (1 updated, 2 reset, 3 kept; nil when nothing differs).
local function checked(check, differs)
  if not differs then
    return false, nil
  end
  if check == '-' then
    return true, nil
  elseif check == 'k' then
    return true, 3
  end
  return false, check == 'u' and 1 or 2
end

local function decide_bucket(keys, argument)
  local permitsArg, clock, rateArg, intervalArg, typeArg, burstArg, check =
    string.match(argument, '^g (%d+) (%d+) %S+ (%d+) (%d+) ([01]) (%d+) ([-urk])$')
  if permitsArg == nil then
    error('redisson-ratelimit: malformed token bucket argument')
  end
  local wanted, rate, interval, burst = tonumber(permitsArg), tonumber(rateArg), tonumber(intervalArg),
    tonumber(burstArg)
  local valueKey = limiter_keys(keys, typeArg)
  local now = now_micros(clock)
  local value = redis.call('get', valueKey)
  local tat, storedRate, storedInterval, storedBurst = bucket_read(value)
  if tat == nil then
    local other = other_state(keys, valueKey, value, math.floor(now / 1000), now, 'token-bucket')
    if other == nil then
      return bucket_decide(valueKey, wanted, now, rate, interval, burst, false)
    end
    if check == '-' or check == 'k' then
      local reply = other.decide and other.decide(wanted)
        or decide_sliding(keys, permitsArg .. ' ' .. clock .. ' ' .. string.match(argument, '^g %d+ %d+ (%S+)')
          .. ' ' .. rate .. ' ' .. interval .. ' ' .. typeArg .. ' 0 -')
      return check == 'k' and with_change(reply, other, 3) or reply
    end
    if wanted > burst then
      return {-1, burst}
    end
    other.clear()
    local start = check == 'u' and now + other.out * interval * 1000 / rate or false
    return with_change(bucket_decide(valueKey, wanted, now, rate, interval, burst, start), other,
      check == 'u' and 1 or 2)
  end
  local keep, done = checked(check, storedRate ~= rate or storedInterval ~= interval or storedBurst ~= burst)
  if keep then
    rate, interval, burst = storedRate, storedInterval, storedBurst
  elseif done == 1 then
    tat = now + bucket_out(tat, storedRate, storedInterval, now) * interval * 1000 / rate
  elseif done == 2 then
    tat = false
  end
  local reply = bucket_decide(valueKey, wanted, now, rate, interval, burst, tat)
  if done ~= nil and reply[1] ~= -1 then
    for i, v in ipairs({storedRate, storedInterval, tonumber(typeArg), 0, done, 'token-bucket:' .. storedBurst}) do
      reply[3 + i] = v
    end
  end
  return reply
end

-- A fixed window's grant carries its window's start as a last element ('w<start>'), which a refund names.
local function with_receipt(reply, start)
  if reply[1] == 0 then
    reply[#reply + 1] = 'w' .. start
  end
  return reply
end

local function decide_window(keys, argument)
  local permitsArg, clock, grantId, rateArg, intervalArg, typeArg, check, previousArg, startArg, endArg, nextArg =
    string.match(argument, '^f (%d+) (%d+) (%S+) (%d+) (%d+) ([01]) ([-urk]) (%d+) (%d+) (%d+) (%d+)$')
  if permitsArg == nil then
    error('redisson-ratelimit: malformed fixed window argument')
  end
  local wanted, rate, interval = tonumber(permitsArg), tonumber(rateArg), tonumber(intervalArg)
  local valueKey = limiter_keys(keys, typeArg)
  local now = now_millis(clock)
  local start, finish = window_bounds(now, interval, tonumber(previousArg), tonumber(startArg), tonumber(endArg),
    tonumber(nextArg))
  local value = redis.call('get', valueKey)
  local count, storedStart, storedEnd, storedRate = window_read(value)
  if count == nil or now >= storedEnd then
    local other = count == nil and other_state(keys, valueKey, value, now, now * 1000, 'fixed-window') or nil
    if other == nil then
      return with_receipt(window_decide(valueKey, wanted, now, rate, 0, start, finish), start)
    end
    if check == '-' or check == 'k' then
      local reply = other.decide and other.decide(wanted)
        or decide_sliding(keys, permitsArg .. ' ' .. clock .. ' ' .. grantId .. ' ' .. rate .. ' ' .. interval .. ' '
          .. typeArg .. ' 0 -')
      return check == 'k' and with_change(reply, other, 3) or reply
    end
    if wanted > rate then
      return {-1, rate}
    end
    other.clear()
    return with_receipt(with_change(window_decide(valueKey, wanted, now, rate, check == 'u' and other.out or 0,
      start, finish), other, check == 'u' and 1 or 2), start)
  end
  local keep, done = checked(check, storedRate ~= rate or storedStart ~= start or storedEnd ~= finish)
  if keep then
    rate, start, finish = storedRate, storedStart, storedEnd
  elseif done == 2 then
    count = 0
  end
  local reply = window_decide(valueKey, wanted, now, rate, count, start, finish)
  if done ~= nil and reply[1] ~= -1 then
    for i, v in ipairs({storedRate, storedEnd - storedStart, tonumber(typeArg), 0, done, 'fixed-window'}) do
      reply[3 + i] = v
    end
  end
  return with_receipt(reply, start)
end

local function decide(keys, argument)
  local first = string.byte(argument, 1)
  if first == LETTER_G then
    return decide_bucket(keys, argument)
  elseif first == LETTER_F then
    return decide_window(keys, argument)
  end
  return decide_sliding(keys, argument)
end
