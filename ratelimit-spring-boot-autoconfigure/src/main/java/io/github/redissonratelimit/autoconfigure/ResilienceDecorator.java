package io.github.redissonratelimit.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.outcome.RateLimitListener;
import io.github.redissonratelimit.resilience.CircuitStates;
import io.github.redissonratelimit.limiter.MasterLocator;
import io.github.redissonratelimit.resilience.ResilientRateLimitBackend;

/**
 * The {@value RateLimitAutoConfiguration#RESILIENCE_DECORATOR} decorator: the deadline and circuit breaker
 * ({@link ResilientRateLimitBackend}) around the backend it is given, one circuit per master of the Redisson backend.
 * The health indicator reads the circuits it made from here ({@link #circuits()}).
 */
public final class ResilienceDecorator implements RateLimitBackendDecorator {

    private final Duration timeout;
    private final Duration liveness;
    private final int failureThreshold;
    private final Duration openDuration;
    private final Supplier<? extends List<? extends RateLimitListener>> listeners;
    private final Supplier<? extends RateLimitBackend> redisson;
    private volatile ResilientRateLimitBackend decorated;

    /** @param redisson the Redisson backend, which tells the master of each limiter (may supply null) */
    ResilienceDecorator(Duration timeout, Duration liveness, int failureThreshold, Duration openDuration,
            Supplier<? extends List<? extends RateLimitListener>> listeners,
            Supplier<? extends RateLimitBackend> redisson) {
        this.timeout = timeout;
        this.liveness = liveness;
        this.failureThreshold = failureThreshold;
        this.openDuration = openDuration;
        this.listeners = listeners;
        this.redisson = redisson;
    }

    @Override
    public RateLimitBackend decorate(RateLimitBackend backend) {
        // one circuit per master of the Redisson backend, also with decorators between it and this one
        RateLimitBackend store = redisson.get();
        MasterLocator masters = store instanceof MasterLocator locator ? locator
                : backend instanceof MasterLocator locator ? locator : null;
        ResilientRateLimitBackend resilient = new ResilientRateLimitBackend(backend,
                masters != null ? masters : ResilientRateLimitBackend.ONE_MASTER, timeout, liveness,
                failureThreshold, openDuration, listeners);
        this.decorated = resilient;
        return resilient;
    }

    /** The circuits of the backend this decorated; null before it decorated one (e.g. under a backend of the application's own). */
    public CircuitStates circuits() {
        return decorated;
    }
}
