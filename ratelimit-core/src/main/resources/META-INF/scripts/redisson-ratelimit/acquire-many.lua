-- acquire-many: the decisions of several limiters (the limits of one rate limited call) in one call, each
-- exactly as acquire would make it alone, one after the other in the order given.
--
-- KEYS: five per limiter (see common.lua), limiter i's at 5i-4 .. 5i.
-- ARGV[i]: limiter i's argument, see decide.lua.
-- Reply: one element per limiter, in order: decide's reply (a list, see decide.lua), or, when its decision
--   raised an error, {-2, the error a command of the decision got from Redis (e.g. "OOM ...", "WRONGTYPE ...")}
--   or {-3, the Lua error the decision raised ("user_script:<line>: ...")}, so that one limiter's error fails
--   that limiter's call only. Partial writes of a failed decision stay, as they would after acquire failed.

local COMMAND_ERROR, SCRIPT_ERROR = -2, -3

if #KEYS ~= 5 * #ARGV then
  error('redisson-ratelimit: acquire-many takes five keys per argument but got ' .. #KEYS .. ' keys for '
    .. #ARGV .. ' arguments')
end
local replies = {}
for i = 1, #ARGV do
  local keys = {KEYS[5 * i - 4], KEYS[5 * i - 3], KEYS[5 * i - 2], KEYS[5 * i - 1], KEYS[5 * i]}
  local ok, reply = pcall(decide, keys, ARGV[i])
  if ok then
    replies[i] = reply
  elseif type(reply) == 'table' then
    -- a command's error reply, as some Redis versions raise it
    replies[i] = {COMMAND_ERROR, tostring(reply.err)}
  elseif string.match(tostring(reply), '^%u+ ') then
    -- a command's error reply as Redis 7 raises it: its text, which starts with its code
    replies[i] = {COMMAND_ERROR, reply}
  else
    replies[i] = {SCRIPT_ERROR, tostring(reply)}
  end
end
return replies
