package io.github.redissonratelimit.redis;

/** Whose clock stamps the grants of a limiter and decides when they leave its window. */
public enum LimiterClock {

    /**
     * Redis's own clock ({@code TIME}, read inside each script): every instance and every call in flight
     * is judged by one clock, so no window ever holds more than the rate, whatever the instances' clocks
     * say. The default.
     */
    REDIS,

    /**
     * The calling instance's clock, sent with each call, as RRateLimiter's own {@code tryAcquire} stamps its
     * grants. Only for applications that also call RRateLimiter's acquire on the same limiters: then both
     * stamp alike. Clocks that differ between instances, and calls in flight, let a window hold more than
     * the rate and can starve the instance whose clock runs behind (see {@code docs/operations.md}).
     */
    CLIENT
}
