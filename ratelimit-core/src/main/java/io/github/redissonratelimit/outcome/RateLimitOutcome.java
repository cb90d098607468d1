package io.github.redissonratelimit.outcome;

import java.time.Duration;
import java.util.Objects;

import io.github.redissonratelimit.RateLimitExceededException;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.LimitState;

/**
 * What one limit decided for one call.
 *
 * @param limitName the limit's name ({@code RateLimitOperation.name()}), e.g. for metric tags
 * @param displayName the name clients see (HTTP headers)
 * @param key the logical key of the call
 * @param limiterName the limiter's name in Redis
 * @param limit rate, interval and mode
 * @param permits permits the call asked for (its fixed permits, or what its cost expression gave)
 * @param result allowed, rejected, rejected in shadow mode, error, or allowed or rejected in memory while Redis
 * gave no decision
 * @param retryAfter for a rejection, the time until the permits can be free; otherwise zero
 * @param latency time spent asking the backend, waiting included
 * @param error for {@link Result#ERROR}, what the backend threw; otherwise null
 * @param state what the limiter held right after the decision (permits left, time until the oldest grant
 * gives its permits back) when the backend told it with the decision; otherwise null
 * @param shadow whether the limit is in shadow mode: its decisions are recorded but never reject the call, and
 * HTTP rate limit headers leave it out
 */
public record RateLimitOutcome(String limitName, String displayName, String key, String limiterName, LimitSpec limit,
        long permits, Result result, Duration retryAfter, Duration latency, Throwable error, LimitState state,
        boolean shadow) {

    public RateLimitOutcome {
        Objects.requireNonNull(limitName, "limitName");
        Objects.requireNonNull(displayName, "displayName");
        Objects.requireNonNull(limit, "limit");
        Objects.requireNonNull(result, "result");
        Objects.requireNonNull(retryAfter, "retryAfter");
        Objects.requireNonNull(latency, "latency");
    }

    /** An outcome of a limit that is not in shadow mode. */
    public RateLimitOutcome(String limitName, String displayName, String key, String limiterName, LimitSpec limit,
            long permits, Result result, Duration retryAfter, Duration latency, Throwable error, LimitState state) {
        this(limitName, displayName, key, limiterName, limit, permits, result, retryAfter, latency, error, state, false);
    }

    /** The outcome a rejection describes, e.g. for a web layer that sees only the exception. */
    public static RateLimitOutcome of(RateLimitExceededException rejection) {
        return new RateLimitOutcome(rejection.getLimitName(), rejection.getDisplayName(), rejection.getKey(),
                rejection.getLimiterName(), rejection.getLimit(), rejection.getPermits(), Result.REJECTED,
                rejection.getRetryAfter(), Duration.ZERO, null, null);
    }

    /** This outcome with what the limiter holds now, e.g. after its grant was given back. */
    public RateLimitOutcome withState(LimitState newState) {
        return new RateLimitOutcome(limitName, displayName, key, limiterName, limit, permits, result, retryAfter, latency,
                error, newState, shadow);
    }

    /** Whether the permits were taken, by Redis or, while Redis gave no decision, in memory. */
    public boolean allowed() {
        return result == Result.ALLOWED || result == Result.LOCAL_ALLOWED;
    }

    /** Whether the call was rejected, by Redis or, while Redis gave no decision, in memory. */
    public boolean rejected() {
        return result == Result.REJECTED || result == Result.LOCAL_REJECTED;
    }

    /** How a limit decided a call. */
    public enum Result {

        /** The permits were taken (and given back if a later limit rejected the call). */
        ALLOWED,

        /** No permits were free (within the wait timeout, if any). */
        REJECTED,

        /** The backend failed, e.g. Redis could not be reached. */
        ERROR,

        /**
         * A limit in shadow mode found no permits free: nothing was taken and the call ran anyway. Shadow limits
         * that find their permits are {@link #ALLOWED}.
         */
        SHADOW_REJECTED,

        /**
         * Redis gave no decision and the limit's {@code LOCAL} outage policy granted the permits from this instance's
         * share of the rate, in memory.
         */
        LOCAL_ALLOWED,

        /** Redis gave no decision and this instance's share of the rate, in memory, had no permits free. */
        LOCAL_REJECTED;

        /** The lower-case name used in metric tags. */
        public String tag() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }
}
