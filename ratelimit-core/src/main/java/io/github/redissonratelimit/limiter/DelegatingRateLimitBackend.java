package io.github.redissonratelimit.limiter;

/**
 * A backend that adds behaviour around another ({@link LocalRejectionCache}, {@link WaitingRateLimitBackend},
 * {@link io.github.redissonratelimit.resilience.ResilientRateLimitBackend}), and says which. Nothing looks through
 * a composed backend: what health, warm-up and resets need is registered where it is made (the resilience
 * decorator's circuits, {@link LimiterMemories}), so a decorator of your own need not implement this.
 */
public interface DelegatingRateLimitBackend extends RateLimitBackend {

    /** The backend this one adds behaviour around. */
    RateLimitBackend getDelegate();
}
