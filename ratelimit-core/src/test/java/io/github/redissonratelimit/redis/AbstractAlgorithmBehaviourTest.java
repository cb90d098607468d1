package io.github.redissonratelimit.redis;

import static io.github.redissonratelimit.limiter.BackendCalls.acquire;
import static io.github.redissonratelimit.limiter.BackendCalls.state;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.function.LongFunction;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.redisson.api.RedissonClient;

import io.github.redissonratelimit.annotation.CalendarPeriod;
import io.github.redissonratelimit.annotation.RateLimitAlgorithm;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.algorithm.FixedWindow;
import io.github.redissonratelimit.algorithm.LimitAlgorithm;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.LimitState;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.test.redis.RedisDeployment;

/**
 * What each algorithm of the Redis backend does for one limiter, on a real Redis: its capacity, keys, modes, permits
 * per call, retry-after, state, expiry and recreation. Every test runs for the sliding window, the token bucket (its
 * burst equal to its rate, so that the capacity is the rate), the fixed window aligned to the epoch and one following
 * the calendar's hours in a zone half an hour off UTC; the subclasses run the suite on a
 * standalone server, the cluster and Sentinel, with {@link AbstractAlgorithmCallsTest}'s tests of calls with several
 * limits and of keys.
 * Limits of an hour, so that a fixed window does not end during a test.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractAlgorithmBehaviourTest {

    static final Duration INTERVAL = Duration.ofHours(1);
    /** UTC+05:30: its hours start at half past the hour of UTC, not at the epoch-aligned hours. */
    private static final ZoneId KOLKATA = ZoneId.of("Asia/Kolkata");
    /**
     * How much sooner than expected a wait may end: the time the test itself took since the grants. (A fixed window's
     * end is expected from a clock read after the decision, so its wait may be that much longer.)
     */
    private static final Duration ELAPSED = Duration.ofSeconds(5);

    /** An algorithm of the suite, to declare limits of any rate with. */
    record Algorithm(String name, LongFunction<LimitAlgorithm> ofRate) {

        LimitSpec spec(long rate, RateLimitMode mode) {
            return new LimitSpec(rate, INTERVAL, mode, ofRate.apply(rate));
        }

        LimitSpec spec(long rate) {
            return spec(rate, RateLimitMode.OVERALL);
        }

        /** The wait until {@code missing} permits of a limit of {@code rate} used up just now come back. */
        Duration expectedWait(long missing, long rate) {
            LimitAlgorithm algorithm = ofRate.apply(rate);
            return switch (algorithm.type()) {
                case TOKEN_BUCKET -> INTERVAL.multipliedBy(missing).dividedBy(rate);
                case FIXED_WINDOW -> ((FixedWindow) algorithm).calendar() == CalendarPeriod.NONE
                        ? INTERVAL.minusMillis(System.currentTimeMillis() % INTERVAL.toMillis())
                        : Duration.between(Instant.now(), ((FixedWindow) algorithm).calendar().next(
                                ((FixedWindow) algorithm).calendar().windowStart(ZonedDateTime.now(
                                        ((FixedWindow) algorithm).zone()))));
                default -> INTERVAL;
            };
        }

        @Override
        public String toString() {
            return name;
        }
    }

    static final List<Algorithm> ALGORITHMS = List.of(new Algorithm("sliding window", rate -> LimitAlgorithm.SLIDING_WINDOW),
            new Algorithm("token bucket", LimitAlgorithm::tokenBucket),
            new Algorithm("fixed window", rate -> LimitAlgorithm.fixedWindow()),
            new Algorithm("calendar hour in Asia/Kolkata", rate -> LimitAlgorithm.fixedWindow(CalendarPeriod.HOUR, KOLKATA)));

    final LimiterNaming naming = new LimiterNaming();
    RedissonClient firstClient;
    RedissonClient secondClient;
    RedissonRateLimitBackend first;
    RedissonRateLimitBackend second;

    /** The Redis this suite runs against. */
    protected abstract RedisDeployment redis();

    static Stream<Named<Algorithm>> algorithms() {
        return ALGORITHMS.stream().map(algorithm -> Named.of(algorithm.name(), algorithm));
    }

    @BeforeAll
    void connect() {
        firstClient = redis().newRedissonClient();
        secondClient = redis().newRedissonClient();
        first = new RedissonRateLimitBackend(firstClient);
        second = new RedissonRateLimitBackend(secondClient);
    }

    @AfterAll
    void shutdown() {
        firstClient.shutdown();
        secondClient.shutdown();
    }

    @BeforeEach
    void flushAwayFromAWindowsEnd() throws InterruptedException {
        redis().flushAll();
        long halfHour = INTERVAL.toMillis() / 2; // the windows end on the hour or at half past
        long left = halfHour - System.currentTimeMillis() % halfHour;
        if (left < 10_000) {
            Thread.sleep(left + 100);
        }
    }

    static long allowed(RateLimitBackend backend, String name, LimitSpec spec, long permits, int calls) {
        return IntStream.range(0, calls).filter(i -> acquire(backend, name, spec, permits).allowed()).count();
    }

    static void assertWait(Duration wait, Duration expected) {
        assertThat(wait).isPositive().isLessThanOrEqualTo(INTERVAL)
                .isBetween(expected.minus(ELAPSED), expected.plus(ELAPSED));
    }

    @ParameterizedTest
    @MethodSource("algorithms")
    void allowsItsCapacityThenRejectsUntilAPermitComesBack(Algorithm algorithm) {
        String name = naming.limiterName("capacity");
        LimitSpec five = algorithm.spec(5);

        assertThat(allowed(first, name, five, 1, 8)).isEqualTo(5);
        Decision rejected = acquire(first, name, five, 1);

        assertThat(rejected.allowed()).isFalse();
        assertWait(rejected.retryAfter(), algorithm.expectedWait(1, 5));
        assertThat(rejected.state().available()).isZero();
    }

    @ParameterizedTest
    @MethodSource("algorithms")
    void keysAreIndependent(Algorithm algorithm) {
        LimitSpec five = algorithm.spec(5);

        assertThat(allowed(first, naming.limiterName("user:a"), five, 1, 7)).isEqualTo(5);
        assertThat(allowed(first, naming.limiterName("user:b"), five, 1, 7)).isEqualTo(5);
    }

    @ParameterizedTest
    @MethodSource("algorithms")
    void overallIsSharedBetweenRedissonClients(Algorithm algorithm) {
        String name = naming.limiterName("shared");
        LimitSpec five = algorithm.spec(5);

        assertThat(allowed(first, name, five, 1, 3)).isEqualTo(3);
        assertThat(allowed(second, name, five, 1, 5)).isEqualTo(2);
    }

    @ParameterizedTest
    @MethodSource("algorithms")
    void perClientGivesEachRedissonClientItsOwnLimit(Algorithm algorithm) {
        String name = naming.limiterName("per-client");
        LimitSpec perClient = algorithm.spec(3, RateLimitMode.PER_CLIENT);

        assertThat(allowed(first, name, perClient, 1, 5)).isEqualTo(3);
        assertThat(state(second, name, perClient)).as("the other client's").isEqualTo(new LimitState(3, Duration.ZERO));
        assertThat(state(first, name, perClient).available()).isZero();
        assertThat(allowed(second, name, perClient, 1, 5)).isEqualTo(3);
        Decision rejected = acquire(first, name, perClient, 1);
        assertThat(rejected.allowed()).isFalse();
        assertWait(rejected.retryAfter(), algorithm.expectedWait(1, 3));
    }

    @ParameterizedTest
    @MethodSource("algorithms")
    void permitsPerCallAreCountedAndWaitedFor(Algorithm algorithm) {
        String name = naming.limiterName("bulk");
        LimitSpec ten = algorithm.spec(10);

        assertThat(allowed(first, name, ten, 4, 5)).isEqualTo(2);
        Decision four = acquire(first, name, ten, 4);
        assertThat(four.allowed()).isFalse();
        // a bucket waits until 2 more permits are refilled; the windows until grants leave or the window ends
        assertWait(four.retryAfter(), algorithm.expectedWait(2, 10));
        assertThat(acquire(first, name, ten, 2).allowed()).as("2 permits are left").isTrue();
        Decision one = acquire(first, name, ten, 1);
        assertThat(one.allowed()).isFalse();
        assertWait(one.retryAfter(), algorithm.expectedWait(1, 10));
    }

    @ParameterizedTest
    @MethodSource("algorithms")
    void theStateAfterGrantsTellsThePermitsLeftAndWhenTheNextComesBack(Algorithm algorithm) {
        String name = naming.limiterName("state");
        LimitSpec five = algorithm.spec(5);
        assertThat(state(first, name, five)).as("untouched").isEqualTo(new LimitState(5, Duration.ZERO));

        assertThat(allowed(first, name, five, 1, 2)).isEqualTo(2);

        LimitState state = state(second, name, five);
        assertThat(state.available()).isEqualTo(3);
        assertWait(state.nextPermitIn(), algorithm.expectedWait(1, 5));
    }

    @ParameterizedTest
    @MethodSource("algorithms")
    void everyKeyWrittenExpires(Algorithm algorithm) {
        String name = naming.limiterName("expiring");
        acquire(first, name, algorithm.spec(5), 2);
        acquire(first, name, algorithm.spec(5, RateLimitMode.PER_CLIENT), 3);

        List<String> keys = redis().keys(name + "*");
        assertThat(keys).isNotEmpty();
        for (String key : keys) {
            long ttl = redis().number("PTTL", key);
            assertThat(ttl).as("TTL of %s", key).isPositive().isLessThanOrEqualTo(2 * INTERVAL.toMillis());
            if (algorithm != ALGORITHMS.get(0) && key.contains(":value")) {
                // a window's state lives until it ends; a bucket's until it is full again, and at most an eighth of
                // its refill time (the interval: burst = rate) longer, so that its expiry is set again only once per
                // eighth of its permits (read just after)
                Duration untilFull = algorithm.expectedWait(key.endsWith(":value") ? 2 : 3, 5);
                Duration latest = algorithm.spec(5).algorithm().type() == RateLimitAlgorithm.TOKEN_BUCKET
                        ? untilFull.plus(INTERVAL.dividedBy(8)) : untilFull;
                assertThat(Duration.ofMillis(ttl)).as("TTL of %s", key)
                        .isGreaterThanOrEqualTo(untilFull.minusSeconds(1)).isLessThanOrEqualTo(latest.plusSeconds(1));
            }
        }
    }

    @ParameterizedTest
    @MethodSource("algorithms")
    void recreatesALimiterWhoseKeysDisappeared(Algorithm algorithm) {
        String name = naming.limiterName("flushed");
        LimitSpec five = algorithm.spec(5);
        assertThat(allowed(first, name, five, 1, 5)).isEqualTo(5);

        redis().flushAll(); // as after expiry or a failover to an empty replica

        assertThat(allowed(first, name, five, 1, 7)).isEqualTo(5);
        assertThat(allowed(second, name, five, 1, 2)).isZero();
    }
}
