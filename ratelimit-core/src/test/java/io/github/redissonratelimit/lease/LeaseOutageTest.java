package io.github.redissonratelimit.lease;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import io.github.redissonratelimit.RateLimitBackendUnavailableException;
import io.github.redissonratelimit.annotation.BackendErrorPolicy;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.RateLimitBackend;

/**
 * When Redis cannot answer, an instance spends the lease it holds, making no call, and only then does a decision
 * fail, with the backend's own failure, for the outage policy outside the lease layer to decide (the stack's order is
 * held by the composition tests). Pure bookkeeping: a stand-in for Redis grants every lease asked while up and fails
 * every call while down.
 */
class LeaseOutageTest {

    private static final LimitSpec SPEC = new LimitSpec(1_000_000, Duration.ofSeconds(1), RateLimitMode.OVERALL);
    private static final Duration PERIOD = Duration.ofSeconds(30);

    private final AtomicInteger calls = new AtomicInteger();
    private volatile boolean down;
    private final RateLimitBackend redis = request -> {
        calls.incrementAndGet();
        if (down) {
            return CompletableFuture.failedFuture(new RateLimitBackendUnavailableException(request.limiterName(),
                    RateLimitBackendUnavailableException.Reason.ERROR, null, "Redis is down", null));
        }
        return GrantingStandIn.grant(request);
    };

    @Test
    void anInstanceSpendsItsLeaseThenTheOutageReachesThePolicy() throws Exception {
        LeasingRateLimitBackend leasing = new LeasingRateLimitBackend(redis);
        while (Held.permits(leasing, "hot") < 5) {
            assertThat(decide(leasing).allowed()).isTrue();
        }
        long held = Held.permits(leasing, "hot");
        down = true;
        int callsBefore = calls.get();

        for (long i = 0; i < held; i++) {
            assertThat(decide(leasing).allowed()).as("permit %d of the %d held", i + 1, held).isTrue();
        }
        // spent in memory; the one call is the next lease asked ahead when this one ran low, which failed unseen
        assertThat(calls.get()).as("spent in memory, at most the next lease asked ahead").isBetween(callsBefore,
                callsBefore + 1);
        int callsAfterSpending = calls.get();

        assertThat(failure(leasing)).as("the lease spent: the backend's failure, for the outage policy")
                .isInstanceOf(RateLimitBackendUnavailableException.class);
        assertThat(calls.get()).isEqualTo(callsAfterSpending + 1);

        down = false;
        assertThat(decide(leasing).allowed()).as("Redis back: decided again").isTrue();
    }

    private static Decision decide(RateLimitBackend backend) throws Exception {
        return backend.acquire(request()).toCompletableFuture().get(5, TimeUnit.SECONDS);
    }

    private static Throwable failure(RateLimitBackend backend) throws Exception {
        CompletionStage<Decision> decision = backend.acquire(request());
        try {
            decision.toCompletableFuture().get(5, TimeUnit.SECONDS);
            return null;
        }
        catch (ExecutionException ex) {
            return ex.getCause();
        }
    }

    private static AcquireRequest request() {
        return new AcquireRequest("hot", SPEC, 1, BackendErrorPolicy.LOCAL, false, Duration.ZERO, null,
                new AcquireRequest.Lease(PERIOD, 0));
    }
}
