package io.github.redissonratelimit.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

import io.github.redissonratelimit.RateLimitBackendUnavailableException;
import io.github.redissonratelimit.RateLimitBackendUnavailableException.Reason;
import io.github.redissonratelimit.annotation.BackendErrorPolicy;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.LimitState;

/**
 * Across the switch: when an outage starts, this instance may take again the permits of its grants that left the
 * window after it sent the earliest call Redis gave no decision (on any limiter), of those before only its part of a
 * tenth of the rate; after the outage, until the grants made in memory (here or by the other instances) leave the
 * window, every limiter keeps to the share, whether it was decided in memory here or not, before Redis is asked and
 * when it grants; but for a limiter Redis answered while it gave a later call no decision (another master).
 */
class LocalFallbackHoldTest {

    private static final LimitSpec FIVE_PER_MINUTE = new LimitSpec(5, Duration.ofMinutes(1), RateLimitMode.OVERALL);
    private static final LimitSpec TEN_PER_MINUTE = new LimitSpec(10, Duration.ofMinutes(1), RateLimitMode.OVERALL);

    private final AtomicLong now = new AtomicLong(1_000_000_000L);

    private LocalFallback fallback(int rank) {
        return new LocalFallback(InstanceCount.fixed(2, rank), 100, Duration.ofSeconds(1), now::get);
    }

    private void advance(Duration duration) {
        now.addAndGet(duration.toNanos());
    }

    @Test
    void aLimiterNotDecidedInMemoryHereKeepsToTheShareAfterAnotherOneWas() {
        LocalFallback fallback = fallback(1); // share 2 of 5
        fallback.answeredByRedis("rl:{v}", FIVE_PER_MINUTE, 1, Decision.allow());
        fallback.answeredByRedis("rl:{v}", FIVE_PER_MINUTE, 1, Decision.allow());
        assertThat(fallback.rejectionBeforeRedis("rl:{v}", FIVE_PER_MINUTE, 1)).as("no outage yet").isNull();
        advance(Duration.ofSeconds(1));
        fallback.decide("rl:{u}", FIVE_PER_MINUTE, 1); // Redis does not answer: the other instance may grant v in memory
        advance(Duration.ofSeconds(1));

        Decision held = fallback.rejectionBeforeRedis("rl:{v}", FIVE_PER_MINUTE, 1);
        assertThat(held).as("Redis's 2 grants fill the share of v").isNotNull();
        assertThat(held.allowed()).isFalse();
        assertThat(held.retryAfter()).isEqualTo(Duration.ofSeconds(58));
        assertThat(fallback.rejectionBeforeRedis("rl:{w}", FIVE_PER_MINUTE, 2)).as("an unknown limiter: the share").isNull();
        assertThat(fallback.rejectionBeforeRedis("rl:{w}", FIVE_PER_MINUTE, 3)).as("more than the share").isNotNull();
        advance(Duration.ofSeconds(59)); // the decision in memory is an interval old
        assertThat(fallback.rejectionBeforeRedis("rl:{w}", FIVE_PER_MINUTE, 3)).as("Redis decides alone").isNull();
    }

    @Test
    void aGrantOfRedisThatDoesNotFitTheShareAfterAnOutageIsRejectedInstead() {
        LocalFallback fallback = fallback(0); // share 3 of 5
        for (int i = 0; i < 3; i++) {
            assertThat(fallback.decide("rl:{u}", FIVE_PER_MINUTE, 1).allowed()).isTrue();
        }
        advance(Duration.ofSeconds(1));
        // a call sent before the outage was noticed, answered after the grants made in memory meanwhile
        Decision granted = Decision.allow();
        Decision kept = fallback.answeredByRedis("rl:{u}", FIVE_PER_MINUTE, 1, granted);
        assertThat(kept.allowed()).as("the share is full").isFalse();
        assertThat(kept.local()).isTrue();
        assertThat(kept.retryAfter()).isEqualTo(Duration.ofSeconds(59));
        advance(Duration.ofSeconds(59));
        assertThat(fallback.answeredByRedis("rl:{u}", FIVE_PER_MINUTE, 1, granted)).as("Redis decides alone")
                .isSameAs(granted);
        assertThat(fallback.answeredByRedis("rl:{u}", FIVE_PER_MINUTE, 3, granted)).isSameAs(granted);
    }

    @Test
    void ownGrantsThatLeftTheWindowBeforeTheCallRedisDidNotAnswerAreNotTakenAgainInMemory() {
        LocalFallback fallback = fallback(0); // share 3 of 5
        fallback.answeredByRedis("rl:{u}", FIVE_PER_MINUTE, 1, Decision.allow(new LimitState(4, Duration.ZERO)));
        advance(Duration.ofSeconds(30));
        // the other instance holds 3: this instance may hold its 2 grants, and none of the free permits
        fallback.answeredByRedis("rl:{u}", FIVE_PER_MINUTE, 1, Decision.allow(new LimitState(0, Duration.ZERO)));
        advance(Duration.ofSeconds(31)); // the first grant left the window: Redis may have given its permit away
        long asked = now.get();
        advance(Duration.ofSeconds(1)); // then Redis gave this call no decision
        assertThat(fallback.decide("rl:{u}", FIVE_PER_MINUTE, 1, asked).allowed()).as("not this instance's to take")
                .isFalse();
        advance(Duration.ofSeconds(28)); // the cap of Redis's last answer ended
        assertThat(fallback.decide("rl:{u}", FIVE_PER_MINUTE, 1).allowed()).as("then the share").isTrue();
    }

    @Test
    void ownGrantsThatLeftTheWindowAfterTheCallRedisDidNotAnswerAreTakenAgainInMemory() {
        LocalFallback fallback = fallback(0); // share 3 of 5
        twoGrantsHalfAMinuteApart(fallback, "rl:{u}"); // Redis left 4 free, then none
        long asked = now.get();
        advance(Duration.ofSeconds(32)); // no answer since the call: nobody got the permit of the first grant
        assertThat(fallback.decide("rl:{u}", FIVE_PER_MINUTE, 1, asked).allowed()).isTrue();
        assertThat(fallback.decide("rl:{u}", FIVE_PER_MINUTE, 1).allowed()).as("the cap: 2").isFalse();
    }

    @Test
    void throughThePolicyACallRedisGaveNoDecisionCountsFromWhenItWasSentAsTheBackendTells() {
        LocalFallback fallback = fallback(0); // share 3 of 5
        twoGrantsHalfAMinuteApart(fallback, "rl:{u}"); // Redis left 4 free, then none
        Duration waited = Duration.ofSeconds(32);
        LocalOutagePolicy policy = new LocalOutagePolicy(request -> {
            advance(waited); // no decision until after the first grant left the window: nobody got its permit
            return CompletableFuture.failedFuture(new RateLimitBackendUnavailableException(request.limiterName(),
                    Reason.TIMEOUT, Duration.ofSeconds(1), waited, "Redis did not answer", null));
        }, fallback);
        AcquireRequest request = new AcquireRequest("rl:{u}", FIVE_PER_MINUTE, 1, BackendErrorPolicy.LOCAL, false,
                Duration.ZERO);

        Decision decision = policy.acquire(request).toCompletableFuture().join();
        assertThat(decision.allowed()).as("sent before the first grant left: its permit is this instance's").isTrue();
        assertThat(decision.local()).isTrue();
    }

    @Test
    void theOutageStartsWhenTheEarliestCallRedisGaveNoDecisionWasSentOnAnyLimiter() {
        LocalFallback fallback = fallback(0); // share 3 of 5
        twoGrantsHalfAMinuteApart(fallback, "rl:{u}"); // Redis left 4 free, then none
        advance(Duration.ofSeconds(29));
        long firstAsked = now.get(); // a call on another limiter, to which Redis gives no decision
        advance(Duration.ofSeconds(2));
        assertThat(fallback.decide("rl:{x}", FIVE_PER_MINUTE, 1, firstAsked).allowed()).isTrue();
        // the first grant of u left the window after that call was sent: nobody got its permit from Redis
        assertThat(fallback.decide("rl:{u}", FIVE_PER_MINUTE, 1, now.get()).allowed()).as("held 1, cap 2").isTrue();
        assertThat(fallback.decide("rl:{u}", FIVE_PER_MINUTE, 1, now.get()).allowed()).as("the cap").isFalse();

        advance(Duration.ofSeconds(2));
        fallback.redisAnswered(); // no decision in memory for longer than the quiet period: the outage is over
        twoGrantsHalfAMinuteApart(fallback, "rl:{v}"); // Redis left 4 free, then none
        advance(Duration.ofSeconds(31)); // the first grant of v left the window before the next outage
        assertThat(fallback.decide("rl:{v}", FIVE_PER_MINUTE, 1, now.get()).allowed())
                .as("the next outage starts with its own first call, not the last outage's").isFalse();
    }

    @Test
    void ofItsGrantsThatLeftTheWindowBeforeTheOutageAnInstanceTakesAgainItsPartOfATenthOfTheRate() {
        LocalFallback first = fallback(0); // share 5 of 10, and the one permit of the tenth
        LocalFallback second = fallback(1); // share 5 of 10, none of the tenth
        for (LocalFallback fallback : List.of(first, second)) {
            fallback.answeredByRedis("rl:{u}", TEN_PER_MINUTE, 2, Decision.allow(new LimitState(6, Duration.ZERO)));
        }
        advance(Duration.ofSeconds(30));
        for (LocalFallback fallback : List.of(first, second)) {
            fallback.answeredByRedis("rl:{u}", TEN_PER_MINUTE, 1, Decision.allow(new LimitState(0, Duration.ZERO)));
        }
        advance(Duration.ofSeconds(31)); // two grants of each left the window: the other one may have got their permits
        long asked = now.get();
        assertThat(first.decide("rl:{u}", TEN_PER_MINUTE, 1, asked).allowed()).as("1 held, 1 of the tenth").isTrue();
        assertThat(first.decide("rl:{u}", TEN_PER_MINUTE, 1, asked).allowed()).as("no more than the tenth").isFalse();
        assertThat(second.decide("rl:{u}", TEN_PER_MINUTE, 1, asked).allowed()).as("no part of the tenth").isFalse();
    }

    @Test
    void aLimiterRedisAnsweredWhileItGaveAnotherOneNoDecisionIsNotHeldForThisInstancesDecisionsInMemory() {
        LocalFallback fallback = fallback(1); // share 2 of 5
        fallback.decide("rl:{down}", FIVE_PER_MINUTE, 1, now.get(), true); // its master does not answer
        advance(Duration.ofMillis(10));
        Decision granted = Decision.allow();
        fallback.answeredByRedis("rl:{up}", FIVE_PER_MINUTE, 1, granted); // another master does
        fallback.answeredByRedis("rl:{up}", FIVE_PER_MINUTE, 1, granted);
        assertThat(fallback.rejectionBeforeRedis("rl:{up}", FIVE_PER_MINUTE, 1)).as("no call failed since").isNotNull();
        advance(Duration.ofMillis(10));
        fallback.decide("rl:{down}", FIVE_PER_MINUTE, 1, now.get(), true);

        assertThat(fallback.rejectionBeforeRedis("rl:{up}", FIVE_PER_MINUTE, 1)).as("reached in the outage").isNull();
        assertThat(fallback.answeredByRedis("rl:{up}", FIVE_PER_MINUTE, 1, granted)).isSameAs(granted);
        assertThat(fallback.rejectionBeforeRedis("rl:{down}", FIVE_PER_MINUTE, 1)).as("decided in memory").isNotNull();
        assertThat(fallback.rejectionBeforeRedis("rl:{other}", FIVE_PER_MINUTE, 3)).as("not reached").isNotNull();
    }

    @Test
    void aCallAnOpenCircuitRefusedDoesNotShowThatRedisAnsweredDuringTheOutage() {
        LocalFallback fallback = fallback(1); // share 2 of 5
        fallback.decide("rl:{down}", FIVE_PER_MINUTE, 1, now.get(), true);
        advance(Duration.ofMillis(10));
        Decision granted = Decision.allow();
        fallback.answeredByRedis("rl:{up}", FIVE_PER_MINUTE, 1, granted);
        fallback.answeredByRedis("rl:{up}", FIVE_PER_MINUTE, 1, granted);
        advance(Duration.ofMillis(10));
        fallback.decide("rl:{down}", FIVE_PER_MINUTE, 1, now.get(), false); // not sent: the circuit is open

        assertThat(fallback.rejectionBeforeRedis("rl:{up}", FIVE_PER_MINUTE, 1)).isNotNull();
        assertThat(fallback.answeredByRedis("rl:{up}", FIVE_PER_MINUTE, 1, granted).allowed()).isFalse();
    }

    /**
     * What a caller whose calls go to either instance gets when Redis stalls: each instance grants in memory its
     * share less its own grants in the window, so what the caller took on one instance beyond that instance's share
     * before the outage is all it gets above the rate (at most the other instances' shares).
     */
    @Test
    void aCallerGetsAboveTheRateOnlyWhatItTookOnTheOtherInstanceBeyondItsShare() {
        LocalFallback took = fallback(1); // share 2 of 5
        LocalFallback saw = fallback(0); // share 3 of 5
        LocalFallback sawNone = fallback(0); // as the second instance, had the caller's first grant gone elsewhere
        saw.answeredByRedis("rl:{u}", FIVE_PER_MINUTE, 1, Decision.allow(new LimitState(4, Duration.ZERO)));
        for (int free = 3; free >= 0; free--) {
            took.answeredByRedis("rl:{u}", FIVE_PER_MINUTE, 1, Decision.allow(new LimitState(free, Duration.ZERO)));
        }
        advance(Duration.ofSeconds(1));

        assertThat(grantedInMemory(took, 3)).as("4 held from Redis, over its share").isZero();
        assertThat(grantedInMemory(saw, 3)).as("its share less its own grant: 5 + (4 - 2) in all").isEqualTo(2);
        assertThat(grantedInMemory(sawNone, 4)).as("its share: 5 + (5 - 2) at most").isEqualTo(3);
    }

    private static long grantedInMemory(LocalFallback fallback, int calls) {
        long granted = 0;
        for (int i = 0; i < calls; i++) {
            granted += fallback.decide("rl:{u}", FIVE_PER_MINUTE, 1).allowed() ? 1 : 0;
        }
        return granted;
    }

    /**
     * A caller whose calls went mostly to the other instance before an outage: this one's share, claimed in memory
     * while the other already holds the rate, exceeds it. This instance saw one grant (4 left free) or none; the
     * other took every other permit since. Neither can know what the other holds while Redis does not answer;
     * holding back the share of a limiter it did not see take the rate would refuse every new caller in memory for
     * an interval. The contract shows it with callers sent to either instance at random
     * (AlgorithmContract#noCallerSentToEitherInstanceAtRandomGetsMoreThanItsLimitThroughStalls): every excess its runs
     * found is grants in memory on an instance on top of what the caller took on the other before the stall, never
     * grants Redis made after it; what the policy does guarantee is
     * {@link #aCallerGetsAboveTheRateOnlyWhatItTookOnTheOtherInstanceBeyondItsShare}.
     */
    @Test
    @Disabled("known limit of the local policy: an instance cannot know in memory what a caller took on another; "
            + "it gets at most the others' shares on top")
    void aCallerWhoseGrantsWentToTheOtherInstanceGetsNoShareInMemory() {
        LocalFallback saw = fallback(0); // share 3 of 5
        LocalFallback other = fallback(1); // share 2 of 5
        saw.answeredByRedis("rl:{u}", FIVE_PER_MINUTE, 1, Decision.allow(new LimitState(4, Duration.ZERO)));
        for (int free = 3; free >= 0; free--) {
            other.answeredByRedis("rl:{u}", FIVE_PER_MINUTE, 1, Decision.allow(new LimitState(free, Duration.ZERO)));
        }
        LocalFallback sawNone = fallback(1); // as the first instance, had the other one's grants gone to it
        advance(Duration.ofSeconds(1));
        long inMemory = 0;
        long inMemoryOfNone = 0;
        for (int i = 0; i < 3; i++) {
            inMemory += saw.decide("rl:{u}", FIVE_PER_MINUTE, 1).allowed() ? 1 : 0;
            inMemory += other.decide("rl:{u}", FIVE_PER_MINUTE, 1).allowed() ? 1 : 0;
            inMemoryOfNone += sawNone.decide("rl:{u}", FIVE_PER_MINUTE, 1).allowed() ? 1 : 0;
        }
        assertThat(inMemory).as("Redis granted the whole rate: none left for memory").isZero();
        assertThat(inMemoryOfNone).as("nor for an instance that saw no grant").isZero();
    }

    /** Redis granted this instance 1 permit leaving 4 free, and 30 s later 1 more leaving none. */
    private void twoGrantsHalfAMinuteApart(LocalFallback fallback, String limiterName) {
        fallback.answeredByRedis(limiterName, FIVE_PER_MINUTE, 1, Decision.allow(new LimitState(4, Duration.ZERO)));
        advance(Duration.ofSeconds(30));
        fallback.answeredByRedis(limiterName, FIVE_PER_MINUTE, 1, Decision.allow(new LimitState(0, Duration.ZERO)));
    }
}
