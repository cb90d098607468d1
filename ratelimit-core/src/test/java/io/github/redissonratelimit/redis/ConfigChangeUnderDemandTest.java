package io.github.redissonratelimit.redis;

import static io.github.redissonratelimit.limiter.BackendCalls.acquire;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.github.redissonratelimit.annotation.RateLimitAlgorithm;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.algorithm.LimitAlgorithm;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.test.redis.FreshRedis;

/**
 * A change of config or algorithm ({@code on-config-change=update}) usually arrives while the limiter is in use, so
 * the first call that brings it is often refused: the change must be applied all the same, with the permits the old
 * config has out carried into the new one. Otherwise the old state is gone (a change of algorithm deletes it) or the
 * old config goes on deciding (the instance that brought the change does not check it again). On a clock the test
 * moves.
 */
class ConfigChangeUnderDemandTest {

    private static final Duration MINUTE = Duration.ofMinutes(1);

    @RegisterExtension
    final FreshRedis fresh = new FreshRedis();
    private final String name = new LimiterNaming().limiterName("change:under-demand");
    private final AtomicLong millis = new AtomicLong(1_700_000_040_000L + 10_000);

    private RedissonRateLimitBackend backend() {
        InstantSource clock = () -> Instant.ofEpochMilli(millis.get());
        return new RedissonRateLimitBackend(fresh.newClient(),
                new BackendOptions(1_000, Duration.ofHours(1), ConfigChangePolicy.UPDATE).withClock(LimiterClock.CLIENT),
                clock);
    }

    private static LimitSpec perMinute(long rate, RateLimitAlgorithm algorithm) {
        LimitAlgorithm counted = switch (algorithm) {
            case TOKEN_BUCKET -> LimitAlgorithm.tokenBucket(rate);
            case FIXED_WINDOW -> LimitAlgorithm.fixedWindow();
            case IN_FLIGHT -> LimitAlgorithm.IN_FLIGHT;
            default -> LimitAlgorithm.SLIDING_WINDOW;
        };
        return new LimitSpec(rate, MINUTE, RateLimitMode.OVERALL, counted);
    }

    private long allowed(RedissonRateLimitBackend backend, LimitSpec spec, long permits, int calls) {
        return IntStream.range(0, calls).filter(i -> acquire(backend, name, spec, permits).allowed()).count();
    }

    @ParameterizedTest
    @EnumSource(value = RateLimitAlgorithm.class, names = "DEFAULT", mode = EnumSource.Mode.EXCLUDE)
    void aChangeOfAlgorithmRefusedOnItsFirstCallKeepsThePermitsOut(RateLimitAlgorithm from) {
        for (RateLimitAlgorithm to : RateLimitAlgorithm.values()) {
            if (to == from || to == RateLimitAlgorithm.DEFAULT) {
                continue;
            }
            fresh.endpoint().command("FLUSHALL");
            RedissonRateLimitBackend old = backend();
            assertThat(allowed(old, perMinute(10, from), 1, 10)).isEqualTo(10);

            RedissonRateLimitBackend renewed = backend();
            assertThat(allowed(renewed, perMinute(10, to), 1, 1)).as("%s -> %s: all 10 out", from, to).isZero();
            assertThat(allowed(renewed, perMinute(10, to), 1, 5)).as("%s -> %s: still out after the change", from, to)
                    .isZero();
            assertThat(allowed(old, perMinute(10, from), 1, 5)).as("%s -> %s: and for the old instance", from, to)
                    .isZero();
        }
    }

    @Test
    void aLoweredBucketRefusedOnItsFirstCallRefillsAtTheNewRate() {
        RedissonRateLimitBackend old = backend();
        assertThat(allowed(old, perMinute(10, RateLimitAlgorithm.TOKEN_BUCKET), 1, 10)).isEqualTo(10);

        // 10 out of a bucket of 6 per minute: the next permit in 50 s, where 10 per minute would give one in 6 s
        assertThat(allowed(backend(), perMinute(6, RateLimitAlgorithm.TOKEN_BUCKET), 1, 1)).isZero();
        millis.addAndGet(7_000);
        assertThat(allowed(old, perMinute(10, RateLimitAlgorithm.TOKEN_BUCKET), 1, 1))
                .as("7 s later: the stored config is the new one").isZero();
        millis.addAndGet(44_000);
        assertThat(allowed(old, perMinute(10, RateLimitAlgorithm.TOKEN_BUCKET), 1, 2)).as("51 s later").isOne();
    }

    @Test
    void aLoweredWindowRefusedOnItsFirstCallHoldsTheNewRateInTheCurrentWindow() {
        RedissonRateLimitBackend old = backend();
        assertThat(allowed(old, perMinute(10, RateLimitAlgorithm.FIXED_WINDOW), 1, 5)).isEqualTo(5);

        // 5 + 2 is above 6: refused, and the window holds 6 from now on
        assertThat(allowed(backend(), perMinute(6, RateLimitAlgorithm.FIXED_WINDOW), 2, 1)).isZero();
        assertThat(allowed(old, perMinute(10, RateLimitAlgorithm.FIXED_WINDOW), 1, 3))
                .as("the old instance, in the same window").isOne();
    }
}
