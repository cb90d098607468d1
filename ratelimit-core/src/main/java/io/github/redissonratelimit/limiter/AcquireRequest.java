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
 */
public record AcquireRequest(String limiterName, LimitSpec spec, long permits, BackendErrorPolicy onBackendError,
        boolean shadow, Duration waitTimeout) {

    public AcquireRequest {
        Objects.requireNonNull(limiterName, "limiterName");
        Objects.requireNonNull(spec, "spec");
        Objects.requireNonNull(onBackendError, "onBackendError");
        Objects.requireNonNull(waitTimeout, "waitTimeout");
    }

    /** Whether the call may wait for the permits: a wait is set, and the limit is not in shadow mode. */
    public boolean waits() {
        return !shadow && !waitTimeout.isZero();
    }

    /** The same request, allowed to wait up to {@code waitTimeout} for its permits. */
    public AcquireRequest waitingUpTo(Duration waitTimeout) {
        return new AcquireRequest(limiterName, spec, permits, onBackendError, shadow, waitTimeout);
    }

    /** A request that ends the call on a rejection or on no decision, without waiting. */
    public static AcquireRequest of(String limiterName, LimitSpec spec, long permits) {
        return new AcquireRequest(limiterName, spec, permits, BackendErrorPolicy.DENY, false, Duration.ZERO);
    }
}
