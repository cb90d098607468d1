package io.github.redissonratelimit.redis;

import static io.github.redissonratelimit.limiter.BackendCalls.acquire;
import static io.github.redissonratelimit.limiter.BackendCalls.await;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.redisson.api.RedissonClient;

import io.github.redissonratelimit.annotation.CalendarPeriod;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.algorithm.DecisionArguments;
import io.github.redissonratelimit.algorithm.LimitAlgorithm;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.test.redis.FreshRedis;
import io.github.redissonratelimit.test.redis.RedisEndpoint;

/**
 * The edges where the token bucket and the fixed window once broke exactness: a calendar quota decided by a JVM
 * whose clock is hours off Redis's, a bucket's refund after a partial refill, and a bucket's reported wait.
 */
class AlgorithmEdgesTest {

    private static final LimitSpec THREE_PER_HOUR = new LimitSpec(3, CalendarPeriod.HOUR.longest(),
            RateLimitMode.OVERALL, LimitAlgorithm.fixedWindow(CalendarPeriod.HOUR, ZoneOffset.UTC));
    /** 10 per second (one permit every 100 ms), bursts of 10. */
    private static final LimitSpec TEN_PER_SECOND = new LimitSpec(10, Duration.ofSeconds(1), RateLimitMode.OVERALL,
            LimitAlgorithm.tokenBucket(10));

    @RegisterExtension
    final FreshRedis fresh = new FreshRedis();
    private final RedisEndpoint redis = fresh.endpoint();
    private final String name = new LimiterNaming().limiterName("edge:42");
    private final AtomicLong millis = new AtomicLong(1_700_000_000_000L);

    /** On Redis's clock, with this JVM's clock {@code skewHours} off: the hour Redis is in counts, once. */
    @ParameterizedTest(name = "JVM clock {0} h off Redis''s")
    @ValueSource(ints = {-2, 2})
    void aCalendarQuotaCountsInRedisWindowWhateverTheJvmClock(int skewHours) {
        InstantSource skewed = () -> Instant.now().plus(Duration.ofHours(skewHours));
        RedissonClient client = fresh.newClient();
        RedissonRateLimitBackend backend = new RedissonRateLimitBackend(client, BackendOptions.DEFAULTS, skewed);
        long hourBefore = redisMillis() / 3_600_000;

        int allowed = 0;
        for (int i = 0; i < 10; i++) {
            allowed += acquire(backend, name, THREE_PER_HOUR, 1).allowed() ? 1 : 0;
        }
        List<CompletableFuture<Decision>> together = new ArrayList<>();
        for (int i = 0; i < 10; i++) { // sent at once: several go in one acquire-many call
            together.add(backend.acquire(AcquireRequest.of(name, THREE_PER_HOUR, 1)).toCompletableFuture());
        }
        for (CompletableFuture<Decision> decision : together) {
            allowed += decision.join().allowed() ? 1 : 0;
        }
        // a second backend, as another instance whose clock is right, sees the same count
        RedissonRateLimitBackend other = new RedissonRateLimitBackend(fresh.newClient());
        allowed += acquire(other, name, THREE_PER_HOUR, 1).allowed() ? 1 : 0;

        long hours = redisMillis() / 3_600_000 - hourBefore + 1;
        assertThat(allowed).as("grants in the %d hour(s) of Redis's clock the test ran in", hours)
                .isEqualTo(3 * (int) hours);
        long ttl = Long.parseLong(String.valueOf(redis.command("PTTL", LimiterNaming.valueKey(name))));
        assertThat(ttl).as("the count lives until the end of Redis's hour").isGreaterThan(0)
                .isLessThanOrEqualTo(3_600_000);
        long endOfHour = (redisMillis() / 3_600_000 + 1) * 3_600_000;
        assertThat(ttl).isGreaterThanOrEqualTo(endOfHour - redisMillis() - 5_000);
    }

    /**
     * Bounds computed on a clock 2 h behind Redis's, as this JVM's would be: neither script stores a count it cannot
     * keep (a count written to expire at a window's end that Redis's clock has passed is gone a millisecond later);
     * each answers with Redis's time instead.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"acquire-window", "acquire"})
    void aScriptGivenStaleBoundsWritesNothingAndAnswersRedisTime(String scriptName) {
        LuaScripts.Script script = scriptName.equals("acquire") ? LuaScripts.ACQUIRE : LuaScripts.ofAlgorithm(LimitAlgorithm.fixedWindow());
        String value = LimiterNaming.valueKey(name);
        for (int call = 0; call < 5; call++) {
            long before = redisMillis();
            String argument = THREE_PER_HOUR.algorithm().argument(1, 3, Duration.ofHours(1), 0, '-',
                    arguments("grant" + call, Instant.ofEpochMilli(before).minus(Duration.ofHours(2))));
            List<?> reply = (List<?>) redis.command("EVAL", script.text(), "5", name, value, value + ":c",
                    LimiterNaming.permitsKey(name), LimiterNaming.permitsKey(name) + ":c",
                    argument);
            assertThat(Long.parseLong(String.valueOf(reply.get(0)))).as("stale bounds, call %d", call).isEqualTo(-5);
            assertThat(Long.parseLong(String.valueOf(reply.get(1)))).as("Redis's time")
                    .isBetween(before, redisMillis());
            assertThat(redis.keys("*")).as("nothing written").isEmpty();
        }
    }

    /** What the backend gives an argument, with {@code redisTime} as this JVM's idea of Redis's time. */
    private static DecisionArguments arguments(String grantId, Instant redisTime) {
        return new DecisionArguments() {

            @Override
            public String clock() {
                return "0";
            }

            @Override
            public String grantId() {
                return grantId;
            }

            @Override
            public String holder() {
                return "test@host";
            }

            @Override
            public Duration keepAlive(Duration interval) {
                return interval;
            }

            @Override
            public Instant redisTime() {
                return redisTime;
            }
        };
    }

    @Test
    void aBucketRefundAfterARefillGivesBackOnlyWhatHadNotRefilled() {
        RedissonRateLimitBackend backend = onTestClock();
        Decision a = acquire(backend, name, TEN_PER_SECOND, 10);
        assertThat(a.allowed()).isTrue();
        millis.addAndGet(500);
        assertThat(acquire(backend, name, TEN_PER_SECOND, 5).allowed()).as("B: the 5 refilled since A").isTrue();

        await(backend.release(AcquireRequest.of(name, TEN_PER_SECOND, 10), a));

        // without A, B would have left 5 of 10: the bucket may hold no more than that
        assertThat(acquire(backend, name, TEN_PER_SECOND, 10).allowed()).as("C: 10 would make 15 in 0.5 s").isFalse();
        assertThat(acquire(backend, name, TEN_PER_SECOND, 5).allowed()).isTrue();
        assertThat(acquire(backend, name, TEN_PER_SECOND, 1).allowed()).isFalse();
    }

    @Test
    void aBucketRefundBeforeAnyRefillGivesEverythingBack() {
        RedissonRateLimitBackend backend = onTestClock();
        acquire(backend, name, TEN_PER_SECOND, 4);
        Decision a = acquire(backend, name, TEN_PER_SECOND, 6);
        millis.addAndGet(300); // 3 refilled: the first grant's, in the order they were taken

        await(backend.release(AcquireRequest.of(name, TEN_PER_SECOND, 6), a));

        assertThat(acquire(backend, name, TEN_PER_SECOND, 9).allowed()).as("3 refilled + 6 given back").isTrue();
        assertThat(acquire(backend, name, TEN_PER_SECOND, 1).allowed()).isFalse();
    }

    @Test
    void aBucketsReportedWaitIsATimeAtWhichTheRetrySucceeds() {
        RedissonRateLimitBackend backend = onTestClock();
        LimitSpec threePerSecond = new LimitSpec(3, Duration.ofSeconds(1), RateLimitMode.OVERALL,
                LimitAlgorithm.tokenBucket(3)); // a permit every 333.3 ms
        String other = new LimiterNaming().limiterName("edge:43");
        for (String limiter : List.of(name, other)) {
            acquire(backend, limiter, threePerSecond, 3);
        }
        Decision refused = acquire(backend, name, threePerSecond, 1);
        assertThat(refused.retryAfter()).as("333.3 ms rounded up").isEqualTo(Duration.ofMillis(334));
        millis.addAndGet(refused.retryAfter().toMillis() - 1);
        assertThat(acquire(backend, other, threePerSecond, 1).allowed()).as("a ms earlier is too early").isFalse();
        millis.addAndGet(1);
        assertThat(acquire(backend, name, threePerSecond, 1).allowed()).isTrue();
    }

    /** Grants stamped with {@link #millis}, which the test moves. */
    private RedissonRateLimitBackend onTestClock() {
        return new RedissonRateLimitBackend(fresh.newClient(), BackendOptions.DEFAULTS.withClock(LimiterClock.CLIENT),
                () -> Instant.ofEpochMilli(millis.get()));
    }

    private long redisMillis() {
        List<?> time = (List<?>) redis.command("TIME");
        return Long.parseLong(String.valueOf(time.get(0))) * 1000 + Long.parseLong(String.valueOf(time.get(1))) / 1000;
    }
}
