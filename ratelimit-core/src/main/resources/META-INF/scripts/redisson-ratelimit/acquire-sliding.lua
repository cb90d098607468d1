-- acquire-sliding: acquire for a limiter declared as a sliding window (see acquire.lua), without the other algorithms:
-- {-4} when the limiter holds another algorithm's state, and the caller sends the call again as acquire.

return decide_sliding(KEYS, ARGV[1])
