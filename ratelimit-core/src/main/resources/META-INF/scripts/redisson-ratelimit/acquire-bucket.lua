-- acquire-bucket: acquire for a limiter declared as a token bucket (see acquire.lua, token-bucket.lua), without the
-- other algorithms: {-4} when the limiter holds another algorithm's state, and the caller sends the call again as
-- acquire, which knows them all.

return bucket_own(KEYS, ARGV[1]) or {-4}
