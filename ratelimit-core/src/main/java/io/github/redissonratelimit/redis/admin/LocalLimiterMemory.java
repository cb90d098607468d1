package io.github.redissonratelimit.redis.admin;

import java.util.List;
import java.util.function.Predicate;
import java.util.function.Supplier;

import io.github.redissonratelimit.limiter.DelegatingRateLimitBackend;
import io.github.redissonratelimit.limiter.LocalRejectionCache;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.local.LocalFallback;
import io.github.redissonratelimit.redis.ConfigChangePolicy;
import io.github.redissonratelimit.redis.RedissonRateLimitBackend;

/**
 * What this instance remembers of limiters: found by walking its backend through every
 * {@link DelegatingRateLimitBackend} to a {@link RedissonRateLimitBackend}, and the grants the local outage policy
 * counts ({@link LocalFallback}).
 */
final class LocalLimiterMemory {

    private final Supplier<? extends RateLimitBackend> backend;
    private volatile LocalFallback localFallback;

    LocalLimiterMemory(Supplier<? extends RateLimitBackend> backend) {
        this.backend = backend;
    }

    void setLocalFallback(LocalFallback localFallback) {
        this.localFallback = localFallback;
    }

    /** Makes this instance's backend forget the limiters {@code which} accepts. */
    void forget(Predicate<String> which) {
        LocalFallback fallback = localFallback;
        if (fallback != null) {
            fallback.forget(which);
        }
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

    private static List<RateLimitBackend> chain(RateLimitBackend backend) {
        return DelegatingRateLimitBackend.chain(backend);
    }
}
