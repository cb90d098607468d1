-- acquire-window: acquire for a limiter declared as a fixed window (see acquire.lua, fixed-window.lua), without the
-- other algorithms: {-4} when the limiter holds another algorithm's state, and the caller sends the call again as
-- acquire, which knows them all.

return window_own(KEYS, ARGV[1]) or {-4}
