-- clock: what every script that decides or reads a limiter shares (prepended first to each when it is loaded, as
-- written: a line number Redis reports is translated back to its file and line by LuaScripts).

-- The time of this call in ms: Redis's own clock for '0', else the caller's clock it carries.
local function now_millis(clock)
  if clock ~= '0' then
    return tonumber(clock)
  end
  local time = redis.call('time')
  return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
