-- switch: what one algorithm finds of another's state on the same limiter (prepended to the scripts that decide,
-- after token-bucket.lua and fixed-window.lua). A limiter whose algorithm changes follows ratelimit.on-config-change
-- like any other change: the stored state decides while the change is not applied ('-', or 'k' keep); 'u' (update)
-- carries the permits the stored algorithm has out into the declared one, which counts them as taken now; 'r'
-- (reset) drops the stored state.

local decide_sliding -- decide.lua's sliding window, defined there
local OTHER_ALGORITHM = -4 -- never answered by the scripts that include this file

-- Another algorithm's state on the limiter whose free-permits key (of the declared type) holds `value`, at `now`
-- (ms) and `nowMicros`; nil when there is none. A table: kind ('sliding', 'token-bucket', 'fixed-window'); out, the
-- permits it has out now; config, its {rate, interval, type, keep-alive} for a change reply; clear(), which deletes
-- it; and for the new algorithms, decide(wanted), its decision with its own config.
local function other_state(keys, valueKey, value, now, nowMicros, declaredKind)
  local tat, rate, interval, burst = bucket_read(value)
  if tat ~= nil and declaredKind ~= 'token-bucket' then
    return {kind = 'token-bucket:' .. burst, out = bucket_out(tat, rate, interval, nowMicros),
      config = {rate, interval, valueKey == keys[3] and 1 or 0, 0},
      clear = function() redis.call('del', valueKey) end,
      decide = function(wanted)
        return bucket_receipt(bucket_decide(valueKey, wanted, nowMicros, rate, interval, burst, tat))
      end}
  end
  local count, start, finish, windowRate = window_read(value)
  if count ~= nil and declaredKind ~= 'fixed-window' then
    if now >= finish then
      return nil -- its window is over: nothing is out
    end
    return {kind = 'fixed-window', out = count, config = {windowRate, finish - start, valueKey == keys[3] and 1 or 0, 0},
      clear = function() redis.call('del', valueKey) end,
      decide = function(wanted) return window_decide(valueKey, wanted, now, windowRate, count, start, finish) end}
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
