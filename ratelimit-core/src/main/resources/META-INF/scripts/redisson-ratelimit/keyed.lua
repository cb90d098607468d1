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
-- keep-alive}), what was done about it (1 updated, 2 reset, 3 kept) and the stored algorithm (see algorithms.lua),
-- then a grant's receipt, if its reply had one. A refusal ({-1, most}) stays as it is.
local function with_stored(reply, config, done, kind)
  if reply[1] == -1 then
    return reply
  end
  local receipt = {} -- a grant's last elements, kept last
  for i = 4, #reply do
    receipt[#receipt + 1] = reply[i]
  end
  for i = 1, 4 do
    reply[3 + i] = config[i]
  end
  reply[8] = done
  reply[9] = kind
  for i = 1, #receipt do
    reply[9 + i] = receipt[i]
  end
  return reply
end

-- The algorithms kept in one key (the limiter's free-permits key of its type), each registered by its own file
-- (token-bucket.lua, fixed-window.lua, in-flight.lua, whose leases are in the grants key too; the sliding window is
-- the base the others switch from and to, see decide.lua
-- and common.lua), so that the scripts that decide, refund, read and write back find a limiter's algorithm without
-- naming it. Each is a table:
--   mark: the first byte of its decision's argument and of its write-back declaration ('g', 'f');
--   read(value): the state stored in `value`, or nil when `value` is not its state;
--   decide(keys, argument): its decision, from its own state, none, or another algorithm's (see switch.lua);
--   other(keys, valueKey, state, now, nowMicros): what another algorithm's decision finds of it (see switch.lua), or
--     nil when nothing of it is out any more;
--   refund(valueKey, state, wanted, clock, receipt, second, holder): gives back a grant (receipt, second: the numbers
--     its reply ended with, nil when absent; holder: the instance that took it), 1 when given back, else 0 (see
--     refund.lua);
--   renew(valueKey, state, wanted, clock, receipt, holder): for an algorithm whose grants are leases (in-flight.lua),
--     renews the grant's lease, 1 when it was held, else 0; absent for the others;
--   state(state, clock, valueKey): {free, next ms} as its next decision would see them (in-flight.lua adds who holds
--     how many), or nil when it holds nothing now;
--   write_back(keys, valueKey, value, rate, interval, extra, clock): writes back the grants ARGV[5..] made in memory
--     while Redis gave no decision, returns the permits added (see write-back.lua).
local KINDS, KIND_OF_MARK = {}, {}

local function register_kind(kind)
  KINDS[#KINDS + 1] = kind
  KIND_OF_MARK[kind.mark] = kind
end

local other_state -- switch.lua: another algorithm's state on a limiter
local decide_as_stored -- switch.lua: the decision of the algorithm whose state a limiter holds
local decide_sliding -- decide.lua: the sliding window's decision
local OTHER_ALGORITHM = -4 -- never answered by the scripts that include switch.lua
