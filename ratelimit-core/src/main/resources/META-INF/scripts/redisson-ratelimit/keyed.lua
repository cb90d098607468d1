-- keyed: what the scripts that know the token bucket and the fixed window share (prepended after clock.lua). The
-- algorithms' own scripts (acquire-bucket.lua, acquire-window.lua, and the sliding window's) leave it out: Redis runs
-- a script's whole chunk on each call.

-- The time of this call in microseconds: Redis's clock for '0', else the caller's clock in ms.
local function now_micros(clock)
  if clock ~= '0' then
    return tonumber(clock) * 1000
  end
  local time = redis.call('time')
  return tonumber(time[1]) * 1000000 + tonumber(time[2])
end

-- The free-permits key of a limiter of the given type ('0' OVERALL, '1' PER_CLIENT): keys[2] or keys[3].
local function type_key(keys, rateType)
  if rateType == '1' then
    return keys[3]
  end
  return keys[2]
end

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

-- A decision's reply followed by what a config check found: the config stored before ({rate, interval, type,
-- keep-alive}), what was done about it (1 updated, 2 reset, 3 kept) and the stored algorithm (see algorithms.lua). A
-- refusal ({-1, most}) stays as it is.
local function with_stored(reply, config, done, kind)
  if reply[1] == -1 then
    return reply
  end
  for i = 1, 4 do
    reply[3 + i] = config[i]
  end
  reply[8] = done
  reply[9] = kind
  return reply
end
