package io.github.redissonratelimit.limiter;

import java.time.Duration;
import java.util.Objects;

/**
 * The answer to one request for permits. A rejection tells how long until the permits can be free
 * (never negative; zero when they were freed in the meantime).
 *
 * @param allowed whether the permits were taken
 * @param retryAfter for a rejection, the time until the permits can be free; zero when allowed
 * @param state what the limiter holds right after the decision (the permits left, and when the oldest
 * grant gives its permits back), when the backend tells it with the decision; null when unknown
 * @param local whether the decision was made in this JVM's memory by the local outage policy (Redis gave none, or
 * the limit was held to this instance's share after an outage) rather than by the shared limiter
 * @param receipt for a grant, what the backend that made it needs to give it back exactly
 * ({@link RateLimitBackend#release}), e.g. the window it was counted in; null when it needs nothing
 * @param leased for a grant asked with a {@link AcquireRequest.Lease}, the permits it took beyond the request's own,
 * for the caller to spend within the lease's period; 0 otherwise
 */
public record Decision(boolean allowed, Duration retryAfter, LimitState state, boolean local, String receipt,
        long leased) {

    private static final Decision ALLOWED = new Decision(true, Duration.ZERO, null);

    public Decision {
        Objects.requireNonNull(retryAfter, "retryAfter");
        if (retryAfter.isNegative()) {
            retryAfter = Duration.ZERO;
        }
    }

    public Decision(boolean allowed, Duration retryAfter, LimitState state, boolean local, String receipt) {
        this(allowed, retryAfter, state, local, receipt, 0);
    }

    /** A decision of the shared limiter. */
    public Decision(boolean allowed, Duration retryAfter, LimitState state) {
        this(allowed, retryAfter, state, false, null);
    }

    public Decision(boolean allowed, Duration retryAfter, LimitState state, boolean local) {
        this(allowed, retryAfter, state, local, null);
    }

    /** The same decision, marked as made in this JVM's memory by the local outage policy. */
    public Decision madeLocally() {
        return local ? this : new Decision(allowed, retryAfter, state, true, receipt, leased);
    }

    /** Allowed, with nothing known of what is left. */
    public static Decision allow() {
        return ALLOWED;
    }

    /** Allowed, leaving the limiter in {@code state}. */
    public static Decision allow(LimitState state) {
        return new Decision(true, Duration.ZERO, state);
    }

    /** Allowed, leaving the limiter in {@code state}, with what the backend needs to give the grant back. */
    public static Decision allow(LimitState state, String receipt) {
        return new Decision(true, Duration.ZERO, state, false, receipt);
    }

    public static Decision reject(Duration retryAfter) {
        return new Decision(false, retryAfter, null);
    }

    public static Decision reject(Duration retryAfter, LimitState state) {
        return new Decision(false, retryAfter, state);
    }
}
