package io.github.redissonratelimit.redis;

import static io.github.redissonratelimit.limiter.BackendCalls.acquire;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.github.redissonratelimit.annotation.RateLimitAlgorithm;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.LimitAlgorithm;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.test.redis.FreshRedis;

/**
 * A running limiter whose algorithm changes follows ratelimit.on-config-change: update counts what the old algorithm
 * has out against the new one, reset starts the new one full, keep decides with the stored one. Each pair of
 * algorithms, on a clock the test moves (no time passes between the two instances' calls).
 */
class AlgorithmChangeTest {

    private static final Duration MINUTE = Duration.ofMinutes(1);

    @RegisterExtension
    final FreshRedis fresh = new FreshRedis();
    private final String name = new LimiterNaming().limiterName("switch:42");
    private final AtomicLong millis = new AtomicLong(1_700_000_040_000L + 10_000);

    private RedissonRateLimitBackend backend(ConfigChangePolicy policy) {
        InstantSource clock = () -> Instant.ofEpochMilli(millis.get());
        return new RedissonRateLimitBackend(fresh.newClient(),
                new BackendOptions(1_000, Duration.ofHours(1), policy).withClock(LimiterClock.CLIENT), clock);
    }

    private static LimitSpec tenPerMinute(RateLimitAlgorithm algorithm) {
        LimitAlgorithm counted = switch (algorithm) {
            case TOKEN_BUCKET -> LimitAlgorithm.tokenBucket(10);
            case FIXED_WINDOW -> LimitAlgorithm.fixedWindow();
            default -> LimitAlgorithm.SLIDING_WINDOW;
        };
        return new LimitSpec(10, MINUTE, RateLimitMode.OVERALL, counted);
    }

    private long allowed(RedissonRateLimitBackend backend, LimitSpec spec, int calls) {
        return IntStream.range(0, calls).filter(i -> acquire(backend, name, spec, 1).allowed()).count();
    }

    @ParameterizedTest
    @EnumSource(value = RateLimitAlgorithm.class, names = "DEFAULT", mode = EnumSource.Mode.EXCLUDE)
    void updateCountsThePermitsTheOldAlgorithmHasOut(RateLimitAlgorithm from) {
        for (RateLimitAlgorithm to : RateLimitAlgorithm.values()) {
            if (to == from || to == RateLimitAlgorithm.DEFAULT) {
                continue;
            }
            fresh.endpoint().command("FLUSHALL");
            assertThat(allowed(backend(ConfigChangePolicy.UPDATE), tenPerMinute(from), 7)).isEqualTo(7);

            assertThat(allowed(backend(ConfigChangePolicy.UPDATE), tenPerMinute(to), 10))
                    .as("%s -> %s: 7 of 10 out", from, to).isEqualTo(3);
        }
    }

    @ParameterizedTest
    @EnumSource(value = RateLimitAlgorithm.class, names = "DEFAULT", mode = EnumSource.Mode.EXCLUDE)
    void resetStartsTheNewAlgorithmFull(RateLimitAlgorithm from) {
        for (RateLimitAlgorithm to : RateLimitAlgorithm.values()) {
            if (to == from || to == RateLimitAlgorithm.DEFAULT) {
                continue;
            }
            fresh.endpoint().command("FLUSHALL");
            assertThat(allowed(backend(ConfigChangePolicy.RESET), tenPerMinute(from), 7)).isEqualTo(7);

            assertThat(allowed(backend(ConfigChangePolicy.RESET), tenPerMinute(to), 12))
                    .as("%s -> %s", from, to).isEqualTo(10);
        }
    }

    @ParameterizedTest
    @EnumSource(value = RateLimitAlgorithm.class, names = "DEFAULT", mode = EnumSource.Mode.EXCLUDE)
    void keepDecidesWithTheStoredAlgorithm(RateLimitAlgorithm from) {
        for (RateLimitAlgorithm to : RateLimitAlgorithm.values()) {
            if (to == from || to == RateLimitAlgorithm.DEFAULT) {
                continue;
            }
            fresh.endpoint().command("FLUSHALL");
            LimitSpec stored = new LimitSpec(5, MINUTE, RateLimitMode.OVERALL, tenPerMinute(from).algorithm()
                    .type() == RateLimitAlgorithm.TOKEN_BUCKET ? LimitAlgorithm.tokenBucket(5)
                    : tenPerMinute(from).algorithm());
            assertThat(allowed(backend(ConfigChangePolicy.KEEP), stored, 2)).isEqualTo(2);

            assertThat(allowed(backend(ConfigChangePolicy.KEEP), tenPerMinute(to), 10))
                    .as("%s -> %s: the stored 5 per minute still decides", from, to).isEqualTo(3);
        }
    }
}
