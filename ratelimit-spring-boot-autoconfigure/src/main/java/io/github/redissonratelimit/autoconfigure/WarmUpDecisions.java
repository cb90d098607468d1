package io.github.redissonratelimit.autoconfigure;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import org.redisson.api.RedissonClient;

import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.redis.RedissonRateLimitBackend;

/**
 * Real decisions on a throwaway limiter, run by {@link RateLimitScriptWarmUp} before the application takes traffic,
 * so that the first requests' decisions do not pay for what a fresh JVM does the first time: loading and
 * interpreting Redisson's batch and script classes, the pipeline, the codec, the reply decoding and the decorators
 * (measured on the sample app: about 860 classes load during its first requests, and its first decisions took 94
 * to 514 ms against a 100 ms {@code ratelimit.backend-timeout}; see {@code docs/operations.md#warm-start}).
 *
 * <p>First rounds of concurrent acquisitions (so that the pipeline batches several), a state read and a refund on
 * the Redisson backend itself, which has no deadline; then, only when those answered, a few acquisitions through
 * the composed backend (the decorators and the circuit breaker, whose deadline they now meet easily), fewer than
 * the circuit breaker's failure threshold. The limiter
 * is named {@code <prefix>{ratelimit warm-up <uuid>}}: an escaped logical key never holds a raw space, so no
 * declared limit can have that name, and each instance has its own. Its keys are deleted at the end (they would
 * expire with {@code ratelimit.key-ttl} otherwise), and the backend forgets it.
 */
final class WarmUpDecisions {

    static final int ROUNDS = 3;
    static final int CONCURRENT = 16;
    static final int THROUGH_DECORATORS = 2;

    private static final LimitSpec SPEC = new LimitSpec(1_000, Duration.ofSeconds(1), RateLimitMode.OVERALL);

    private final RedissonClient redisson;
    private final RedissonRateLimitBackend backend;
    private final RateLimitBackend composed;
    private final int throughDecorators;
    private final String limiterName;

    /**
     * @param composed the backend the interceptor uses, or null when it does not wrap {@code backend} (then only
     * {@code backend} is warmed up)
     * @param failureThreshold the circuit breaker's: fewer decisions than that go through the decorators, so that
     * even if every one of them missed the deadline, the warm-up alone could not open the circuit
     */
    WarmUpDecisions(RedissonClient redisson, RedissonRateLimitBackend backend, RateLimitBackend composed,
            int failureThreshold, LimiterNaming naming) {
        this.redisson = redisson;
        this.backend = backend;
        this.composed = composed;
        this.throughDecorators = composed == null ? 0 : Math.max(0, Math.min(THROUGH_DECORATORS, failureThreshold - 1));
        this.limiterName = naming.prefix() + "{ratelimit warm-up " + UUID.randomUUID() + "}";
    }

    String limiterName() {
        return limiterName;
    }

    /**
     * Runs the decisions, each awaited until {@code deadlineNanos} at the latest, then deletes the limiter's keys
     * (awaited at least one more second).
     *
     * @return the latency of the first decision, the first thing a cold JVM is slow at
     * @throws Exception the first failure or timeout; what ran until then stays warm
     */
    Duration run(long deadlineNanos) throws Exception {
        try {
            long start = System.nanoTime();
            await(backend.acquire(limiterName, SPEC, 1), deadlineNanos);
            Duration first = Duration.ofNanos(System.nanoTime() - start);
            for (int round = 0; round < ROUNDS; round++) {
                CompletableFuture<?>[] calls = new CompletableFuture<?>[CONCURRENT];
                for (int i = 0; i < CONCURRENT; i++) {
                    calls[i] = backend.acquire(limiterName, SPEC, 1);
                }
                await(CompletableFuture.allOf(calls), deadlineNanos);
            }
            await(backend.state(limiterName, SPEC), deadlineNanos);
            await(backend.release(AcquireRequest.of(limiterName, SPEC, 1), Decision.allow()), deadlineNanos);
            for (int i = 0; i < throughDecorators; i++) {
                await(composed.acquire(limiterName, SPEC, 1), deadlineNanos);
            }
            return first;
        }
        finally {
            backend.forget(limiterName::equals);
            deleteKeys(Math.max(deadlineNanos, System.nanoTime() + TimeUnit.SECONDS.toNanos(1)));
        }
    }

    /** Best effort: keys left behind expire with {@code ratelimit.key-ttl}. */
    private void deleteKeys(long deadlineNanos) {
        try {
            await(redisson.getKeys().deleteAsync(limiterName, LimiterNaming.valueKey(limiterName),
                    LimiterNaming.permitsKey(limiterName)), deadlineNanos);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        catch (Exception ex) {
            // expire on their own
        }
    }

    private static void await(CompletionStage<?> stage, long deadlineNanos) throws Exception {
        stage.toCompletableFuture().get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
    }
}
