package io.github.redissonratelimit.redis;

import static io.github.redissonratelimit.limiter.BackendCalls.acquire;
import static io.github.redissonratelimit.limiter.BackendCalls.release;
import static io.github.redissonratelimit.limiter.BackendCalls.state;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RedissonClient;
import org.slf4j.LoggerFactory;

import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.test.redis.RealRedisExtension;
import io.github.redissonratelimit.test.redis.RedisEndpoint;
import io.github.redissonratelimit.test.redis.RedissonClients;
import io.github.redissonratelimit.test.redis.RespClient;

/**
 * A limit changed between two deployments: the first backend stands for the old application instance,
 * the second for a new one that declares another config for the same key.
 */
@ExtendWith(RealRedisExtension.class)
class ConfigChangeTest {

    private static final LimitSpec FIVE = new LimitSpec(5, Duration.ofMinutes(1), RateLimitMode.OVERALL);
    private static final LimitSpec TEN = new LimitSpec(10, Duration.ofMinutes(1), RateLimitMode.OVERALL);

    private final String name = new LimiterNaming().limiterName("order:submit:42");
    @RegisterExtension
    final RedissonClients clients = new RedissonClients();
    private final ListAppender<ILoggingEvent> log = new ListAppender<>();
    private RedisEndpoint redis;

    @BeforeEach
    void setUp(RedisEndpoint redis) {
        this.redis = redis;
        redis.flushAll();
        log.start();
        ((Logger) LoggerFactory.getLogger(RedissonRateLimitBackend.class)).addAppender(log);
    }

    @AfterEach
    void tearDown() {
        ((Logger) LoggerFactory.getLogger(RedissonRateLimitBackend.class)).detachAppender(log);
    }

    private RedissonRateLimitBackend backend(ConfigChangePolicy policy, Duration keyTtl) {
        RedissonClient client = clients.create(redis);
        return new RedissonRateLimitBackend(client, new BackendOptions(1_000, keyTtl, policy));
    }

    private static long allowed(RateLimitBackend backend, String name, LimitSpec spec, int calls) {
        return IntStream.range(0, calls).filter(i -> acquire(backend, name, spec, 1).allowed()).count();
    }

    private String stored(String field) {
        try (RespClient cli = redis.cli()) {
            return cli.string("HGET", name, field);
        }
    }

    private void oldDeploymentUsesThree() {
        assertThat(allowed(backend(ConfigChangePolicy.UPDATE, Duration.ofHours(1)), name, FIVE, 3)).isEqualTo(3);
    }

    @Test
    void updateAppliesTheNewRateAndKeepsTheGrantsOfTheWindow() {
        oldDeploymentUsesThree();

        long allowed = allowed(backend(ConfigChangePolicy.UPDATE, Duration.ofHours(1)), name, TEN, 12);

        assertThat(allowed).isEqualTo(7);
        assertThat(stored("rate")).isEqualTo("10");
        assertThat(log.list).anySatisfy(event -> {
            assertThat(event.getLevel()).isEqualTo(Level.INFO);
            assertThat(event.getFormattedMessage()).contains("Updated rate limiter 'rate_limit:{order:submit:42}'",
                    "rate=5", "rate=10");
        });
    }

    @Test
    void theAsynchronousFirstSightUpdatesAChangedConfigAndSetsTheKeyTtl() throws Exception {
        oldDeploymentUsesThree();
        RateLimitBackend backend = backend(ConfigChangePolicy.UPDATE, Duration.ofMinutes(5));

        long allowed = 0;
        for (int i = 0; i < 12; i++) {
            allowed += backend.acquire(name, TEN, 1).toCompletableFuture().get(30, java.util.concurrent.TimeUnit.SECONDS)
                    .allowed() ? 1 : 0;
        }

        assertThat(allowed).isEqualTo(7);
        assertThat(stored("rate")).isEqualTo("10");
        assertThat(stored("keepAliveTime")).isEqualTo("300000");
    }

    @Test
    void resetAppliesTheNewRateWithAFullBucket() {
        oldDeploymentUsesThree();

        assertThat(allowed(backend(ConfigChangePolicy.RESET, Duration.ofHours(1)), name, TEN, 12)).isEqualTo(10);
        assertThat(stored("rate")).isEqualTo("10");
    }

    @Test
    void keepLeavesRedisAloneAndWarnsWithBothConfigs() {
        oldDeploymentUsesThree();

        assertThat(allowed(backend(ConfigChangePolicy.KEEP, Duration.ofHours(1)), name, TEN, 12)).isEqualTo(2);
        assertThat(stored("rate")).isEqualTo("5");
        assertThat(log.list).anySatisfy(event -> {
            assertThat(event.getLevel()).isEqualTo(Level.WARN);
            assertThat(event.getFormattedMessage()).contains("'rate_limit:{order:submit:42}' keeps its stored config",
                    "rate=5", "rate=10", "ratelimit.on-config-change=keep");
        });
    }

    @Test
    void keptConfigDecidesTheRetryAfter() {
        // the old deployment limits 2 per second; the new one declares 2 per minute but keeps what Redis has
        LimitSpec twoPerSecond = new LimitSpec(2, Duration.ofSeconds(1), RateLimitMode.OVERALL);
        LimitSpec twoPerMinute = new LimitSpec(2, Duration.ofMinutes(1), RateLimitMode.OVERALL);
        assertThat(allowed(backend(ConfigChangePolicy.UPDATE, Duration.ofHours(1)), name, twoPerSecond, 2))
                .isEqualTo(2);

        Decision rejected = acquire(backend(ConfigChangePolicy.KEEP, Duration.ofHours(1)), name, twoPerMinute, 1);

        // RRateLimiter frees the grants after the stored second, not the declared minute
        assertThat(rejected.allowed()).isFalse();
        assertThat(rejected.retryAfter()).isLessThanOrEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void aChangedKeyTtlIsApplied() {
        oldDeploymentUsesThree();

        acquire(backend(ConfigChangePolicy.UPDATE, Duration.ofMinutes(5)), name, FIVE, 1);

        assertThat(stored("keepAliveTime")).isEqualTo("300000");
        try (RespClient cli = redis.cli()) {
            assertThat(cli.number("PTTL", name)).isBetween(290_000L, 300_000L);
            assertThat(cli.number("PTTL", name + ":permits")).isBetween(290_000L, 300_000L);
        }
    }

    @Test
    void aChangedModeStartsTheNewModeFull() {
        oldDeploymentUsesThree();
        LimitSpec perClient = new LimitSpec(5, Duration.ofMinutes(1), RateLimitMode.PER_CLIENT);

        assertThat(allowed(backend(ConfigChangePolicy.UPDATE, Duration.ofHours(1)), name, perClient, 7)).isEqualTo(5);
        assertThat(stored("type")).isEqualTo("1");
    }

    @Test
    void theStoredConfigIsCheckedOncePerLimiterAndJvm() {
        oldDeploymentUsesThree();
        RedissonRateLimitBackend newer = backend(ConfigChangePolicy.UPDATE, Duration.ofHours(1));
        acquire(newer, name, TEN, 1);

        var before = redis.commandStats();
        allowed(newer, name, TEN, 5);
        var delta = redis.commandStats().minus(before);

        assertThat(delta.calls("hgetall")).isZero();
        assertThat(delta.calls("evalsha") + delta.calls("eval")).isEqualTo(5);
    }

    @Test
    void unchangedConfigIsLeftAsItIs() {
        oldDeploymentUsesThree();

        assertThat(allowed(backend(ConfigChangePolicy.RESET, Duration.ofHours(1)), name, FIVE, 5)).isEqualTo(2);
        assertThat(log.list).noneSatisfy(event -> assertThat(event.getFormattedMessage()).contains("rate limiter"));
    }

    @Test
    void aLoweredRateLeavesADebtThatTheNextExpiringGrantsPay() {
        LimitSpec tenPerMinute = new LimitSpec(10, Duration.ofMinutes(1), RateLimitMode.OVERALL);
        LimitSpec sixPerMinute = new LimitSpec(6, Duration.ofMinutes(1), RateLimitMode.OVERALL);
        assertThat(allowed(backend(ConfigChangePolicy.UPDATE, Duration.ofHours(1)), name, tenPerMinute, 8)).isEqualTo(8);

        RedissonRateLimitBackend newer = backend(ConfigChangePolicy.UPDATE, Duration.ofHours(1));
        Decision decision = acquire(newer, name, sixPerMinute, 1);

        assertThat(decision.allowed()).isFalse();
        try (RespClient cli = redis.cli()) {
            assertThat(cli.string("GET", LimiterNaming.valueKey(name))).as("free = 6 - 8 held: a debt, not clamped at 0")
                    .isEqualTo("-2");
        }
        assertThat(decision.state().available()).as("the reply never reports a negative count").isZero();
        assertThat(state(newer, name, sixPerMinute).available()).as("nor does the state read").isZero();
        assertThat(clients.create(redis).getRateLimiter(name).getConfig().getRate()).as("RRateLimiter reads the change")
                .isEqualTo(6);
    }

    @Test
    void aDecisionOnANewLimiterIsOneScriptCallThatWritesItsConfig() {
        RedissonRateLimitBackend backend = backend(ConfigChangePolicy.UPDATE, Duration.ofHours(1));
        acquire(backend, "rate_limit:{warm-up}", FIVE, 1); // connected, script loaded

        var before = redis.commandStats();
        Decision decision = acquire(backend, name, FIVE, 1);
        var delta = redis.commandStats().minus(before);

        assertThat(decision.allowed()).isTrue();
        assertThat(decision.state().available()).isEqualTo(4);
        assertThat(delta.calls("evalsha") + delta.calls("eval")).as("commands: %s", delta).isEqualTo(1);
        assertThat(stored("rate")).isEqualTo("5");
        assertThat(stored("interval")).isEqualTo("60000");
        assertThat(stored("keepAliveTime")).isEqualTo("3600000");
    }

    @Test
    void releaseRejectsPermitsOutsideOneToTheRate() {
        RedissonRateLimitBackend backend = backend(ConfigChangePolicy.UPDATE, Duration.ofHours(1));
        for (long permits : new long[] { -1, 0, 6 }) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> release(backend, name, FIVE, permits))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("between 1 and the rate (5)");
        }
    }
}
