package io.github.redissonratelimit.limiter;

import java.time.Duration;
import java.util.Objects;

import io.github.redissonratelimit.annotation.BackendErrorPolicy;

/**
 * One limit of one call, as the backends of {@link RateLimitBackend#acquireAll} see it: the limiter, its spec and
 * the permits asked, and what the call makes of the answer (its outage policy, shadow mode, how long it may wait),
 * so that a backend deciding several together knows which answer ends the call.
 *
 * @param limiterName the limiter, created with {@code spec} when it does not exist yet
 * @param permits the permits asked (at least 1)
 * @param onBackendError what the call does when the limit gets no decision ({@code DEFAULT} resolved)
 * @param shadow whether the limit only records its decisions and never ends the call
 * @param waitTimeout how long the call may wait for the permits; zero rejects at once
 * @param waiter for an attempt of a call that waits in line for permits held until calls end (an in-flight limit's),
 *        its place in line; null otherwise
 * @param lease for a limit whose permits an instance may take in batches and spend in memory, the lease it may
 *        take; null otherwise
 */
public record AcquireRequest(String limiterName, LimitSpec spec, long permits, BackendErrorPolicy onBackendError,
        boolean shadow, Duration waitTimeout, Waiter waiter, Lease lease) {

    public AcquireRequest {
        Objects.requireNonNull(limiterName, "limiterName");
        Objects.requireNonNull(spec, "spec");
        Objects.requireNonNull(onBackendError, "onBackendError");
        Objects.requireNonNull(waitTimeout, "waitTimeout");
    }

    public AcquireRequest(String limiterName, LimitSpec spec, long permits, BackendErrorPolicy onBackendError,
            boolean shadow, Duration waitTimeout, Waiter waiter) {
        this(limiterName, spec, permits, onBackendError, shadow, waitTimeout, waiter, null);
    }

    public AcquireRequest(String limiterName, LimitSpec spec, long permits, BackendErrorPolicy onBackendError,
            boolean shadow, Duration waitTimeout) {
        this(limiterName, spec, permits, onBackendError, shadow, waitTimeout, null);
    }

    /** Whether the call may wait for the permits: a wait is set, and the limit is not in shadow mode. */
    public boolean waits() {
        return !shadow && !waitTimeout.isZero();
    }

    /** The same request, allowed to wait up to {@code waitTimeout} for its permits. */
    public AcquireRequest waitingUpTo(Duration waitTimeout) {
        return new AcquireRequest(limiterName, spec, permits, onBackendError, shadow, waitTimeout, waiter, lease);
    }

    /** The same request, as the attempt of {@code waiter}. */
    public AcquireRequest inLineAs(Waiter waiter) {
        return new AcquireRequest(limiterName, spec, permits, onBackendError, shadow, waitTimeout, waiter, lease);
    }

    /** The same request with {@code lease} (null: a plain decision). */
    public AcquireRequest withLease(Lease lease) {
        return new AcquireRequest(limiterName, spec, permits, onBackendError, shadow, waitTimeout, waiter, lease);
    }

    /** A request that ends the call on a rejection or on no decision, without waiting. */
    public static AcquireRequest of(String limiterName, LimitSpec spec, long permits) {
        return new AcquireRequest(limiterName, spec, permits, BackendErrorPolicy.DENY, false, Duration.ZERO);
    }

    /**
     * A lease of permits an instance takes from the limiter in one decision and spends in memory for at most
     * {@code period} (see {@code io.github.redissonratelimit.lease}).
     *
     * @param period how long the instance may spend the lease's permits, from before the decision was sent
     * @param permits the most permits the decision may take (the backend may grant fewer, no fewer than the request's
     *        own); at most the request's permits for a plain decision
     */
    public record Lease(Duration period, long permits) {

        public Lease {
            Objects.requireNonNull(period, "period");
            if (period.toMillis() <= 0 || permits < 0) {
                throw new IllegalArgumentException("A lease needs a period of at least 1ms and permits >= 0 but had "
                        + period + ", " + permits);
            }
        }
    }

    /**
     * A caller waiting in line for permits that come back when calls end: the backend keeps its place, in the order
     * of its first refusal among the waiters of every instance, until {@code left} after this attempt.
     *
     * @param id the waiter, unique among the waiters of its backend
     * @param left how long the backend keeps its place if this attempt is refused: the rest of its wait, at most
     *        a few times the longest pause between its attempts
     */
    public record Waiter(long id, Duration left) {

        public Waiter {
            Objects.requireNonNull(left, "left");
            if (id < 0 || left.isNegative()) {
                throw new IllegalArgumentException("id and left must not be negative but were " + id + ", " + left);
            }
        }
    }
}
