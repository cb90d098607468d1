package io.github.redissonratelimit.redis;

import static io.github.redissonratelimit.limiter.BackendCalls.acquire;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RedissonClient;

import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.test.redis.RealRedisExtension;
import io.github.redissonratelimit.test.redis.RedisEndpoint;
import io.github.redissonratelimit.test.redis.RespClient;

@ExtendWith(RealRedisExtension.class)
class KeyExpiryTest {

    @Test
    void keysOfCallersWhoStopCallingDisappearAfterTheKeyTtl(RedisEndpoint redis) throws Exception {
        redis.flushAll();
        long before;
        try (RespClient cli = redis.cli()) {
            cli.command("SET", "unrelated", "stays");
            before = cli.number("DBSIZE");
        }
        LimiterNaming naming = new LimiterNaming();
        LimitSpec spec = new LimitSpec(3, Duration.ofMillis(500), RateLimitMode.OVERALL);
        RedissonClient client = redis.newRedissonClient();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            RedissonRateLimitBackend backend = new RedissonRateLimitBackend(client,
                    new BackendOptions(100_000, Duration.ofSeconds(2), ConfigChangePolicy.UPDATE));
            var calls = IntStream.range(0, 8).mapToObj(thread -> pool.submit(() -> {
                for (int user = thread; user < 10_000; user += 8) {
                    assertThat(acquire(backend, naming.limiterName("user:" + user), spec, 1).allowed()).isTrue();
                }
            })).toList();
            for (Future<?> call : calls) {
                call.get();
            }
            try (RespClient cli = redis.cli()) {
                // writing takes seconds on a busy machine: the first keys may already be gone
                assertThat(cli.number("DBSIZE")).isGreaterThan(before).isLessThanOrEqualTo(before + 30_000);
                String last = naming.limiterName("user:9999");
                for (String key : new String[] { last, last + ":value", last + ":permits" }) {
                    assertThat(cli.number("PTTL", key)).as("TTL of %s", key).isBetween(1L, 2_000L);
                }

                long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
                while (cli.number("DBSIZE") > before && System.nanoTime() < deadline) {
                    Thread.sleep(200);
                }
                assertThat(cli.number("DBSIZE")).isEqualTo(before);
                assertThat(cli.string("GET", "unrelated")).isEqualTo("stays");
            }
            // a caller who comes back gets a fresh limiter
            assertThat(acquire(backend, naming.limiterName("user:1"), spec, 1).allowed()).isTrue();
        }
        finally {
            pool.shutdownNow();
            client.shutdown();
        }
    }
}
