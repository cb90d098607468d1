package io.github.redissonratelimit.annotation;

/**
 * What a rate limited call does when Redis gives no decision in time (it is down, slow, or skipped
 * for a while after repeated failures).
 */
public enum BackendErrorPolicy {

    /** The application's default ({@code ratelimit.on-backend-error}, {@link #ALLOW} unless set). */
    DEFAULT,

    /** Fail open: the call runs as if it had been granted; suits reads and cheap operations. */
    ALLOW,

    /**
     * Fail closed: the call does not run and
     * {@link io.github.redissonratelimit.RateLimitBackendUnavailableException} is thrown (HTTP 503
     * by default); suits expensive or abuse-prone operations.
     */
    DENY
}
