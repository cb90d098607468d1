package io.github.redissonratelimit.redis;

import static io.github.redissonratelimit.limiter.BackendCalls.acquire;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RedissonClient;

import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.test.redis.FreshRedis;
import io.github.redissonratelimit.test.redis.RedisEndpoint;

/**
 * What one limiter costs in Redis memory, by {@code MEMORY USAGE <key> SAMPLES 0} (exact), with a full
 * window: {@code rate} grants of one permit each. The grants of one slice of the window share one member of the
 * {@code :permits} ZSET (see {@code common.lua}), so what a limiter holds does not grow with its rate. The figures
 * are printed for docs/performance.md.
 */
class MemoryUsageTest {

    @RegisterExtension
    final FreshRedis fresh = new FreshRedis();
    private final RedisEndpoint redis = fresh.endpoint();

    @AfterEach
    void flushAfterwards() {
        redis.flushAll();
    }

    @Test
    void aFullWindowCostsAtMost700BytesAtRate10And256KibAtAnyRate() {
        RedissonClient client = fresh.newClient();
        RateLimitBackend backend = new RedissonRateLimitBackend(client);
        LimiterNaming naming = new LimiterNaming();
        StringBuilder table = new StringBuilder();
        for (int rate : new int[] { 10, 1_000, 100_000 }) {
            LimitSpec spec = new LimitSpec(rate, Duration.ofHours(1), RateLimitMode.OVERALL);
            String name = naming.limiterName("memory:" + rate);
            fill(backend, name, spec);
            assertThat(acquire(backend, name, spec, 1).allowed()).isFalse();
            assertThat(redis.number("ZCARD", LimiterNaming.permitsKey(name))).as("members at rate %d", rate)
                    .isBetween(1L, Math.min(rate, SlicedGrantsTest.SLICES + 1));

            long config = memoryUsage(name);
            long value = memoryUsage(LimiterNaming.valueKey(name));
            long permits = memoryUsage(LimiterNaming.permitsKey(name));
            double perGrant = (double) permits / rate;
            table.append(String.format("| %,d | %,d | %,d | %,d | %,d | %.1f | %s |%n", rate, config, value, permits,
                    config + value + permits, perGrant,
                    redis.string("OBJECT", "ENCODING", LimiterNaming.permitsKey(name))));
            long total = config + value + permits;
            assertThat(total).as("bytes of the limiter at rate %d", rate).isLessThanOrEqualTo(rate == 10 ? 700 : 256 * 1024);
            assertThat(config).isLessThan(300);
            assertThat(value).isLessThan(100);
        }
        System.out.print("[memory] | rate | config hash | :value | :permits | total | bytes per grant | encoding |\n"
                + table);
    }

    /** Takes every permit, {@code rate} grants of one, a few thousand calls in flight at a time. */
    private static void fill(RateLimitBackend backend, String name, LimitSpec spec) {
        acquire(backend, name, spec, 1);
        long left = spec.rate() - 1;
        while (left > 0) {
            int batch = (int) Math.min(left, 2_000);
            List<CompletableFuture<Decision>> inFlight = new ArrayList<>(batch);
            for (int i = 0; i < batch; i++) {
                inFlight.add(backend.acquire(name, spec, 1).toCompletableFuture());
            }
            inFlight.forEach(decision -> assertThat(decision.join().allowed()).isTrue());
            left -= batch;
        }
    }

    private long memoryUsage(String key) {
        return redis.number("MEMORY", "USAGE", key, "SAMPLES", "0");
    }
}
