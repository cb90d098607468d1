package io.github.redissonratelimit.redis;

import static io.github.redissonratelimit.limiter.BackendCalls.acquire;
import static io.github.redissonratelimit.limiter.BackendCalls.await;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.algorithm.LimitAlgorithm;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.limiter.WaitingRateLimitBackend;
import io.github.redissonratelimit.naming.KeyStyle;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.test.redis.CommandStats;
import io.github.redissonratelimit.test.redis.FreshRedis;
import io.github.redissonratelimit.test.redis.KeySlot;
import io.github.redissonratelimit.test.redis.RedisClusterProcess;
import io.github.redissonratelimit.test.redis.RedisDeployment;
import io.github.redissonratelimit.test.redis.RedisEndpoint;
import io.github.redissonratelimit.test.redis.RedissonClients;

/**
 * Waiting for permits and the plain key style with the token bucket and the fixed window, as the sliding window
 * does them (RefundStateAndWaitingTest, PlainKeyStyleTest).
 */
class AlgorithmWaitingAndKeyStyleTest {

    @RegisterExtension
    final FreshRedis fresh = new FreshRedis();
    @RegisterExtension
    final RedissonClients clients = new RedissonClients();
    private final RedisEndpoint redis = fresh.endpoint();

    @Test
    void waitingTakesATokenBucketPermitWhenItIsRefilledInTime() {
        RateLimitBackend backend = new RedissonRateLimitBackend(fresh.newClient());
        String name = new LimiterNaming().limiterName("wait-bucket");
        LimitSpec fivePerSecond = new LimitSpec(5, Duration.ofSeconds(1), RateLimitMode.OVERALL,
                LimitAlgorithm.tokenBucket(1));
        assertThat(acquire(backend, name, fivePerSecond, 1).allowed()).isTrue();
        assertThat(acquire(backend, name, fivePerSecond, 1).allowed()).isFalse();

        Decision waited = await(new WaitingRateLimitBackend(backend)
                .acquire(AcquireRequest.of(name, fivePerSecond, 1).waitingUpTo(Duration.ofSeconds(5))));
        assertThat(waited.allowed()).as("the next permit is refilled 200 ms later").isTrue();
    }

    @Test
    void waitingRejectsAtOnceWhenAFixedWindowEndsAfterTheWait() {
        RateLimitBackend backend = new RedissonRateLimitBackend(fresh.newClient());
        String name = new LimiterNaming().limiterName("wait-window");
        LimitSpec onePerDay = new LimitSpec(1, Duration.ofDays(1), RateLimitMode.OVERALL, LimitAlgorithm.fixedWindow());
        assertThat(acquire(backend, name, onePerDay, 1).allowed()).isTrue();

        CommandStats before = redis.commandStats();
        Decision waited = await(new WaitingRateLimitBackend(backend)
                .acquire(AcquireRequest.of(name, onePerDay, 1).waitingUpTo(Duration.ofSeconds(30))));
        CommandStats delta = redis.commandStats().minus(before);

        assertThat(waited.allowed()).isFalse();
        assertThat(waited.retryAfter()).isGreaterThan(Duration.ofSeconds(30));
        assertThat(delta.calls("evalsha") + delta.calls("eval")).as("one attempt: %s", delta).isEqualTo(1);
    }

    @ParameterizedTest
    @ValueSource(strings = {"token-bucket", "fixed-window"})
    void thePlainKeyStyleKeepsTheStateInTheSlotOfTheName(String algorithm) {
        LimitAlgorithm counted = algorithm.equals("token-bucket") ? LimitAlgorithm.tokenBucket(3)
                : LimitAlgorithm.fixedWindow();
        LimitSpec three = new LimitSpec(3, Duration.ofMinutes(1), RateLimitMode.OVERALL, counted);
        LimiterNaming plain = new LimiterNaming(LimiterNaming.DEFAULT_PREFIX, LimiterNaming.DEFAULT_MAX_KEY_LENGTH,
                KeyStyle.PLAIN);
        for (RedisDeployment deployment : new RedisDeployment[] {redis, RedisClusterProcess.shared()}) {
            deployment.flushAll();
            RateLimitBackend backend = new RedissonRateLimitBackend(clients.create(deployment));
            String name = plain.limiterName("user:{7}");
            long granted = 0;
            for (int i = 0; i < 5; i++) {
                granted += acquire(backend, name, three, 1).allowed() ? 1 : 0;
            }
            assertThat(granted).as(deployment.describe()).isEqualTo(3);
            assertThat(deployment.keys("*")).as(deployment.describe()).containsExactly(LimiterNaming.valueKey(name));
            assertThat(KeySlot.of(LimiterNaming.valueKey(name))).isEqualTo(KeySlot.of(name));
        }
    }
}
