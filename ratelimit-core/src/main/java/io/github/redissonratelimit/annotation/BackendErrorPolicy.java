package io.github.redissonratelimit.annotation;

/**
 * What a rate limited call does when Redis gives no decision in time (it is down, slow, or skipped
 * for a while after repeated failures).
 */
public enum BackendErrorPolicy {

    /** The application's default ({@code ratelimit.on-backend-error}, {@link #LOCAL} unless set). */
    DEFAULT,

    /** Fail open: the call runs as if it had been granted; suits reads and cheap operations. */
    ALLOW,

    /**
     * Fail closed: the call does not run and
     * {@link io.github.redissonratelimit.RateLimitBackendUnavailableException} is thrown (HTTP 503
     * by default); suits expensive or abuse-prone operations.
     */
    DENY,

    /**
     * Limit in memory: each instance grants its share of the rate ({@code rate / N} per interval, N the instances
     * sharing the limits, from a heartbeat each keeps in Redis or {@code ratelimit.local-fallback.instances}),
     * continuing the window from the grants Redis made it, so that together they stay at the rate while Redis is
     * away. A call the share cannot take is rejected as by Redis (HTTP 429). See
     * {@link io.github.redissonratelimit.local.LocalFallback}.
     */
    LOCAL
}
