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
import io.github.redissonratelimit.algorithm.LimitAlgorithm;
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
        return perMinute(algorithm, 10);
    }

    /** {@code rate} per minute (a token bucket of {@code rate}). */
    private static LimitSpec perMinute(RateLimitAlgorithm algorithm, int rate) {
        LimitAlgorithm counted = switch (algorithm) {
            case TOKEN_BUCKET -> LimitAlgorithm.tokenBucket(rate);
            case FIXED_WINDOW -> LimitAlgorithm.fixedWindow();
            case IN_FLIGHT -> LimitAlgorithm.IN_FLIGHT;
            default -> LimitAlgorithm.SLIDING_WINDOW;
        };
        return new LimitSpec(rate, MINUTE, RateLimitMode.OVERALL, counted);
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

    /**
     * A token bucket's or a fixed window's own script decides only with the declared config: another stored config of
     * the same algorithm goes to acquire.lua, which follows the policy, and an instance that checked its config
     * already decides with the one another instance wrote since.
     */
    @ParameterizedTest
    @EnumSource(value = RateLimitAlgorithm.class, names = {"TOKEN_BUCKET", "FIXED_WINDOW"})
    void aChangedConfigOfTheSameAlgorithmFollowsThePolicy(RateLimitAlgorithm algorithm) {
        for (ConfigChangePolicy policy : ConfigChangePolicy.values()) {
            fresh.endpoint().command("FLUSHALL");
            RedissonRateLimitBackend old = backend(policy);
            assertThat(allowed(old, perMinute(algorithm, 10), 7)).isEqualTo(7);

            long expected = switch (policy) {
                case UPDATE -> 13; // 7 of 20 out
                case RESET -> 20;
                case KEEP -> 3; // the stored 10 per minute still decides
            };
            assertThat(allowed(backend(policy), perMinute(algorithm, 20), 22)).as("%s", policy).isEqualTo(expected);
        }
        fresh.endpoint().command("FLUSHALL");
        RedissonRateLimitBackend checked = backend(ConfigChangePolicy.UPDATE);
        assertThat(allowed(checked, perMinute(algorithm, 10), 2)).isEqualTo(2);
        assertThat(allowed(backend(ConfigChangePolicy.UPDATE), perMinute(algorithm, 20), 1)).isEqualTo(1);

        assertThat(allowed(checked, perMinute(algorithm, 10), 20))
                .as("the stored 20 per minute, 3 of them out, decides for the instance that checked 10").isEqualTo(17);
    }
}
