package io.github.redissonratelimit.limiter;

import java.util.ArrayList;
import java.util.List;

/**
 * A backend that adds behaviour around another ({@link LocalRejectionCache}, {@link WaitingRateLimitBackend},
 * {@link io.github.redissonratelimit.resilience.ResilientRateLimitBackend}). Implement it in a decorator of your own
 * so that what looks through the composed backend (resets that make this instance forget what it remembers, the
 * health indicator finding the circuit breaker, the warm-up) sees past it.
 */
public interface DelegatingRateLimitBackend extends RateLimitBackend {

    /** The backend this one adds behaviour around. */
    RateLimitBackend getDelegate();

    /** {@code backend}, then the backend it wraps, and so on, outermost first. */
    static List<RateLimitBackend> chain(RateLimitBackend backend) {
        List<RateLimitBackend> chain = new ArrayList<>(4);
        RateLimitBackend current = backend;
        while (current != null && chain.size() < 16) {
            chain.add(current);
            current = current instanceof DelegatingRateLimitBackend decorator ? decorator.getDelegate() : null;
        }
        return chain;
    }

    /** The outermost backend of the chain that is a {@code type}; null when there is none. */
    static <T extends RateLimitBackend> T find(RateLimitBackend backend, Class<T> type) {
        for (RateLimitBackend link : chain(backend)) {
            if (type.isInstance(link)) {
                return type.cast(link);
            }
        }
        return null;
    }
}
