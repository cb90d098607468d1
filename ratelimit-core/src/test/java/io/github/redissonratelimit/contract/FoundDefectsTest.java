package io.github.redissonratelimit.contract;

import static io.github.redissonratelimit.limiter.BackendCalls.acquire;
import static io.github.redissonratelimit.limiter.BackendCalls.await;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.algorithm.LimitAlgorithm;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.redis.BackendOptions;
import io.github.redissonratelimit.redis.LimiterClock;
import io.github.redissonratelimit.redis.RedissonRateLimitBackend;
import io.github.redissonratelimit.test.redis.FreshRedis;

/**
 * Defects the contract ({@link AlgorithmContract}) found outside the outage policy, each reduced to the calls that
 * show it on a clock the test moves; disabled until fixed (each fails today), and the contract's checks they break are
 * skipped, naming them.
 */
class FoundDefectsTest {

    @RegisterExtension
    final FreshRedis fresh = new FreshRedis();
    private final AtomicLong millis = new AtomicLong(1_700_000_000_000L);
    private final String name = new LimiterNaming().limiterName("found:1");

    /** A backend deciding on the test's clock, as an instance with this config would. */
    private RedissonRateLimitBackend onTestClock() {
        return new RedissonRateLimitBackend(fresh.newClient(), BackendOptions.DEFAULTS.withClock(LimiterClock.CLIENT),
                () -> Instant.ofEpochMilli(millis.get()));
    }

    private long allowed(RedissonRateLimitBackend backend, LimitSpec spec, int calls) {
        long allowed = 0;
        for (int i = 0; i < calls; i++) {
            allowed += acquire(backend, name, spec, 1).allowed() ? 1 : 0;
        }
        return allowed;
    }

    /**
     * A token bucket changed to a fixed window (every instance at once, {@code update}): the window counts only the
     * bucket's permits that had not refilled, not the bucket's grants made earlier in the same window, so the window
     * holds more than either config lets through in it: a bucket of 8 per second with a burst of 3 grants 9 in its
     * first 750 ms, and the fixed window of 8 per second then 5 more in the same second. The same holds of every
     * change to another algorithm: what carries over is what the old algorithm has out by its own state, not the
     * grants the new one would count (a fixed window's grants of the window before, a bucket's refilled ones).
     */
    @Test
    @Disabled("defect: a change to another algorithm carries over only what the old one has out (issue 36)")
    void aChangeFromATokenBucketToAFixedWindowCountsTheBucketsGrantsInTheWindow() {
        LimitSpec bucket = new LimitSpec(8, Duration.ofSeconds(1), RateLimitMode.OVERALL,
                LimitAlgorithm.tokenBucket(3));
        LimitSpec window = new LimitSpec(8, Duration.ofSeconds(1), RateLimitMode.OVERALL, LimitAlgorithm.fixedWindow());
        RedissonRateLimitBackend before = onTestClock();
        long granted = 0;
        for (int i = 0; i < 3; i++) { // at the start of a second: the burst, then what refills in 375 ms
            granted += allowed(before, bucket, 3);
            millis.addAndGet(375);
        }
        millis.addAndGet(-365); // 760 ms into the second
        granted += allowed(onTestClock(), window, 8);

        // within one second of the fixed window: at most 8 by it, 3 + 8 x 0.76 = 9.08 by the bucket
        assertThat(granted).as("granted in 760 ms").isLessThanOrEqualTo(9);
    }

    /**
     * A token bucket's refund credits at most the permits' time and the grant's receipt (the bucket's tat right after
     * it) less now; but when a grant made before it was given back in between, the receipt still counts that grant's
     * time, and the refund credits it a second time. A bucket of 8 per second with a burst of 3: A takes 2 and B 1 at
     * once, A is given back, C takes 1 at +125 ms, B is given back at +175 ms, and D takes 3 then: 4 permits in 50 ms
     * where the law allows 3.4 (without A and B, D is refused). Found by the contract on the cluster (13 permits where
     * 12.95 were allowed), then by a simulation of the rule.
     */
    @Test
    void aBucketRefundAfterAnEarlierGrantWasGivenBackCreditsNoMoreThanRefilled() {
        LimitSpec bucket = new LimitSpec(8, Duration.ofSeconds(1), RateLimitMode.OVERALL,
                LimitAlgorithm.tokenBucket(3));
        RedissonRateLimitBackend backend = onTestClock();
        Decision a = acquire(backend, name, bucket, 2);
        Decision b = acquire(backend, name, bucket, 1);
        assertThat(a.allowed() && b.allowed()).isTrue();
        await(backend.release(AcquireRequest.of(name, bucket, 2), a));
        millis.addAndGet(125);
        assertThat(acquire(backend, name, bucket, 1).allowed()).as("C").isTrue();
        millis.addAndGet(50);
        await(backend.release(AcquireRequest.of(name, bucket, 1), b));

        assertThat(acquire(backend, name, bucket, 3).allowed()).as("D: 3 + C's 1 within 50 ms").isFalse();
    }

    /**
     * A grant given back after the limiter's state was lost (evicted, deleted, a failover to a replica that missed it)
     * is credited to the state started afresh, which never counted it: from the loss on, a fixed window of 8 per
     * second lets 9 through in one window. The same holds of the token bucket and the sliding window; the contract
     * counts a loss as a reset until the last grant made before it was given back.
     */
    @Test
    void aGrantGivenBackAfterTheStateWasLostCreditsNothing() {
        LimitSpec window = new LimitSpec(8, Duration.ofSeconds(1), RateLimitMode.OVERALL, LimitAlgorithm.fixedWindow());
        RedissonRateLimitBackend backend = onTestClock();
        Decision before = acquire(backend, name, window, 1);
        assertThat(before.allowed()).isTrue();
        fresh.endpoint().command("FLUSHALL"); // the state is lost: the window starts afresh
        millis.addAndGet(100);
        assertThat(allowed(backend, window, 8)).as("a fresh window").isEqualTo(8);

        await(backend.release(AcquireRequest.of(name, window, 1), before));

        assertThat(allowed(backend, window, 1)).as("the fresh window holds 8 already").isZero();
    }

    /**
     * The same for a sliding window, whose grants are kept by slice (1/1024 of the interval, 10 ms here): a grant
     * given back after the state was lost finds the member of its slice again when a fresh grant fell in the same
     * slice, and must not take that grant's permits.
     */
    @Test
    void aSlidingWindowGrantGivenBackAfterTheStateWasLostCreditsNothingEvenInItsSlice() {
        LimitSpec twoPerTenSeconds = new LimitSpec(2, Duration.ofSeconds(10), RateLimitMode.OVERALL,
                LimitAlgorithm.SLIDING_WINDOW);
        millis.set(1_700_000_000_000L); // the start of a slice
        RedissonRateLimitBackend backend = onTestClock();
        Decision before = acquire(backend, name, twoPerTenSeconds, 1);
        assertThat(before.allowed()).isTrue();
        fresh.endpoint().command("FLUSHALL");
        millis.addAndGet(5); // the same slice
        assertThat(allowed(backend, twoPerTenSeconds, 2)).as("a fresh window").isEqualTo(2);

        await(backend.release(AcquireRequest.of(name, twoPerTenSeconds, 1), before));

        assertThat(allowed(backend, twoPerTenSeconds, 1)).as("the fresh window holds 2 already").isZero();
    }

    /**
     * A sliding window's refund takes the permits from the newest grant in the window that holds as many, not from
     * the grant given back: given back after a later grant, the older grant stays and the later one goes, so the
     * permits come back when the older one leaves, earlier than without the call.
     */
    @Test
    void aSlidingWindowRefundAfterALaterGrantFreesNothingBeforeTheLaterGrantLeaves() {
        LimitSpec twoPerSecond = new LimitSpec(2, Duration.ofSeconds(1), RateLimitMode.OVERALL,
                LimitAlgorithm.SLIDING_WINDOW);
        RedissonRateLimitBackend backend = onTestClock();
        Decision a = acquire(backend, name, twoPerSecond, 1);
        millis.addAndGet(500);
        assertThat(acquire(backend, name, twoPerSecond, 1).allowed()).as("B").isTrue();
        millis.addAndGet(100);
        await(backend.release(AcquireRequest.of(name, twoPerSecond, 1), a));
        millis.addAndGet(400); // one second after A: without A the window holds B alone until +1500 ms

        assertThat(acquire(backend, name, twoPerSecond, 1).allowed()).as("C").isTrue();
        assertThat(acquire(backend, name, twoPerSecond, 1).allowed()).as("D: B and C fill the window").isFalse();
    }
}
