package io.github.redissonratelimit.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.function.Supplier;

import io.github.redissonratelimit.limiter.LocalRejectionCache;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.limiter.WaitingRateLimitBackend;
import io.github.redissonratelimit.resilience.ResilientRateLimitBackend;

/**
 * What this instance remembers of limiters, found by walking its backend: {@link LocalRejectionCache},
 * {@link ResilientRateLimitBackend} and {@link WaitingRateLimitBackend} are looked through to a
 * {@link RedissonRateLimitBackend}; a decorator of another type ends the walk.
 */
final class LocalLimiterMemory {

    private final Supplier<? extends RateLimitBackend> backend;

    LocalLimiterMemory(Supplier<? extends RateLimitBackend> backend) {
        this.backend = backend;
    }

    /** Makes this instance's backend forget the limiters {@code which} accepts. */
    void forget(Predicate<String> which) {
        for (RateLimitBackend link : chain(backend.get())) {
            if (link instanceof LocalRejectionCache cache) {
                cache.forget(which);
            }
            else if (link instanceof RedissonRateLimitBackend redis) {
                redis.forget(which);
            }
        }
    }

    /** Whether limiters that exist keep their stored config when the limit changes ({@code on-config-change=keep}). */
    boolean keepsStoredConfig() {
        RedissonRateLimitBackend redis = chain(backend.get()).stream().filter(RedissonRateLimitBackend.class::isInstance)
                .map(RedissonRateLimitBackend.class::cast).findFirst().orElse(null);
        return redis != null && redis.getOptions().onConfigChange() == ConfigChangePolicy.KEEP;
    }

    /** {@code backend} and the backends it wraps, as far as the project's decorators tell. */
    private static List<RateLimitBackend> chain(RateLimitBackend backend) {
        List<RateLimitBackend> chain = new ArrayList<>(4);
        RateLimitBackend current = backend;
        while (current != null && chain.size() < 16) {
            chain.add(current);
            current = current instanceof LocalRejectionCache cache ? cache.getDelegate()
                    : current instanceof ResilientRateLimitBackend resilient ? resilient.getDelegate()
                    : current instanceof WaitingRateLimitBackend waiting ? waiting.getDelegate() : null;
        }
        return chain;
    }
}
