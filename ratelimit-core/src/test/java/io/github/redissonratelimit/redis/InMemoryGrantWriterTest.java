package io.github.redissonratelimit.redis;

import static io.github.redissonratelimit.limiter.BackendCalls.acquire;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RedissonClient;

import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.local.GrantWriter.Grant;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.test.redis.FreshRedis;
import io.github.redissonratelimit.test.redis.RedisEndpoint;
import io.github.redissonratelimit.test.redis.RespClient;

/** {@code write-back.lua} through {@link InMemoryGrantWriter}: grants made in memory become grants of the window. */
class InMemoryGrantWriterTest {

    private static final LimitSpec FIVE_PER_MINUTE = new LimitSpec(5, Duration.ofMinutes(1), RateLimitMode.OVERALL);

    private final LimiterNaming naming = new LimiterNaming();
    @RegisterExtension
    final FreshRedis fresh = new FreshRedis();
    private final RedisEndpoint redis = fresh.endpoint();

    private static long write(InMemoryGrantWriter writer, String name, LimitSpec spec, Grant... grants)
            throws Exception {
        return writer.write(name, spec, List.of(grants)).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    private long redisMillis(RespClient cli) {
        List<Object> time = cli.list("TIME");
        return Long.parseLong(String.valueOf(time.get(0))) * 1000 + Long.parseLong(String.valueOf(time.get(1))) / 1000;
    }

    @Test
    void writtenGrantsCountInTheWindowOnceEvenWhenWrittenAgain() throws Exception {
        RedissonClient client = fresh.newClient();
        RedissonRateLimitBackend backend = new RedissonRateLimitBackend(client);
        InMemoryGrantWriter writer = new InMemoryGrantWriter(client, BackendOptions.DEFAULTS);
        String name = naming.limiterName("user:ann");
        assertThat(acquire(backend, name, FIVE_PER_MINUTE, 1).allowed()).isTrue();

        Grant first = new Grant("local-grant-0001", 1, 20_000);
        Grant second = new Grant("local-grant-0002", 2, 5_000);
        Grant gone = new Grant("local-grant-0003", 1, 61_000); // left the window already
        assertThat(write(writer, name, FIVE_PER_MINUTE, first, second, gone)).isEqualTo(3);
        assertThat(write(writer, name, FIVE_PER_MINUTE, first, second, gone)).as("written again").isZero();

        try (RespClient cli = redis.cli()) {
            assertThat(cli.string("GET", LimiterNaming.valueKey(name))).isEqualTo("1"); // 5 - 1 - 3
            assertThat(cli.number("ZCARD", LimiterNaming.permitsKey(name))).isEqualTo(3);
            // placed by Redis's clock at its age: the oldest grant is the one made 20 s ago
            List<Object> oldest = cli.list("ZRANGE", LimiterNaming.permitsKey(name), "0", "0", "WITHSCORES");
            long placed = Long.parseLong(String.valueOf(oldest.get(1)));
            assertThat(redisMillis(cli) - placed).isBetween(20_000L, 21_000L);
        }
        assertThat(acquire(backend, name, FIVE_PER_MINUTE, 1).allowed()).isTrue();
        assertThat(acquire(backend, name, FIVE_PER_MINUTE, 1).allowed()).as("the written grants hold their permits")
                .isFalse();
    }

    @Test
    void writtenGrantsBeyondTheFreePermitsLeaveADebtThatTheNextDecisionsPay() throws Exception {
        RedissonClient client = fresh.newClient();
        RedissonRateLimitBackend backend = new RedissonRateLimitBackend(client);
        String name = naming.limiterName("user:bob");
        for (int i = 0; i < 4; i++) {
            assertThat(acquire(backend, name, FIVE_PER_MINUTE, 1).allowed()).isTrue();
        }
        assertThat(write(new InMemoryGrantWriter(client, BackendOptions.DEFAULTS), name, FIVE_PER_MINUTE,
                new Grant("local-grant-0001", 3, 1_000))).isEqualTo(3);
        try (RespClient cli = redis.cli()) {
            assertThat(cli.string("GET", LimiterNaming.valueKey(name))).isEqualTo("-2");
        }
        assertThat(acquire(backend, name, FIVE_PER_MINUTE, 1).allowed()).isFalse();
    }

    @Test
    void aLimiterRedisDoesNotKnowYetIsCreatedWithTheWrittenGrantsByItsFirstDecision() throws Exception {
        RedissonClient client = fresh.newClient();
        String name = naming.limiterName("user:cid");
        assertThat(write(new InMemoryGrantWriter(client, BackendOptions.DEFAULTS), name, FIVE_PER_MINUTE,
                new Grant("local-grant-0001", 4, 1_000))).isEqualTo(4);
        try (RespClient cli = redis.cli()) {
            assertThat(cli.number("PTTL", LimiterNaming.permitsKey(name))).isPositive();
        }
        RedissonRateLimitBackend backend = new RedissonRateLimitBackend(client);
        assertThat(acquire(backend, name, FIVE_PER_MINUTE, 1).allowed()).isTrue();
        assertThat(acquire(backend, name, FIVE_PER_MINUTE, 1).allowed()).isFalse();
    }
}
