package io.github.redissonratelimit.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.naming.LimiterNaming;

/**
 * What one limiter costs in Redis memory with a full window (rate grants of one permit), by
 * {@code MEMORY USAGE <key> SAMPLES 0}, for three rates: the grants of one slice of the window share one member of
 * the grants ZSET, so the cost does not grow with the rate (goal 3 of the Redis cost issue).
 */
final class MemoryScenario {

    static final long[] RATES = { 10, 1_000, 100_000 };

    /** Quick mode (the build's smoke test) leaves out the 100,000 grants of the largest. */
    static final long[] QUICK_RATES = { 10, 1_000 };

    private MemoryScenario() {
    }

    record Result(long rate, long config, long value, long permits, long members, String encoding) {

        long total() {
            return config + value + permits;
        }
    }

    static List<Result> run(RateLimitBackend redisBackend, RedisProbe redis, boolean quick) {
        LimiterNaming naming = new LimiterNaming();
        List<Result> results = new ArrayList<>();
        for (long rate : quick ? QUICK_RATES : RATES) {
            BenchmarkMain.log("memory, rate " + rate);
            LimitSpec spec = new LimitSpec(rate, Duration.ofHours(1), RateLimitMode.OVERALL);
            String name = naming.limiterName("memory:" + rate + ":" + System.nanoTime());
            fill(redisBackend, name, spec);
            if (redisBackend.acquire(name, spec, 1).toCompletableFuture().join().allowed()) {
                throw new IllegalStateException("The limiter of rate " + rate + " is not full after " + rate + " grants");
            }
            String permitsKey = LimiterNaming.permitsKey(name);
            results.add(new Result(rate, redis.memoryUsage(name), redis.memoryUsage(LimiterNaming.valueKey(name)),
                    redis.memoryUsage(permitsKey), redis.members(permitsKey), redis.encoding(permitsKey)));
        }
        return results;
    }

    /** Takes every permit, rate grants of one, a few thousand in flight at a time (they share pipelines). */
    private static void fill(RateLimitBackend backend, String name, LimitSpec spec) {
        long left = spec.rate();
        while (left > 0) {
            int batch = (int) Math.min(left, 2_000);
            List<CompletableFuture<Decision>> inFlight = new ArrayList<>(batch);
            for (int i = 0; i < batch; i++) {
                inFlight.add(backend.acquire(name, spec, 1).toCompletableFuture());
            }
            for (CompletableFuture<Decision> decision : inFlight) {
                if (!decision.join().allowed()) {
                    throw new IllegalStateException("A grant of the fill was rejected");
                }
            }
            left -= batch;
        }
    }
}
