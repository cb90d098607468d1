-- switch: what one algorithm finds of another's state on the same limiter (prepended to the scripts that decide,
-- after token-bucket.lua and fixed-window.lua). A limiter whose algorithm changes follows ratelimit.on-config-change
-- like any other change: the stored state decides while the change is not applied ('-', or 'k' keep); 'u' (update)
-- carries the permits the stored algorithm has out into the declared one, which counts them as taken now; 'r'
-- (reset) drops the stored state.


-- Another algorithm's state on the limiter whose free-permits key (of the declared type) holds `value`, at `now`
-- (ms) and `nowMicros`; nil when there is none. A table: kind (the stored algorithm's name, as a change reply
-- reports it: 'sliding', 'token-bucket:<burst>', 'fixed-window'); out, the permits it has out now; config, its
-- {rate, interval, type, keep-alive} for a change reply; clear(), which deletes it; and for the algorithms kept in one
-- key (KINDS, see keyed.lua), decide(wanted), its decision with its own config.
other_state = function(keys, valueKey, value, now, nowMicros, declaredKind)
  for _, kind in ipairs(KINDS) do
    if kind.name ~= declaredKind then
      local state = kind.read(value)
      if state ~= nil then
        return kind.other(keys, valueKey, state, now, nowMicros)
      end
    end
  end
  if declaredKind ~= 'sliding' and (value == false or tonumber(value) ~= nil) then
    local slidingRate, slidingInterval, rateType, keepAlive = stored_config(keys)
    if slidingRate == nil then
      return nil
    end
    local _, grantsKey = limiter_keys(keys, rateType)
    return {kind = 'sliding', out = slidingRate - recount(grantsKey, slidingRate, slidingInterval, now),
      config = {slidingRate, slidingInterval, tonumber(rateType), keepAlive},
      clear = function() redis.call('del', keys[1], keys[2], keys[3], keys[4], keys[5]) end}
  end
  return nil
end

-- The reply of a decision that found another algorithm's config (see with_stored).
local function with_change(reply, other, done)
  return with_stored(reply, other.config, done, other.kind)
end

-- The decision of the algorithm whose state the limiter holds, with its own stored config (the check says to keep it,
-- or this JVM checked the declared spec already): the declared rate and interval only name a sliding window whose
-- config hash is there.
decide_as_stored = function(keys, other, check, wanted, clock, grantId, rate, interval, rateType)
  local reply = other.decide and other.decide(wanted)
    or decide_sliding(keys, wanted .. ' ' .. clock .. ' ' .. grantId .. ' ' .. rate .. ' ' .. interval .. ' '
      .. rateType .. ' 0 -')
  return check == 'k' and with_change(reply, other, 3) or reply
end
