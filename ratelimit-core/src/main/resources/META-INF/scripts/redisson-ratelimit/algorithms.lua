-- algorithms: decide(keys, argument), the decision of acquire and acquire-many for a limiter of any algorithm
-- (prepended to them after decide.lua). The argument's first character tells the algorithm:
--   a digit: the sliding window, see decide.lua;
--   'g': a token bucket (token-bucket.lua), "g <permits> <clock> <type> <check> <rate>:<interval ms>:<burst> <grant id>"
--     (the config as the bucket stores it, compared as text);
--   'f': a fixed window (fixed-window.lua), "f <permits> <clock> <rate> <interval ms> <type> <check> <bounds>
--     <grant id>", the bounds '<previous start>,<start>,<end>,<next end>' in ms of Redis's clock for a calendar quota,
--     '0' for windows of the interval aligned to the epoch.
--   The grant id comes last: acquire-bucket.lua and acquire-window.lua, which never use it, leave it unread.
-- clock, type and check as in decide.lua. The reply as decide.lua's, the stored config (when the check found
-- another) followed by a ninth element: the stored algorithm ('sliding', 'token-bucket:<burst>', 'fixed-window').
-- The stored config of a token bucket or fixed window is compared with the declared one as decide.lua compares a
-- sliding window's, and so is another algorithm's state (see switch.lua).

local LETTER_G, LETTER_F = string.byte('g'), string.byte('f')

-- The decision of the algorithm whose state the limiter holds, with its own stored config (the check says to keep it,
-- or this JVM checked the declared spec already): the declared rate and interval only name a sliding window whose
-- config hash is there.
local function decide_as_stored(keys, other, check, wanted, clock, grantId, rate, interval, rateType)
  local reply = other.decide and other.decide(wanted)
    or decide_sliding(keys, wanted .. ' ' .. clock .. ' ' .. grantId .. ' ' .. rate .. ' ' .. interval .. ' '
      .. rateType .. ' 0 -')
  return check == 'k' and with_change(reply, other, 3) or reply
end

local function decide_bucket(keys, argument)
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
  local reply, granted = bucket_decide(valueKey, wanted, now, rate, interval, burst, start, nil, true)
  return bucket_receipt(with_change(reply, other, check == 'u' and 1 or 2), granted)
end

local function decide_window(keys, argument)
  local reply = window_own(keys, argument)
  if reply ~= nil then
    return reply
  end
  local wanted, clock, grantId, rate, interval, rateType, check, now, start, finish = window_argument(argument)
  local valueKey = type_key(keys, rateType)
  local other = other_state(keys, valueKey, redis.call('get', valueKey), now, now * 1000, 'fixed-window')
  if other == nil then
    return with_receipt(window_decide(valueKey, wanted, now, rate, 0, start, finish), start)
  end
  if check == '-' or check == 'k' then
    return decide_as_stored(keys, other, check, wanted, clock, grantId, rate, interval, rateType)
  end
  other.clear()
  return with_receipt(with_change(window_decide(valueKey, wanted, now, rate, check == 'u' and other.out or 0,
    start, finish, nil, true), other, check == 'u' and 1 or 2), start)
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
