package io.github.redissonratelimit;

import java.time.Duration;

import io.github.redissonratelimit.limiter.NoDecision;

/**
 * No rate limit decision could be made because Redis did not answer in time, failed, or is being
 * skipped after repeated failures; thrown for limits whose policy is
 * {@link io.github.redissonratelimit.annotation.BackendErrorPolicy#DENY DENY}. In Spring MVC it
 * becomes HTTP 503 (or the status set in {@code ratelimit.deny-status}) with {@code Retry-After}.
 */
public class RateLimitBackendUnavailableException extends RateLimitException implements NoDecision {

    /** Why there is no decision. */
    public enum Reason {

        /** Redis did not answer within {@code ratelimit.backend-timeout}. */
        TIMEOUT,

        /** Redis or the connection to it failed. */
        ERROR,

        /** Redis is skipped for a short while after repeated failures (the circuit is open). */
        CIRCUIT_OPEN,

        /** The waiting thread was interrupted. */
        INTERRUPTED
    }

    private final String limiterName;
    private final Reason reason;
    private final Duration retryAfter;
    private final Duration waited;

    public RateLimitBackendUnavailableException(String limiterName, Reason reason, Duration retryAfter,
            String detail, Throwable cause) {
        this(limiterName, reason, retryAfter, Duration.ZERO, detail, cause);
    }

    /**
     * @param waited how long the call to Redis had been under way when this decision was given up (zero when nothing
     * was sent)
     */
    public RateLimitBackendUnavailableException(String limiterName, Reason reason, Duration retryAfter,
            Duration waited, String detail, Throwable cause) {
        super("No rate limit decision for " + limiterName + ": " + detail, cause);
        this.limiterName = limiterName;
        this.reason = reason;
        this.retryAfter = retryAfter;
        this.waited = waited;
    }

    /** The RRateLimiter name in Redis, e.g. {@code rate_limit:{order:submit:42}}. */
    public String getLimiterName() {
        return limiterName;
    }

    public Reason getReason() {
        return reason;
    }

    /** How long the call to Redis had been under way when it was given up; zero when nothing was sent. */
    @Override
    public Duration getWaited() {
        return waited;
    }

    /** When Redis will be tried again (the rest of the back-off), at least one second. */
    public Duration getRetryAfter() {
        return retryAfter;
    }

    /** {@link #getRetryAfter()} rounded up to whole seconds, at least 1: the HTTP {@code Retry-After} value. */
    public long getRetryAfterSeconds() {
        return RateLimitExceededException.retryAfterSeconds(retryAfter);
    }
}
