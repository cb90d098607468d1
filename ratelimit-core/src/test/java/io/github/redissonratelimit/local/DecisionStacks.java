package io.github.redissonratelimit.local;

import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.limiter.WaitingRateLimitBackend;

/**
 * The layers a call's requests go through above a backend, as the auto-configuration composes them (the wait, then
 * the local outage policy outermost), for tests that build an interceptor by hand: one instance counted.
 */
public final class DecisionStacks {

    private DecisionStacks() {
    }

    public static RateLimitBackend around(RateLimitBackend backend) {
        return new LocalOutagePolicy(new WaitingRateLimitBackend(backend),
                new LocalFallback(InstanceCount.fixed(1, 0), 10_000));
    }
}
