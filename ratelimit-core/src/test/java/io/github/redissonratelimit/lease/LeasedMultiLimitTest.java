package io.github.redissonratelimit.lease;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import io.github.redissonratelimit.annotation.BackendErrorPolicy;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.RateLimitBackend;

/**
 * A call with several leased limits is served from the leases when each holds its permits; when one cannot, the
 * permits taken from the others go back into their leases and every limit goes to Redis in one batch. Pure
 * bookkeeping: a stand-in for Redis grants every lease asked and counts the batches.
 */
class LeasedMultiLimitTest {

    private static final LimitSpec SPEC = new LimitSpec(1_000_000, Duration.ofSeconds(1), RateLimitMode.OVERALL);
    private static final Duration PERIOD = Duration.ofSeconds(30);

    private final AtomicInteger batches = new AtomicInteger();
    private final RateLimitBackend grantsAll = new RateLimitBackend() {

        @Override
        public CompletionStage<Decision> acquire(AcquireRequest request) {
            return GrantingStandIn.grant(request);
        }

        @Override
        public List<CompletionStage<Decision>> acquireAll(List<AcquireRequest> requests) {
            batches.incrementAndGet();
            return requests.stream().map(this::acquire).toList();
        }
    };

    @Test
    void fromEveryLeaseOrAllByRedisWithThePermitsTakenPutBack() throws Exception {
        LeasingRateLimitBackend leasing = new LeasingRateLimitBackend(grantsAll);
        for (String name : List.of("a", "b")) {
            while (Held.permits(leasing, name) < 3) {
                assertThat(leasing.acquire(request(name)).toCompletableFuture().get(5, TimeUnit.SECONDS).allowed())
                        .isTrue();
            }
        }
        long heldA = Held.permits(leasing, "a");
        long heldB = Held.permits(leasing, "b");

        assertThat(allowed(leasing.acquireAll(List.of(request("a"), request("b"))))).isTrue();
        assertThat(batches).as("served from both leases").hasValue(0);
        assertThat(Held.permits(leasing, "a")).isEqualTo(heldA - 1);
        assertThat(Held.permits(leasing, "b")).isEqualTo(heldB - 1);

        assertThat(allowed(leasing.acquireAll(List.of(request("a"), request("c"))))).isTrue();
        assertThat(batches).as("c holds no lease: both by Redis, in one batch").hasValue(1);
        assertThat(Held.permits(leasing, "a")).as("the permit taken from a's lease, put back").isEqualTo(heldA - 1);
    }

    private static boolean allowed(List<CompletionStage<Decision>> decisions) throws Exception {
        for (CompletionStage<Decision> decision : decisions) {
            if (!decision.toCompletableFuture().get(5, TimeUnit.SECONDS).allowed()) {
                return false;
            }
        }
        return true;
    }

    private static AcquireRequest request(String name) {
        return new AcquireRequest(name, SPEC, 1, BackendErrorPolicy.DENY, false, Duration.ZERO, null,
                new AcquireRequest.Lease(PERIOD, 0));
    }
}
