package io.github.redissonratelimit.annotation;

/**
 * How a limiter counts its permits. Each is decided in one Redis script call, stamped with Redis's clock; see
 * {@code docs/algorithms.md} for which to choose.
 */
public enum RateLimitAlgorithm {

    /** Not set: the limit's policy, else {@code ratelimit.defaults.algorithm}, else {@link #SLIDING_WINDOW}. */
    DEFAULT,

    /**
     * At most {@code rate} permits in any window of {@code interval}: each grant gives its permits back one interval
     * after it was made. Redisson {@code RRateLimiter}'s data model (a config hash, a counter and a ZSET of grants),
     * so both can work on one limiter. Memory is bounded by the window's slices (about 1,000 members at most).
     */
    SLIDING_WINDOW,

    /**
     * A token bucket of {@code burst} permits (the rate, unless set) refilled smoothly at {@code rate} per
     * {@code interval}: over any span T at most {@code burst + rate * T / interval} permits. GCRA on one key
     * holding one timestamp, whatever the rate.
     */
    TOKEN_BUCKET,

    /**
     * At most {@code rate} permits per window, the windows following each other back to back: aligned to the epoch
     * for an {@code interval}, or to the calendar (the hour, day, ISO week, month or year in a zone) for a
     * {@link RateLimit#calendar() calendar} quota. One counter key per window, expiring when the window ends.
     */
    FIXED_WINDOW,

    /**
     * At most {@code rate} permits held at once by calls in flight: a call holds its permits from its start to its
     * end, on every exit path, each as a lease in Redis that its instance renews while the call runs and that ends
     * one {@code interval} (the lease period, 30 seconds unless set) after an instance that stopped renewing it
     * (killed, cut off) last did. A refused call learns no retry time: permits come back when calls end.
     */
    IN_FLIGHT
}
