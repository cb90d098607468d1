package io.github.redissonratelimit.lease;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.RateLimitBackend;

/**
 * A real backend whose give-backs reach it late, as one sent on another connection (or by a slower path) may reach
 * Redis after a call sent later; its decisions are sent at once.
 */
final class LateGiveBacks implements RateLimitBackend {

    private final RateLimitBackend redis;
    private final LongSupplier delayMicros;

    LateGiveBacks(RateLimitBackend redis, LongSupplier delayMicros) {
        this.redis = redis;
        this.delayMicros = delayMicros;
    }

    @Override
    public CompletionStage<Decision> acquire(AcquireRequest request) {
        return redis.acquire(request);
    }

    @Override
    public CompletionStage<Void> release(AcquireRequest request, Decision granted) {
        long delay = delayMicros.getAsLong();
        if (delay <= 0) {
            return redis.release(request, granted);
        }
        return CompletableFuture.runAsync(() -> { }, CompletableFuture.delayedExecutor(delay, TimeUnit.MICROSECONDS))
                .thenCompose(late -> redis.release(request, granted));
    }
}
