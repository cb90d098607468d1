package io.github.redissonratelimit.limiter;

import static io.github.redissonratelimit.limiter.BackendCalls.acquire;
import static io.github.redissonratelimit.limiter.BackendCalls.release;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.junit.jupiter.api.Test;

import io.github.redissonratelimit.annotation.RateLimitMode;

/** The caching rules on an in-memory sliding-window backend and a clock the test moves. */
class LocalRejectionCacheTest {

    private static final LimitSpec THREE_PER_SECOND = new LimitSpec(3, Duration.ofSeconds(1), RateLimitMode.OVERALL);

    private final MutableClock clock = new MutableClock();
    private final SlidingWindowBackend redis = new SlidingWindowBackend(clock);
    private final LocalRejectionCache cache = new LocalRejectionCache(redis, 100, clock);

    @Test
    void rejectsFromMemoryUntilTheOldestGrantLeavesTheWindow() {
        takeAll("a", 3); // grants at 0, 100, 200 ms; now 300

        // the third grant left nothing free: the next request is answered from memory, as Redis would answer it
        Decision afterTheLastPermit = acquire(cache, "a", THREE_PER_SECOND, 1);
        assertThat(afterTheLastPermit.allowed()).isFalse();
        assertThat(afterTheLastPermit.retryAfter()).isEqualTo(Duration.ofMillis(700));
        assertThat(redis.calls).isEqualTo(3);

        clock.advance(400);
        Decision fromMemory = acquire(cache, "a", THREE_PER_SECOND, 1);
        assertThat(fromMemory.allowed()).isFalse();
        assertThat(fromMemory.retryAfter()).isEqualTo(Duration.ofMillis(300));
        clock.advance(299);
        assertThat(acquire(cache, "a", THREE_PER_SECOND, 1).retryAfter()).isEqualTo(Duration.ofMillis(1));
        assertThat(redis.calls).as("no call reached the backend").isEqualTo(3);
        assertThat(cache.localRejections()).isEqualTo(3);

        clock.advance(1); // t = 1000: the grant of t = 0 is out of the window
        assertThat(acquire(cache, "a", THREE_PER_SECOND, 1).allowed()).isTrue();
        assertThat(redis.calls).isEqualTo(4);
    }

    @Test
    void aGrantThatTookTheLastPermitIsRememberedUntilTheOldestGrantLeaves() {
        assertThat(acquire(cache, "b", THREE_PER_SECOND, 2).allowed()).isTrue(); // t = 0, one permit left: not remembered
        clock.advance(100);
        assertThat(acquire(cache, "b", THREE_PER_SECOND, 1).allowed()).isTrue(); // the last one
        assertThat(redis.calls).isEqualTo(2);

        clock.advance(899);
        Decision fromMemory = acquire(cache, "b", THREE_PER_SECOND, 1);
        assertThat(fromMemory.allowed()).isFalse();
        assertThat(fromMemory.retryAfter()).isEqualTo(Duration.ofMillis(1));
        assertThat(redis.calls).isEqualTo(2);

        clock.advance(1); // t = 1000: the two permits of t = 0 are back
        assertThat(acquire(cache, "b", THREE_PER_SECOND, 2).allowed()).isTrue();
        assertThat(redis.calls).isEqualTo(3);
    }

    @Test
    void neverRejectsWhatTheBackendWouldAllow() {
        // a flood of 1 call per ms on a backend that grants 3 per second, with and without the cache
        SlidingWindowBackend plainRedis = new SlidingWindowBackend(clock);
        int[] decisions = new int[2];
        for (int t = 0; t < 5_000; t++) {
            long permits = 1 + t % 2;
            Decision cached = acquire(cache, "k", THREE_PER_SECOND, permits);
            Decision plain = acquire(plainRedis, "k", THREE_PER_SECOND, permits);
            assertThat(cached.allowed()).as("at %d ms", t).isEqualTo(plain.allowed());
            decisions[cached.allowed() ? 0 : 1]++;
            clock.advance(1);
        }
        assertThat(decisions[0]).isGreaterThanOrEqualTo(10);
        assertThat(cache.localRejections()).isGreaterThan(4_000);
    }

    @Test
    void aRejectionCoversOnlyRequestsUnderTheSameLimit() {
        takeAll("tiered", 3);
        assertThat(acquire(cache, "tiered", THREE_PER_SECOND, 1).allowed()).isFalse();
        int calls = redis.calls;

        // the same limiter under another config (a raised limit, another tier) asks the backend
        LimitSpec tenPerSecond = new LimitSpec(10, Duration.ofSeconds(1), RateLimitMode.OVERALL);
        acquire(cache, "tiered", tenPerSecond, 1);
        assertThat(redis.calls).isEqualTo(calls + 1);
        assertThat(acquire(cache, "tiered", THREE_PER_SECOND, 1).allowed()).isFalse();
        assertThat(redis.calls).as("under the rejected config: from memory").isEqualTo(calls + 1);
    }

    @Test
    void coversOnlyRequestsForAtLeastTheRejectedPermits() {
        takeAll("bulk", 2); // 1 permit left
        assertThat(acquire(cache, "bulk", THREE_PER_SECOND, 2).allowed()).isFalse();
        int calls = redis.calls;

        assertThat(acquire(cache, "bulk", THREE_PER_SECOND, 3).allowed()).isFalse();
        assertThat(redis.calls).as("3 >= 2 permits: rejected from memory").isEqualTo(calls);
        assertThat(acquire(cache, "bulk", THREE_PER_SECOND, 1).allowed()).as("1 < 2 permits: asks").isTrue();
        assertThat(redis.calls).isEqualTo(calls + 1);
    }

    @Test
    void limitersAreIndependent() {
        takeAll("a", 3);
        assertThat(acquire(cache, "a", THREE_PER_SECOND, 1).allowed()).isFalse();

        assertThat(acquire(cache, "b", THREE_PER_SECOND, 1).allowed()).isTrue();
    }

    @Test
    void aRejectionWithoutWaitIsNotRemembered() {
        RateLimitBackend rejectsWithoutWait = request -> CompletableFuture.completedFuture(Decision.reject(Duration.ZERO));
        LocalRejectionCache cache = new LocalRejectionCache(rejectsWithoutWait, 10, clock);

        acquire(cache, "a", THREE_PER_SECOND, 1);

        assertThat(cache.size()).isZero();
    }

    @Test
    void forgetAsksTheBackendAgain() {
        takeAll("a", 3);
        acquire(cache, "a", THREE_PER_SECOND, 1);
        int calls = redis.calls;

        cache.forget("a");
        acquire(cache, "a", THREE_PER_SECOND, 1);

        assertThat(redis.calls).isEqualTo(calls + 1);
    }

    @Test
    void asynchronousCallsAreAnsweredFromMemoryToo() {
        takeAll("a", 3);
        Decision fromRedis = cache.acquire("a", THREE_PER_SECOND, 1).toCompletableFuture().join();
        int calls = redis.calls;

        CompletionStage<Decision> fromMemory = cache.acquire("a", THREE_PER_SECOND, 1);

        assertThat(fromRedis.allowed()).isFalse();
        assertThat(fromMemory.toCompletableFuture()).isCompletedWithValue(Decision.reject(Duration.ofMillis(700)));
        assertThat(redis.calls).isEqualTo(calls);
    }

    @Test
    void givingPermitsBackForgetsTheRejection() {
        takeAll("a", 3);
        assertThat(acquire(cache, "a", THREE_PER_SECOND, 1).allowed()).isFalse();

        release(cache, "a", THREE_PER_SECOND, 1);

        assertThat(cache.size()).isZero();
        assertThat(acquire(cache, "a", THREE_PER_SECOND, 1).allowed()).as("the given back permit").isTrue();
    }

    @Test
    void remembersAtMostMaxEntries() {
        RateLimitBackend alwaysRejects = request -> CompletableFuture.completedFuture(Decision.reject(Duration.ofMinutes(1)));
        LocalRejectionCache small = new LocalRejectionCache(alwaysRejects, 5, clock);

        for (int i = 0; i < 100; i++) {
            acquire(small, "key-" + i, THREE_PER_SECOND, 1);
        }

        assertThat(small.size()).isLessThanOrEqualTo(5);
    }

    @Test
    void rejectsAMeaninglessSize() {
        assertThatIllegalArgumentException().isThrownBy(() -> new LocalRejectionCache(redis, 0))
                .withMessageContaining("maxEntries must be at least 1");
    }

    private void takeAll(String name, int permits) {
        for (int i = 0; i < permits; i++) {
            assertThat(acquire(cache, name, THREE_PER_SECOND, 1).allowed()).isTrue();
            clock.advance(100);
        }
    }

    /** RRateLimiter's rule in memory: a grant's permits come back one interval after it was made. */
    private static final class SlidingWindowBackend implements RateLimitBackend {

        private final Clock clock;
        private final java.util.Map<String, Deque<long[]>> grants = new java.util.HashMap<>();
        int calls;

        SlidingWindowBackend(Clock clock) {
            this.clock = clock;
        }

        /** Gives back the newest grant of that many permits, as the Redis backend does. */
        @Override
        public CompletionStage<Void> release(AcquireRequest request, Decision granted) {
            String limiterName = request.limiterName();
            LimitSpec spec = request.spec();
            long permits = request.permits();
            Deque<long[]> log = grants.getOrDefault(limiterName, new ArrayDeque<>());
            for (java.util.Iterator<long[]> newestFirst = log.descendingIterator(); newestFirst.hasNext();) {
                if (newestFirst.next()[1] == permits) {
                    newestFirst.remove();
                    break;
                }
            }
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletionStage<Decision> acquire(AcquireRequest request) {
            String limiterName = request.limiterName();
            LimitSpec spec = request.spec();
            long permits = request.permits();
            return CompletableFuture.completedFuture(decide(limiterName, spec, permits));
        }

        private Decision decide(String limiterName, LimitSpec spec, long permits) {
            calls++;
            long now = clock.millis();
            long interval = spec.interval().toMillis();
            Deque<long[]> log = grants.computeIfAbsent(limiterName, name -> new ArrayDeque<>());
            while (!log.isEmpty() && log.peekFirst()[0] <= now - interval) {
                log.pollFirst();
            }
            long used = log.stream().mapToLong(grant -> grant[1]).sum();
            if (spec.rate() - used >= permits) {
                log.addLast(new long[] { now, permits });
                // what is left and when the oldest grant leaves the window, as the Redis backend answers
                return Decision.allow(new LimitState(spec.rate() - used - permits,
                        Duration.ofMillis(log.peekFirst()[0] + interval - now)));
            }
            long free = spec.rate() - used;
            List<long[]> oldestFirst = new ArrayList<>(log);
            for (long[] grant : oldestFirst) {
                free += grant[1];
                if (free >= permits) {
                    return Decision.reject(Duration.ofMillis(grant[0] + interval - now));
                }
            }
            return Decision.reject(spec.interval());
        }
    }

    private static final class MutableClock extends Clock {

        private long millis = 1_000_000;

        void advance(long delta) {
            millis += delta;
        }

        @Override
        public long millis() {
            return millis;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis);
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }
}
