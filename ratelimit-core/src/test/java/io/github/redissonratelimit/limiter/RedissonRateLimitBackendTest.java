package io.github.redissonratelimit.limiter;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RedissonClient;

import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.key.LimiterNaming;
import io.github.redissonratelimit.test.redis.CommandStats;
import io.github.redissonratelimit.test.redis.RealRedisExtension;
import io.github.redissonratelimit.test.redis.RedisEndpoint;
import io.github.redissonratelimit.test.redis.RespClient;

@ExtendWith(RealRedisExtension.class)
class RedissonRateLimitBackendTest {

    private static final LimitSpec FIVE_PER_MINUTE = new LimitSpec(5, Duration.ofMinutes(1), RateLimitMode.OVERALL);

    private final LimiterNaming naming = new LimiterNaming();
    private final List<RedissonClient> clients = new ArrayList<>();
    private RedisEndpoint redis;

    @BeforeEach
    void setUp(RedisEndpoint redis) {
        this.redis = redis;
        redis.flushAll();
    }

    @AfterEach
    void shutdown() {
        clients.forEach(RedissonClient::shutdown);
    }

    private RedissonClient client() {
        RedissonClient client = redis.newRedissonClient();
        clients.add(client);
        return client;
    }

    private static long allowed(RateLimitBackend backend, String name, LimitSpec spec, long permits, int calls) {
        return IntStream.range(0, calls).filter(i -> backend.tryAcquire(name, spec, permits).allowed()).count();
    }

    @Test
    void allowsRateThenRejects() {
        RateLimitBackend backend = new RedissonRateLimitBackend(client());
        String name = naming.limiterName("order:submit:42");

        assertThat(allowed(backend, name, FIVE_PER_MINUTE, 1, 8)).isEqualTo(5);
    }

    @Test
    void keysAreIndependent() {
        RateLimitBackend backend = new RedissonRateLimitBackend(client());

        assertThat(allowed(backend, naming.limiterName("user:a"), FIVE_PER_MINUTE, 1, 7)).isEqualTo(5);
        assertThat(allowed(backend, naming.limiterName("user:b"), FIVE_PER_MINUTE, 1, 7)).isEqualTo(5);
    }

    @Test
    void overallIsSharedBetweenRedissonClients() {
        RateLimitBackend first = new RedissonRateLimitBackend(client());
        RateLimitBackend second = new RedissonRateLimitBackend(client());
        String name = naming.limiterName("shared");

        long fromFirst = allowed(first, name, FIVE_PER_MINUTE, 1, 3);
        long fromSecond = allowed(second, name, FIVE_PER_MINUTE, 1, 5);

        assertThat(fromFirst).isEqualTo(3);
        assertThat(fromSecond).isEqualTo(2);
    }

    @Test
    void perClientGivesEachRedissonClientItsOwnBucket() {
        LimitSpec perClient = new LimitSpec(3, Duration.ofMinutes(1), RateLimitMode.PER_CLIENT);
        RateLimitBackend first = new RedissonRateLimitBackend(client());
        RateLimitBackend second = new RedissonRateLimitBackend(client());
        String name = naming.limiterName("per-client");

        assertThat(allowed(first, name, perClient, 1, 5)).isEqualTo(3);
        assertThat(allowed(second, name, perClient, 1, 5)).isEqualTo(3);
        // and the rejection of a PER_CLIENT limiter reads the client's own grants
        Decision rejected = first.tryAcquire(name, perClient, 1);
        assertThat(rejected.allowed()).isFalse();
        assertThat(rejected.retryAfter()).isBetween(Duration.ofSeconds(50), Duration.ofSeconds(60));
    }

    @Test
    void permitsPerCallAreCounted() {
        RateLimitBackend backend = new RedissonRateLimitBackend(client());
        String name = naming.limiterName("bulk");
        LimitSpec tenPerMinute = new LimitSpec(10, Duration.ofMinutes(1), RateLimitMode.OVERALL);

        assertThat(allowed(backend, name, tenPerMinute, 4, 5)).isEqualTo(2);
        // 2 permits are left: a call for 2 still fits, one more does not
        assertThat(backend.tryAcquire(name, tenPerMinute, 2).allowed()).isTrue();
        assertThat(backend.tryAcquire(name, tenPerMinute, 1).allowed()).isFalse();
    }

    @Test
    void retryAfterIsTheTimeUntilTheOldestGrantLeavesTheWindow() throws InterruptedException {
        RateLimitBackend backend = new RedissonRateLimitBackend(client());
        String name = naming.limiterName("retry");
        LimitSpec twoPerThreeSeconds = new LimitSpec(2, Duration.ofSeconds(3), RateLimitMode.OVERALL);

        assertThat(backend.tryAcquire(name, twoPerThreeSeconds, 1).allowed()).isTrue();
        Thread.sleep(1_000);
        assertThat(backend.tryAcquire(name, twoPerThreeSeconds, 1).allowed()).isTrue();
        Decision rejected = backend.tryAcquire(name, twoPerThreeSeconds, 1);

        assertThat(rejected.allowed()).isFalse();
        // the first grant is ~1s old: it returns in ~2s, not in the full 3s window
        assertThat(rejected.retryAfter()).isBetween(Duration.ofMillis(1_000), Duration.ofMillis(2_050));

        Thread.sleep(rejected.retryAfter().toMillis() + 50);
        assertThat(backend.tryAcquire(name, twoPerThreeSeconds, 1).allowed()).isTrue();
    }

    @Test
    void retryAfterForSeveralPermitsWaitsForEnoughGrants() throws InterruptedException {
        RateLimitBackend backend = new RedissonRateLimitBackend(client());
        String name = naming.limiterName("retry-bulk");
        LimitSpec threePerFourSeconds = new LimitSpec(3, Duration.ofSeconds(4), RateLimitMode.OVERALL);

        assertThat(backend.tryAcquire(name, threePerFourSeconds, 1).allowed()).isTrue();
        Thread.sleep(1_500);
        assertThat(backend.tryAcquire(name, threePerFourSeconds, 2).allowed()).isTrue();
        Decision rejected = backend.tryAcquire(name, threePerFourSeconds, 2);

        // the oldest grant (1 permit) is not enough for 2: the wait runs to the second grant (~4s)
        assertThat(rejected.allowed()).isFalse();
        assertThat(rejected.retryAfter()).isBetween(Duration.ofMillis(3_000), Duration.ofMillis(4_050));
    }

    @Test
    void writesTheLayoutRRateLimiterDocuments() {
        RateLimitBackend backend = new RedissonRateLimitBackend(client());
        String name = naming.limiterName("order:submit:42");
        backend.tryAcquire(name, FIVE_PER_MINUTE, 1);

        try (RespClient cli = redis.cli()) {
            assertThat(cli.list("KEYS", "rate_limit*")).containsExactlyInAnyOrder(
                    "rate_limit:{order:submit:42}", "rate_limit:{order:submit:42}:value",
                    "rate_limit:{order:submit:42}:permits");
            assertThat(cli.string("HGET", name, "rate")).isEqualTo("5");
            assertThat(cli.string("HGET", name, "interval")).isEqualTo("60000");
            assertThat(cli.string("GET", name + ":value")).isEqualTo("4");
            assertThat(cli.number("ZCARD", name + ":permits")).isEqualTo(1);
        }
    }

    @Test
    void oneRoundTripPerDecisionInSteadyState() {
        RateLimitBackend backend = new RedissonRateLimitBackend(client());
        LimitSpec generous = new LimitSpec(1_000, Duration.ofMinutes(1), RateLimitMode.OVERALL);
        String name = naming.limiterName("steady");
        backend.tryAcquire(name, generous, 1); // first sight: writes the config once

        CommandStats before = redis.commandStats();
        int decisions = 200;
        assertThat(allowed(backend, name, generous, 1, decisions)).isEqualTo(decisions);
        CommandStats delta = redis.commandStats().minus(before);

        // commandstats also counts the commands a script runs: one script call per decision, and every
        // other command is one RRateLimiter's acquire script runs (no trySetRate, no getConfig, no extra read)
        assertThat(delta.calls("evalsha") + delta.calls("eval")).as("commands: %s", delta).isEqualTo(decisions);
        assertThat(delta.commands()).as("commands: %s", delta).isSubsetOf(
                "evalsha", "eval", "info", "ping", // INFO is this test's own; PING is Redisson's keep-alive
                "hget", "get", "set", "zrangebyscore", "zremrangebyscore", "zrange", "zadd", "decrby", "pexpire", "pttl");
    }

    @Test
    void recreatesALimiterWhoseKeysDisappeared() {
        RateLimitBackend backend = new RedissonRateLimitBackend(client());
        String name = naming.limiterName("flushed");
        assertThat(allowed(backend, name, FIVE_PER_MINUTE, 1, 5)).isEqualTo(5);

        redis.flushAll(); // as after expiry or a failover to an empty replica

        assertThat(allowed(backend, name, FIVE_PER_MINUTE, 1, 7)).isEqualTo(5);
    }
}
