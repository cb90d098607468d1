package io.github.redissonratelimit.contract;

import static io.github.redissonratelimit.limiter.BackendCalls.acquire;
import static io.github.redissonratelimit.limiter.BackendCalls.await;
import static io.github.redissonratelimit.limiter.BackendCalls.state;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redissonratelimit.algorithm.LimitAlgorithm;
import io.github.redissonratelimit.algorithm.TokenBucket;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.LimitState;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.redis.BackendOptions;
import io.github.redissonratelimit.redis.LimiterClock;
import io.github.redissonratelimit.redis.RedissonRateLimitBackend;
import io.github.redissonratelimit.test.redis.FreshRedis;

/**
 * A token bucket's refund gives back only what the grant still holds, and only to the state that counted it: a state
 * started afresh (lost, or expired and written again) is given nothing, and whatever was given back in between, the
 * grants kept (not given back) stay within the bucket's law. On a clock the test moves, against a real Redis.
 */
class TokenBucketRefundTest {

    private static final LimitSpec EIGHT_A_SECOND = spec(8, Duration.ofSeconds(1), 3);
    /**
     * Rates and bursts of the property test, one of them of a fractional emission interval (33.3 s). Slow ones: the
     * test's clock steps by up to a permit's time, while the keys expire by Redis's own clock, so that a key never
     * expires (a loss of state) before the test's clock says the bucket is full again.
     */
    private static final List<LimitSpec> SPECS = List.of(spec(3, Duration.ofSeconds(100), 4),
            spec(8, Duration.ofSeconds(1000), 3), spec(5, Duration.ofSeconds(1000), 5),
            spec(2, Duration.ofSeconds(1000), 3));
    private static final int SEQUENCES = Integer.getInteger("bucket.sequences", 120);
    private static final int STEPS = 100;

    @RegisterExtension
    final FreshRedis fresh = new FreshRedis();
    private final AtomicLong millis = new AtomicLong(1_700_000_000_000L);
    private final LimiterNaming naming = new LimiterNaming();
    private final String name = naming.limiterName("refund:1");

    private static LimitSpec spec(long rate, Duration interval, int burst) {
        return new LimitSpec(rate, interval, RateLimitMode.OVERALL, LimitAlgorithm.tokenBucket(burst));
    }

    /** A backend deciding on the test's clock, as an instance with this config would. */
    private RedissonRateLimitBackend onTestClock() {
        return new RedissonRateLimitBackend(fresh.newClient(), BackendOptions.DEFAULTS.withClock(LimiterClock.CLIENT),
                () -> Instant.ofEpochMilli(millis.get()));
    }

    @Test
    void aRefundAfterTheStateWasLostCreditsNothing() {
        RedissonRateLimitBackend backend = onTestClock();
        Decision before = acquire(backend, name, EIGHT_A_SECOND, 3);
        assertThat(before.allowed()).isTrue();
        fresh.endpoint().command("FLUSHALL");
        millis.addAndGet(100);
        assertThat(acquire(backend, name, EIGHT_A_SECOND, 3).allowed()).as("a fresh bucket").isTrue();

        await(backend.release(AcquireRequest.of(name, EIGHT_A_SECOND, 3), before));

        assertThat(acquire(backend, name, EIGHT_A_SECOND, 1).allowed()).as("the fresh bucket holds 3 already")
                .isFalse();
    }

    @Test
    void aRefundAfterTheKeyExpiredAndAFreshStateStartedCreditsNothing() throws InterruptedException {
        RedissonRateLimitBackend backend = onTestClock();
        Decision before = acquire(backend, name, EIGHT_A_SECOND, 3);
        assertThat(before.allowed()).isTrue();
        awaitExpiry(LimiterNaming.valueKey(name)); // 375 ms of Redis's own time: the test's clock stands still
        millis.addAndGet(100);
        assertThat(acquire(backend, name, EIGHT_A_SECOND, 3).allowed()).as("a fresh bucket").isTrue();

        await(backend.release(AcquireRequest.of(name, EIGHT_A_SECOND, 3), before));

        assertThat(acquire(backend, name, EIGHT_A_SECOND, 1).allowed()).as("the fresh bucket holds 3 already")
                .isFalse();
    }

    private void awaitExpiry(String key) throws InterruptedException {
        for (int i = 0; i < 500 && ((Number) fresh.endpoint().command("EXISTS", key)).longValue() == 1; i++) {
            Thread.sleep(20);
        }
        assertThat(((Number) fresh.endpoint().command("EXISTS", key)).longValue()).as("the key expired").isZero();
    }

    /**
     * Random sequences of grants (of any size up to the burst, or all that is free), refunds of one of the last three
     * grants kept, and steps of the clock: the grants kept hold the law, at most burst + T x rate / interval over any
     * span T; and a grant given back right after it was made, nothing in between, leaves the bucket as it was (the
     * refund is not simply refused). {@code -Dbucket.seed=<seed>} replays a run, {@code -Dbucket.sequences=<n>} makes
     * n sequences (120, about 4 s; a refund that credits a grant's time twice fails the law in about 4 % of them).
     */
    @Test
    void grantsKeptHoldTheLawWhateverWasGivenBack() {
        long seed = Long.getLong("bucket.seed", System.nanoTime());
        try {
            run(new Random(seed), onTestClock());
        }
        catch (AssertionError failure) {
            throw new AssertionError("seed " + seed + " (-Dbucket.seed=" + seed + " replays it): "
                    + failure.getMessage(), failure);
        }
    }

    private void run(Random random, RedissonRateLimitBackend backend) {
        for (int sequence = 0; sequence < SEQUENCES; sequence++) {
            LimitSpec spec = SPECS.get(sequence % SPECS.size());
            String limiter = naming.limiterName("refund:" + sequence);
            int burst = (int) ((TokenBucket) spec.algorithm()).burst();
            long emissionMillis = (spec.interval().toMillis() + spec.rate() - 1) / spec.rate();
            List<Grant> kept = new ArrayList<>();
            List<String> steps = new ArrayList<>();
            for (int step = 0; step < STEPS; step++) {
                double choice = random.nextDouble();
                if (choice < 0.25) {
                    grant(backend, limiter, spec, 1 + random.nextInt(burst), kept, steps);
                }
                else if (choice < 0.30) {
                    givenBackAtOnce(backend, limiter, spec, 1 + random.nextInt(burst), steps);
                }
                else if (choice < 0.55) {
                    long free = state(backend, limiter, spec).available();
                    if (free > 0) {
                        grant(backend, limiter, spec, free, kept, steps);
                    }
                }
                else if (choice < 0.85) {
                    if (!kept.isEmpty()) {
                        Grant given = kept.remove(kept.size() - 1 - random.nextInt(Math.min(3, kept.size())));
                        await(backend.release(AcquireRequest.of(limiter, spec, given.permits()), given.decision()));
                        steps.add("give back " + given.permits() + " of " + given.at());
                    }
                }
                else {
                    millis.addAndGet(1 + random.nextInt((int) emissionMillis));
                }
            }
            assertLaw(spec, burst, kept, "sequence " + sequence + " (" + spec + "): " + steps);
        }
    }

    private void grant(RedissonRateLimitBackend backend, String limiter, LimitSpec spec, long permits,
            List<Grant> kept, List<String> steps) {
        Decision decision = acquire(backend, limiter, spec, permits);
        if (decision.allowed()) {
            kept.add(new Grant(millis.get(), permits, decision));
            steps.add("take " + permits + " at " + millis.get());
        }
    }

    private void givenBackAtOnce(RedissonRateLimitBackend backend, String limiter, LimitSpec spec, long permits,
            List<String> steps) {
        LimitState before = state(backend, limiter, spec);
        Decision decision = acquire(backend, limiter, spec, permits);
        if (decision.allowed()) {
            await(backend.release(AcquireRequest.of(limiter, spec, permits), decision));
            assertThat(state(backend, limiter, spec)).as("after %d taken and given back at once at %d: %s", permits,
                    millis.get(), steps).isEqualTo(before);
        }
    }

    /** Over every span [t_i, t_j] between two grants kept, at most burst + (t_j - t_i) x rate / interval. */
    private static void assertLaw(LimitSpec spec, int burst, List<Grant> kept, String sequence) {
        List<Grant> byTime = new ArrayList<>(kept);
        byTime.sort(Comparator.comparingLong(Grant::at));
        for (int i = 0; i < byTime.size(); i++) {
            long permits = 0;
            for (int j = i; j < byTime.size(); j++) {
                permits += byTime.get(j).permits();
                long span = byTime.get(j).at() - byTime.get(i).at();
                double allowed = burst + (double) span * spec.rate() / spec.interval().toMillis() + 1e-9;
                assertThat((double) permits).as("permits in [%d, %d] of %s", byTime.get(i).at(), byTime.get(j).at(),
                        sequence).isLessThanOrEqualTo(allowed);
            }
        }
    }

    private record Grant(long at, long permits, Decision decision) {
    }
}
