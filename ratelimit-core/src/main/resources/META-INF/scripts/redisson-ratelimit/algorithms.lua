-- algorithms: decide(keys, argument), the decision of acquire and acquire-many for a limiter of any algorithm
-- (prepended to them after decide.lua). The argument's first byte tells the algorithm: an algorithm kept in one key
-- whose mark it is (KINDS, see keyed.lua: 'g' token-bucket.lua, 'f' fixed-window.lua), else (a digit) the sliding
-- window (decide.lua). Each argument ends with the grant id, which the algorithms' own scripts (acquire-bucket.lua,
-- acquire-window.lua) leave unread, after 'L<lease ms>:<permits wanted> ' for a call that may take a lease (read
-- there, so that a plain call's pattern stops before the id): only those scripts lease (a plain grant here). The reply
-- as decide.lua's; when a config check found another config, a ninth element: the stored algorithm ('sliding',
-- 'token-bucket:<burst>', 'fixed-window'). A stored config of another algorithm is compared with the declared one as a
-- changed config is (see switch.lua).

local function decide(keys, argument)
  local kind = KIND_OF_MARK[string.byte(argument, 1)]
  if kind ~= nil then
    return kind.decide(keys, argument)
  end
  return decide_sliding(keys, argument)
end
