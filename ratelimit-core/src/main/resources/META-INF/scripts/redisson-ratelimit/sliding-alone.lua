-- sliding-alone: what the sliding window's own script (acquire-sliding) knows of the other algorithms: only that
-- their state is there, in which case it answers OTHER_ALGORITHM and the caller sends the call again as acquire, which
-- knows them all (see switch.lua). Keeps the common path free of what only a change of algorithm needs.

local decide_sliding -- decide.lua's, defined there
local OTHER_ALGORITHM = -4

-- Another algorithm's state: the free-permits key holds a token bucket's or a fixed window's value.
local function other_state(_, _, value)
  if value and string.find(value, '^[gf]') then
    return {elsewhere = true}
  end
  return nil
end

local function with_change(reply)
  return reply
end
