package io.github.redissonratelimit.redis;

import static io.github.redissonratelimit.limiter.BackendCalls.acquire;
import static io.github.redissonratelimit.limiter.BackendCalls.await;
import static io.github.redissonratelimit.limiter.BackendCalls.state;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RedissonClient;

import io.github.redissonratelimit.annotation.CalendarPeriod;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.algorithm.LimitAlgorithm;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.LimitState;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.test.redis.FreshRedis;
import io.github.redissonratelimit.test.redis.RedisEndpoint;

/** The fixed window on Redis, on a clock the test moves: quotas per window, calendar months, refunds, state. */
class FixedWindowTest {

    private static final ZoneId PARIS = ZoneId.of("Europe/Paris");
    private static final LimitSpec THREE_PER_MINUTE = new LimitSpec(3, Duration.ofMinutes(1), RateLimitMode.OVERALL,
            LimitAlgorithm.fixedWindow());
    private static final LimitSpec FIVE_PER_MONTH = new LimitSpec(5, CalendarPeriod.MONTH.longest(),
            RateLimitMode.OVERALL, LimitAlgorithm.fixedWindow(CalendarPeriod.MONTH, PARIS));

    @RegisterExtension
    final FreshRedis fresh = new FreshRedis();
    private final RedisEndpoint redis = fresh.endpoint();
    private final String name = new LimiterNaming().limiterName("quota:42");
    /** 10 s into a minute. */
    private final AtomicLong millis = new AtomicLong(1_700_000_040_000L + 10_000);
    private RedissonRateLimitBackend backend;

    @BeforeEach
    void setUp() {
        RedissonClient client = fresh.newClient();
        InstantSource clock = () -> Instant.ofEpochMilli(millis.get());
        backend = new RedissonRateLimitBackend(client, BackendOptions.DEFAULTS.withClock(LimiterClock.CLIENT), clock);
    }

    @Test
    void aWindowGrantsItsRateThenRefusesWithoutCountingUntilItEnds() {
        for (int i = 0; i < 3; i++) {
            assertThat(acquire(backend, name, THREE_PER_MINUTE, 1).allowed()).isTrue();
        }
        Decision refused = acquire(backend, name, THREE_PER_MINUTE, 1);
        assertThat(refused.allowed()).isFalse();
        assertThat(refused.retryAfter()).as("the window ends 50 s later").isEqualTo(Duration.ofSeconds(50));
        assertThat(refused.state()).isEqualTo(new LimitState(0, Duration.ofSeconds(50)));
        assertThat(String.valueOf(redis.command("GET", LimiterNaming.valueKey(name)))).as("not counted")
                .startsWith("f3:");

        millis.addAndGet(50_000);
        for (int i = 0; i < 3; i++) {
            assertThat(acquire(backend, name, THREE_PER_MINUTE, 1).allowed()).as("the next window").isTrue();
        }
        assertThat(acquire(backend, name, THREE_PER_MINUTE, 1).allowed()).isFalse();
    }

    @Test
    void aCalendarQuotaResetsAtTheStartOfTheMonthInItsZone() {
        ZonedDateTime lastEvening = ZonedDateTime.of(2026, 1, 31, 23, 59, 0, 0, PARIS);
        millis.set(lastEvening.toInstant().toEpochMilli());
        for (int i = 0; i < 5; i++) {
            assertThat(acquire(backend, name, FIVE_PER_MONTH, 1).allowed()).isTrue();
        }
        Decision refused = acquire(backend, name, FIVE_PER_MONTH, 1);
        assertThat(refused.allowed()).isFalse();
        assertThat(refused.retryAfter()).as("until midnight in Paris").isEqualTo(Duration.ofMinutes(1));

        millis.addAndGet(60_000); // 2026-02-01T00:00 in Paris, 23:00 UTC
        assertThat(acquire(backend, name, FIVE_PER_MONTH, 5).allowed()).isTrue();
        Decision february = acquire(backend, name, FIVE_PER_MONTH, 1);
        assertThat(february.retryAfter()).as("February has 28 days").isEqualTo(Duration.ofDays(28));
    }

    @Test
    void aRefundGivesBackToTheWindowOfItsGrantOnly() {
        Decision first = acquire(backend, name, THREE_PER_MINUTE, 2);
        await(backend.release(AcquireRequest.of(name, THREE_PER_MINUTE, 2), first));
        assertThat(state(backend, name, THREE_PER_MINUTE).available()).isEqualTo(3);

        Decision late = acquire(backend, name, THREE_PER_MINUTE, 3);
        millis.addAndGet(50_000);
        assertThat(acquire(backend, name, THREE_PER_MINUTE, 3).allowed()).isTrue();
        await(backend.release(AcquireRequest.of(name, THREE_PER_MINUTE, 3), late));

        assertThat(acquire(backend, name, THREE_PER_MINUTE, 1).allowed())
                .as("a refund of the previous window frees nothing in this one").isFalse();
    }

    @Test
    void theWindowIsOneKeyExpiringWhenItEnds() {
        assertThat(state(backend, name, THREE_PER_MINUTE)).isEqualTo(new LimitState(3, Duration.ZERO));
        acquire(backend, name, THREE_PER_MINUTE, 1);

        assertThat(redis.keys("*")).containsExactly(LimiterNaming.valueKey(name));
        long ttl = Long.parseLong(String.valueOf(redis.command("PTTL", LimiterNaming.valueKey(name))));
        assertThat(ttl).isBetween(1L, 50_000L);
        assertThat(state(backend, name, THREE_PER_MINUTE)).isEqualTo(new LimitState(2, Duration.ofSeconds(50)));
    }
}
