-- acquire: takes permits from a limiter, or answers when they can be free. One call per decision.
--
-- KEYS: the limiter's five keys, see common.lua.
-- ARGV[1]: the decision's argument, see decide.lua.
-- Reply: decide's reply (see decide.lua); its errors (malformed arguments) fail the call.

return decide(KEYS, ARGV[1])
