package io.github.redissonratelimit.lease;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import io.github.redissonratelimit.annotation.BackendErrorPolicy;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.LimitState;
import io.github.redissonratelimit.limiter.RateLimitBackend;

/**
 * A lease running low (a quarter of its permits left) asks Redis for the next one ahead, once: its callers go on from
 * the permits left meanwhile and wait only when those run out first; the new lease takes over when it comes, and what
 * the old one did not spend goes back by its receipt.
 */
class LeaseAheadTest {

    private static final LimitSpec SPEC = new LimitSpec(1_000_000, Duration.ofSeconds(1), RateLimitMode.OVERALL);
    private static final Duration PERIOD = Duration.ofSeconds(30);

    private final AtomicInteger leases = new AtomicInteger();
    private final List<CompletableFuture<Decision>> asked = new CopyOnWriteArrayList<>();
    private final List<String> givenBack = new CopyOnWriteArrayList<>();
    private volatile boolean answerLater;

    /** Grants what is asked, each lease with a receipt of its own; holds lease answers back while told to. */
    private final RateLimitBackend redis = new RateLimitBackend() {

        @Override
        public CompletionStage<Decision> acquire(AcquireRequest request) {
            long leased = request.lease() == null ? 0 : request.lease().permits() - request.permits();
            Decision granted = new Decision(true, Duration.ZERO, new LimitState(1_000, Duration.ZERO, Map.of()), false,
                    "l" + leases.incrementAndGet(), leased);
            if (!answerLater || leased == 0) {
                return CompletableFuture.completedFuture(granted);
            }
            CompletableFuture<Decision> answer = new CompletableFuture<>();
            asked.add(answer);
            return answer.thenApply(ignored -> granted);
        }

        @Override
        public CompletionStage<Void> release(AcquireRequest request, Decision granted) {
            givenBack.add(request.permits() + " of " + granted.receipt());
            return CompletableFuture.completedFuture(null);
        }
    };

    @Test
    void aLeaseRunningLowAsksForTheNextAheadAndItsCallersWaitOnlyWhenItRunsOut() throws Exception {
        LeasingRateLimitBackend leasing = new LeasingRateLimitBackend(redis);
        while (Held.permits(leasing, "hot") < 16) {
            assertThat(decide(leasing).get(5, TimeUnit.SECONDS).allowed()).isTrue();
        }
        answerLater = true;
        givenBack.clear(); // what the leases taken over so far did not spend
        long held = Held.permits(leasing, "hot");
        long calls = leasing.redisCalls();
        long served = 0;
        while (asked.isEmpty()) {
            assertThat(decide(leasing)).as("served from the lease, %d of %d", served + 1, held).isCompleted();
            served++;
        }
        assertThat(held - served).as("the next lease asked with a quarter left").isLessThanOrEqualTo(held / 4)
                .isPositive();
        while (Held.permits(leasing, "hot") > 0) {
            assertThat(decide(leasing)).as("served from what is left while the next lease is on its way")
                    .isCompleted();
        }
        assertThat(asked).as("asked once").hasSize(1);
        CompletableFuture<Decision> waiting = decide(leasing);
        assertThat(waiting).as("the lease ran out first: waits for the next").isNotDone();
        assertThat(leasing.redisCalls()).as("no decision was Redis's").isEqualTo(calls);

        asked.get(0).complete(null);
        assertThat(waiting.get(5, TimeUnit.SECONDS).allowed()).as("from the new lease").isTrue();
        assertThat(Held.permits(leasing, "hot")).isPositive();
        assertThat(givenBack).as("the old lease was spent: nothing to give back").isEmpty();

        // the next one comes while this one still holds permits: they go back, and the new one serves
        while (asked.size() < 2) {
            assertThat(decide(leasing)).isCompleted();
        }
        long left = Held.permits(leasing, "hot");
        String oldReceipt = "l" + (leases.get() - 1);
        asked.get(1).complete(null);
        assertThat(givenBack).as("what the old lease did not spend").containsExactly(left + " of " + oldReceipt);
        assertThat(decide(leasing)).isCompleted();
    }

    private CompletableFuture<Decision> decide(RateLimitBackend backend) {
        return backend.acquire(new AcquireRequest("hot", SPEC, 1, BackendErrorPolicy.LOCAL, false, Duration.ZERO,
                null, new AcquireRequest.Lease(PERIOD, 0))).toCompletableFuture();
    }
}
