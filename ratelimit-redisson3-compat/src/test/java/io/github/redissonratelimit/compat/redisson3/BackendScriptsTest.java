package io.github.redissonratelimit.compat.redisson3;

import static io.github.redissonratelimit.limiter.BackendCalls.acquire;
import static io.github.redissonratelimit.limiter.BackendCalls.release;
import static io.github.redissonratelimit.limiter.BackendCalls.state;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.LimitState;
import io.github.redissonratelimit.naming.KeyStyle;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.redis.BackendOptions;
import io.github.redissonratelimit.redis.ConfigChangePolicy;
import io.github.redissonratelimit.redis.LimiterClock;
import io.github.redissonratelimit.redis.RedissonRateLimitBackend;
import io.github.redissonratelimit.test.redis.FreshRedis;
import io.github.redissonratelimit.test.redis.RedisEndpoint;

/**
 * Each of the backend's Redisson calls on Redisson 3: the acquire script alone and in a pipeline (a batch), the
 * state read and the refund (the three scripts, with both reply types), for both clocks.
 */
class BackendScriptsTest {

    private static final LimitSpec TEN_PER_MINUTE = new LimitSpec(10, Duration.ofMinutes(1), RateLimitMode.OVERALL);

    @RegisterExtension
    final FreshRedis fresh = new FreshRedis();
    private final RedisEndpoint redis = fresh.endpoint();

    private RedissonRateLimitBackend backend(LimiterClock clock) {
        return new RedissonRateLimitBackend(fresh.newClient(), new BackendOptions(1_000, Duration.ofHours(1),
                ConfigChangePolicy.UPDATE, 2, 64, clock));
    }

    @Test
    void acquireStateAndRefundWithRedisClock() {
        acquireStateAndRefund(backend(LimiterClock.REDIS), "redis-clock");
    }

    @Test
    void acquireStateAndRefundWithTheClientsClock() {
        acquireStateAndRefund(backend(LimiterClock.CLIENT), "client-clock");
    }

    private void acquireStateAndRefund(RedissonRateLimitBackend backend, String key) {
        String name = new LimiterNaming().limiterName(key);
        Decision first = acquire(backend, name, TEN_PER_MINUTE, 4);
        assertThat(first.allowed()).isTrue();
        assertThat(first.state().available()).isEqualTo(6);

        LimitState state = state(backend, name, TEN_PER_MINUTE);
        assertThat(state.available()).isEqualTo(6);
        assertThat(state.nextPermitIn()).isBetween(Duration.ofSeconds(55), Duration.ofMinutes(1));

        release(backend, name, TEN_PER_MINUTE, 4);
        assertThat(state(backend, name, TEN_PER_MINUTE).available()).isEqualTo(10);
    }

    @Test
    void concurrentDecisionsSharePipelinesAndStayExact() {
        RedissonRateLimitBackend backend = backend(LimiterClock.REDIS);
        String name = new LimiterNaming().limiterName("pipelined");
        List<CompletableFuture<Decision>> decisions = IntStream.range(0, 200)
                .mapToObj(i -> backend.acquire(name, TEN_PER_MINUTE, 1)).toList();

        assertThat(decisions.stream().map(CompletableFuture::join).filter(Decision::allowed).count()).isEqualTo(10);
        Decision rejected = acquire(backend, name, TEN_PER_MINUTE, 1);
        assertThat(rejected.allowed()).isFalse();
        assertThat(rejected.retryAfter()).isBetween(Duration.ofSeconds(55), Duration.ofMinutes(1));
    }

    @Test
    void plainNamesAreRRateLimitersNames() {
        RedissonRateLimitBackend backend = backend(LimiterClock.REDIS);
        String name = new LimiterNaming("rate_limit:", 200, KeyStyle.PLAIN).limiterName("user:7");
        assertThat(name).isEqualTo("rate_limit:user:7");
        assertThat(IntStream.range(0, 12).filter(i -> acquire(backend, name, TEN_PER_MINUTE, 1).allowed()).count())
                .isEqualTo(10);
        // the grants of one slice of the window share a member: the members hold the 10 permits between them
        assertThat(redis.number("EVAL", "local sum = 0 for _, member in ipairs(redis.call('zrange', KEYS[1], 0, -1)) "
                + "do local _, permits = struct.unpack('Bc0I', member) sum = sum + permits end return sum", "1",
                "{rate_limit:user:7}:permits")).isEqualTo(10);
        assertThat(redis.number("EXISTS", "rate_limit:user:7")).isEqualTo(1);
    }
}
