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
 * window: {@code rate} grants of one permit each, the most its {@code :permits} ZSET holds. The figures
 * are printed for docs/operations.md.
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
    void aFullWindowCostsAbout120BytesPerGrantBeyond128Grants() {
        RedissonClient client = fresh.newClient();
        RateLimitBackend backend = new RedissonRateLimitBackend(client);
        LimiterNaming naming = new LimiterNaming();
        StringBuilder table = new StringBuilder();
        for (int rate : new int[] { 10, 1_000, 100_000 }) {
            LimitSpec spec = new LimitSpec(rate, Duration.ofHours(1), RateLimitMode.OVERALL);
            String name = naming.limiterName("memory:" + rate);
            fill(backend, name, spec);
            assertThat(acquire(backend, name, spec, 1).allowed()).isFalse();
            assertThat(redis.number("ZCARD", LimiterNaming.permitsKey(name))).isEqualTo(rate);

            long config = memoryUsage(name);
            long value = memoryUsage(LimiterNaming.valueKey(name));
            long permits = memoryUsage(LimiterNaming.permitsKey(name));
            double perGrant = (double) permits / rate;
            table.append(String.format("| %,d | %,d | %,d | %,d | %,d | %.1f | %s |%n", rate, config, value, permits,
                    config + value + permits, perGrant,
                    redis.string("OBJECT", "ENCODING", LimiterNaming.permitsKey(name))));
            if (rate >= 1_000) {
                assertThat(perGrant).as("bytes per grant at rate %d", rate).isBetween(30.0, 150.0);
            }
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
