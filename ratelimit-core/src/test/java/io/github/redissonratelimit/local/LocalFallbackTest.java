package io.github.redissonratelimit.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.algorithm.LimitAlgorithm;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.LimitState;

/** The local outage policy's arithmetic, on a clock the test moves. */
class LocalFallbackTest {

    private static final LimitSpec FIVE_PER_MINUTE = new LimitSpec(5, Duration.ofMinutes(1), RateLimitMode.OVERALL);

    private final AtomicLong now = new AtomicLong(1_000_000_000L);

    private LocalFallback fallback(int instances, int rank) {
        return new LocalFallback(InstanceCount.fixed(instances, rank), 100, Duration.ofSeconds(1), now::get);
    }

    private void advance(Duration duration) {
        now.addAndGet(duration.toNanos());
    }

    @Test
    void theSharesOfAllInstancesAddUpToTheRate() {
        for (int instances = 1; instances <= 7; instances++) {
            for (long rate : new long[] { 1, 2, 5, 10, 99, 100 }) {
                long total = 0;
                for (int rank = 0; rank < instances; rank++) {
                    long share = InstanceCount.fixed(instances, rank).shareOf(rate);
                    assertThat(share).isBetween(rate / instances, rate / instances + 1);
                    total += share;
                }
                assertThat(total).as("rate %d over %d instances", rate, instances).isEqualTo(rate);
            }
        }
    }

    @Test
    void aPerClientLimitKeepsItsWholeRateOnEachInstance() {
        LimitSpec perClient = new LimitSpec(5, Duration.ofMinutes(1), RateLimitMode.PER_CLIENT);
        assertThat(fallback(4, 3).shareOf(perClient)).isEqualTo(5);
        assertThat(fallback(4, 3).shareOf(FIVE_PER_MINUTE)).isEqualTo(1);
    }

    /** A bucket lets its burst out at once: shared in memory like a window of it, not of its rate. */
    @Test
    void aTokenBucketIsSharedInMemoryByItsBurstWhenSmallerThanItsRate() {
        LimitSpec bucket = new LimitSpec(10, Duration.ofMinutes(1), RateLimitMode.OVERALL, LimitAlgorithm.tokenBucket(4));
        assertThat(fallback(2, 0).shareOf(bucket)).isEqualTo(2);
        LocalFallback fallback = fallback(2, 1);
        long granted = 0;
        for (int i = 0; i < 5; i++) {
            granted += fallback.decide("rl:{u}", bucket, 1).allowed() ? 1 : 0;
        }
        assertThat(granted).as("two instances together at most the burst, 4, at once").isEqualTo(2);
    }

    @Test
    void withoutRedisAnInstanceGrantsItsShareThenRejectsUntilTheOldestGrantLeavesTheWindow() {
        LocalFallback fallback = fallback(2, 0); // share 3 of 5
        for (int i = 0; i < 3; i++) {
            assertThat(fallback.decide("rl:{u}", FIVE_PER_MINUTE, 1).allowed()).isTrue();
            advance(Duration.ofSeconds(10));
        }
        Decision rejected = fallback.decide("rl:{u}", FIVE_PER_MINUTE, 1);
        assertThat(rejected.allowed()).isFalse();
        assertThat(rejected.retryAfter()).isEqualTo(Duration.ofSeconds(30)); // the first grant is 30 s old
        advance(Duration.ofSeconds(30));
        assertThat(fallback.decide("rl:{u}", FIVE_PER_MINUTE, 1).allowed()).isTrue();
        assertThat(fallback.decide("rl:{u}", FIVE_PER_MINUTE, 1).allowed()).isFalse();
        assertThat(fallback.getAllowedCount()).isEqualTo(4);
        assertThat(fallback.getRejectedCount()).isEqualTo(2);
    }

    @Test
    void theGrantsRedisMadeThisInstanceCountAgainstItsShareWhenRedisGoesAway() {
        LocalFallback fallback = fallback(2, 1); // share 2 of 5
        fallback.answeredByRedis("rl:{u}", FIVE_PER_MINUTE, 1, Decision.allow());
        advance(Duration.ofSeconds(20));
        fallback.answeredByRedis("rl:{u}", FIVE_PER_MINUTE, 1, Decision.allow());
        advance(Duration.ofSeconds(1));
        assertThat(fallback.decide("rl:{u}", FIVE_PER_MINUTE, 1).allowed())
                .as("the window is still full of the grants Redis made").isFalse();
        advance(Duration.ofSeconds(39)); // the first Redis grant leaves the window
        assertThat(fallback.decide("rl:{u}", FIVE_PER_MINUTE, 1).allowed()).isTrue();
        assertThat(fallback.decide("rl:{u}", FIVE_PER_MINUTE, 1).allowed()).isFalse();
    }

    @Test
    void aCallForMorePermitsThanTheShareIsRejectedForAWholeInterval() {
        LocalFallback fallback = fallback(5, 4); // share 1 of 5
        Decision decision = fallback.decide("rl:{u}", FIVE_PER_MINUTE, 2);
        assertThat(decision.allowed()).isFalse();
        assertThat(decision.retryAfter()).isEqualTo(Duration.ofMinutes(1));
    }

    @Test
    void afterTheOutageTheShareHoldsUntilTheLocalGrantsLeaveTheWindowThenRedisDecidesAlone() {
        LocalFallback fallback = fallback(2, 0); // share 3 of 5
        assertThat(fallback.rejectionBeforeRedis("rl:{u}", FIVE_PER_MINUTE, 1)).as("nothing known").isNull();
        for (int i = 0; i < 3; i++) {
            assertThat(fallback.decide("rl:{u}", FIVE_PER_MINUTE, 1).allowed()).isTrue();
        }
        advance(Duration.ofSeconds(5)); // Redis is back
        Decision before = fallback.rejectionBeforeRedis("rl:{u}", FIVE_PER_MINUTE, 1);
        assertThat(before).as("Redis does not know the 3 local grants").isNotNull();
        assertThat(before.allowed()).isFalse();
        assertThat(before.retryAfter()).isEqualTo(Duration.ofSeconds(55));
        advance(Duration.ofSeconds(55));
        assertThat(fallback.rejectionBeforeRedis("rl:{u}", FIVE_PER_MINUTE, 1)).isNull();
    }

    @Test
    void aGrantGivenBackFreesItsPermits() {
        LocalFallback fallback = fallback(1, 0);
        LimitSpec two = new LimitSpec(2, Duration.ofMinutes(1), RateLimitMode.OVERALL);
        assertThat(fallback.decide("rl:{u}", two, 1).allowed()).isTrue();
        assertThat(fallback.decide("rl:{u}", two, 1).allowed()).isTrue();
        assertThat(fallback.decide("rl:{u}", two, 1).allowed()).isFalse();
        fallback.released("rl:{u}", 1);
        assertThat(fallback.decide("rl:{u}", two, 1).allowed()).isTrue();
    }

    @Test
    void itIsActiveFromTheFirstLocalDecisionUntilRedisAnswersAfterAQuietSecond() {
        LocalFallback fallback = fallback(2, 0);
        assertThat(fallback.isActive()).isFalse();
        fallback.decide("rl:{u}", FIVE_PER_MINUTE, 1);
        fallback.decide("rl:{v}", FIVE_PER_MINUTE, 1);
        assertThat(fallback.isActive()).isTrue();
        assertThat(fallback.getActivationCount()).isEqualTo(1);
        fallback.redisAnswered();
        assertThat(fallback.isActive()).as("local decisions a moment ago").isTrue();
        advance(Duration.ofMillis(1_001));
        fallback.redisAnswered();
        assertThat(fallback.isActive()).isFalse();
        fallback.decide("rl:{u}", FIVE_PER_MINUTE, 1);
        assertThat(fallback.getActivationCount()).isEqualTo(2);
    }

    @Test
    void grantsBeyondTheShareAreNotKeptYetStillDecide() {
        LocalFallback fallback = fallback(1, 0);
        LimitSpec three = new LimitSpec(3, Duration.ofMinutes(1), RateLimitMode.OVERALL);
        for (int i = 0; i < 10; i++) { // Redis granted this instance more than its share (others were idle)
            fallback.answeredByRedis("rl:{u}", three, 1, Decision.allow());
            advance(Duration.ofSeconds(1));
        }
        // the newest three grants are 3, 2 and 1 s old: the window is full until the oldest of them leaves it
        Decision rejected = fallback.decide("rl:{u}", three, 1);
        assertThat(rejected.allowed()).isFalse();
        assertThat(rejected.retryAfter()).isEqualTo(Duration.ofSeconds(57));
    }

    private static Decision redisGranted(long free) {
        return Decision.allow(new LimitState(free, Duration.ofSeconds(1)));
    }

    private static Decision redisRejected(long free) {
        return Decision.reject(Duration.ofSeconds(1), new LimitState(free, Duration.ofSeconds(1)));
    }

    @Test
    void anInstanceThatTookMoreThanItsShareFromRedisLeavesTheOthersNoExtraRoom() {
        LimitSpec ten = new LimitSpec(10, Duration.ofMinutes(1), RateLimitMode.OVERALL);
        LocalFallback busy = fallback(2, 0); // share 5 of 10
        LocalFallback quiet = fallback(2, 1); // share 5 of 10
        // Redis's grants went 7 to one instance, 3 to the other, 10 s apart: the window is full
        long free = 10;
        for (int i = 0; i < 10; i++) {
            free--;
            if (i % 3 == 2) {
                quiet.answeredByRedis("rl:{u}", ten, 1, redisGranted(free));
            }
            else {
                busy.answeredByRedis("rl:{u}", ten, 1, redisGranted(free));
            }
            advance(Duration.ofSeconds(1));
        }
        quiet.answeredByRedis("rl:{u}", ten, 1, redisRejected(0));
        busy.answeredByRedis("rl:{u}", ten, 1, redisRejected(0));
        // Redis goes away; before the first grant leaves the window, the limiter is full
        int granted = 0;
        for (int i = 0; i < 20; i++) {
            granted += quiet.decide("rl:{u}", ten, 1).allowed() ? 1 : 0;
            granted += busy.decide("rl:{u}", ten, 1).allowed() ? 1 : 0;
        }
        assertThat(granted).as("the quiet instance's 3 grants leave it 2 short of its share, but Redis had no permit "
                + "free: the busy one holds them").isZero();
        // as the grants leave the window, each instance takes back its own, up to its share: 5 + 3
        for (int second = 11; second < 70; second++) {
            advance(Duration.ofSeconds(1));
            granted += quiet.decide("rl:{u}", ten, 1).allowed() ? 1 : 0;
            granted += busy.decide("rl:{u}", ten, 1).allowed() ? 1 : 0;
        }
        assertThat(granted).as("within the interval after Redis's last answer").isEqualTo(8);
        // then the share alone bounds each: the quiet instance takes the 2 the busy one could not take back
        advance(Duration.ofSeconds(1));
        for (int i = 0; i < 3; i++) {
            granted += quiet.decide("rl:{u}", ten, 1).allowed() ? 1 : 0;
            granted += busy.decide("rl:{u}", ten, 1).allowed() ? 1 : 0;
        }
        assertThat(granted).as("the whole rate in the interval after the switch, never more").isEqualTo(10);
    }

    @Test
    void withoutTheFreePermitsOfRedisTheShareAloneBoundsTheInstance() {
        LimitSpec ten = new LimitSpec(10, Duration.ofMinutes(1), RateLimitMode.OVERALL);
        LocalFallback quiet = fallback(2, 1);
        for (int i = 0; i < 3; i++) {
            quiet.answeredByRedis("rl:{u}", ten, 1, Decision.allow()); // a backend that tells no state
        }
        int granted = 0;
        for (int i = 0; i < 10; i++) {
            granted += quiet.decide("rl:{u}", ten, 1).allowed() ? 1 : 0;
        }
        assertThat(granted).isEqualTo(2);
    }

    @Test
    void theFreePermitsBoundTheShareForOneIntervalAfterRedisLastAnswered() {
        LocalFallback fallback = fallback(2, 0); // share 3 of 5
        fallback.answeredByRedis("rl:{u}", FIVE_PER_MINUTE, 1, redisGranted(1)); // 3 held by the other instance
        Decision rejected = fallback.decide("rl:{u}", FIVE_PER_MINUTE, 1);
        assertThat(rejected.allowed()).as("1 held + 1 free * 3/5 rounds down to 1").isFalse();
        assertThat(rejected.retryAfter()).isEqualTo(Duration.ofMinutes(1)); // when its own grant leaves the window
        advance(Duration.ofMinutes(1));
        assertThat(fallback.decide("rl:{u}", FIVE_PER_MINUTE, 1).allowed()).isTrue();
        assertThat(fallback.decide("rl:{u}", FIVE_PER_MINUTE, 1).allowed()).isTrue();
        assertThat(fallback.decide("rl:{u}", FIVE_PER_MINUTE, 1).allowed()).isTrue();
        assertThat(fallback.decide("rl:{u}", FIVE_PER_MINUTE, 1).allowed()).as("then the share").isFalse();
    }

    @Test
    void afterTheOutageTheShareHoldsUntilTheOtherInstancesInMemoryGrantsLeaveTheWindow() {
        AtomicLong othersInMemoryAt = new AtomicLong();
        AtomicBoolean othersInMemory = new AtomicBoolean();
        InstanceCount two = new InstanceCount() {

            @Override
            public int instances() {
                return 2;
            }

            @Override
            public int rank() {
                return 0;
            }

            @Override
            public boolean othersDecidedInMemory() {
                return othersInMemory.get();
            }

            @Override
            public long othersInMemoryAt() {
                return othersInMemoryAt.get();
            }

            @Override
            public String source() {
                return "test";
            }
        };
        LocalFallback fallback = new LocalFallback(two, 100, Duration.ofSeconds(1), now::get);
        for (int i = 0; i < 3; i++) {
            assertThat(fallback.decide("rl:{u}", FIVE_PER_MINUTE, 1).allowed()).isTrue();
        }
        assertThat(fallback.millisSinceLastLocalGrant()).isZero();
        // this instance is back; the other goes on granting in memory for 20 s more
        advance(Duration.ofSeconds(20));
        othersInMemory.set(true);
        othersInMemoryAt.set(now.get());
        advance(Duration.ofSeconds(41)); // this instance's local grants left the window
        assertThat(fallback.millisSinceLastLocalGrant()).isEqualTo(61_000);
        for (int i = 0; i < 3; i++) {
            assertThat(fallback.rejectionBeforeRedis("rl:{u}", FIVE_PER_MINUTE, 1)).isNull();
            fallback.answeredByRedis("rl:{u}", FIVE_PER_MINUTE, 1, Decision.allow());
        }
        Decision held = fallback.rejectionBeforeRedis("rl:{u}", FIVE_PER_MINUTE, 1);
        assertThat(held).as("held to the share: Redis does not know the other's grants of 41 s ago").isNotNull();
        assertThat(held.allowed()).isFalse();
        advance(Duration.ofSeconds(20)); // the other's last grant in memory left the window
        for (int i = 0; i < 4; i++) {
            assertThat(fallback.rejectionBeforeRedis("rl:{u}", FIVE_PER_MINUTE, 1)).as("Redis decides alone").isNull();
            fallback.answeredByRedis("rl:{u}", FIVE_PER_MINUTE, 1, Decision.allow());
        }
    }
}
