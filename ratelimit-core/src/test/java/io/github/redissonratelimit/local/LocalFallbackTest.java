package io.github.redissonratelimit.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitSpec;

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
        fallback.grantedByRedis("rl:{u}", FIVE_PER_MINUTE, 1);
        advance(Duration.ofSeconds(20));
        fallback.grantedByRedis("rl:{u}", FIVE_PER_MINUTE, 1);
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
            fallback.grantedByRedis("rl:{u}", three, 1);
            advance(Duration.ofSeconds(1));
        }
        // the newest three grants are 3, 2 and 1 s old: the window is full until the oldest of them leaves it
        Decision rejected = fallback.decide("rl:{u}", three, 1);
        assertThat(rejected.allowed()).isFalse();
        assertThat(rejected.retryAfter()).isEqualTo(Duration.ofSeconds(57));
    }
}
