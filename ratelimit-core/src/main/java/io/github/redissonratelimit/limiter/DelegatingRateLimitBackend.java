package io.github.redissonratelimit.limiter;

import java.util.concurrent.CompletionStage;

/**
 * A backend that adds behaviour around another ({@link LocalRejectionCache}, {@link WaitingRateLimitBackend},
 * {@link io.github.redissonratelimit.local.LocalOutagePolicy},
 * {@link io.github.redissonratelimit.resilience.ResilientRateLimitBackend}), and says which. By default it hands
 * {@link #release} and {@link #state} to that backend, so a decorator writes only what it adds. Nothing in the
 * library looks through a composed backend: what health, warm-up and resets need is registered where it is made (the
 * resilience decorator's circuits, {@link LimiterMemories}), so a decorator of your own need not implement this.
 */
public interface DelegatingRateLimitBackend extends RateLimitBackend {

    /** The backend this one adds behaviour around. */
    RateLimitBackend getDelegate();

    @Override
    default String limiterName(String logicalKey) {
        return getDelegate().limiterName(logicalKey);
    }

    @Override
    default CompletionStage<Void> release(AcquireRequest request, Decision granted) {
        return getDelegate().release(request, granted);
    }

    @Override
    default CompletionStage<LimitState> state(String limiterName, LimitSpec spec) {
        return getDelegate().state(limiterName, spec);
    }
}
