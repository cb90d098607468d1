-- acquire-many: the decisions of several limiters (the limits of one rate limited call) in one call, each
-- exactly as acquire would make it alone, one after the other in the order given.
--
-- KEYS: five per limiter (see common.lua), limiter i's at 5i-4 .. 5i.
-- ARGV[i]: limiter i's argument, see decide.lua.
-- Reply: one element per limiter, in order: decide's reply (a list), or, when its decision raised an error,
--   that error as a string, as Redis would have replied it to acquire ("ERR user_script:<line>: ..." for the
--   script's own errors, the command's error for a refused write, e.g. "OOM ..."), followed by
--   " script: acquire-many, on @user_script.", so that one limiter's error fails that limiter's call only.
--   Partial writes of a failed decision stay, as they would after acquire failed.

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
  else
    -- a command's error (a refused write: "OOM ...") comes as its reply's text, or as a table on other Redis
    -- versions; error() and Lua's own errors as text after the script's position, which Redis sends as ERR
    local text
    if type(reply) == 'table' then
      text = reply.err or tostring(reply)
    elseif string.match(tostring(reply), '^%u+ ') then
      text = reply
    else
      text = 'ERR ' .. tostring(reply)
    end
    replies[i] = text .. ' script: acquire-many, on @user_script.'
  end
end
return replies
