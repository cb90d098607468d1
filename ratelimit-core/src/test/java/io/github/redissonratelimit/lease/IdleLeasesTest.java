package io.github.redissonratelimit.lease;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.github.redissonratelimit.annotation.BackendErrorPolicy;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.RateLimitBackend;

/**
 * The leases of limiters nobody asks for any more are removed, so a leased limit keyed per caller does not grow the
 * map without end, while a lease in use stays. Pure bookkeeping: a stand-in for Redis grants every lease asked.
 */
class IdleLeasesTest {

    private static final LimitSpec SPEC = new LimitSpec(1_000_000, Duration.ofSeconds(1), RateLimitMode.PER_CLIENT);
    private static final Duration SHORT = Duration.ofMillis(20);
    private static final Duration LONG = Duration.ofSeconds(30);

    /** Grants the permits asked, and a lease of what it asks beyond them. */
    private static final RateLimitBackend GRANTS_ALL = new RateLimitBackend() {

        @Override
        public CompletionStage<Decision> acquire(AcquireRequest request) {
            return GrantingStandIn.grant(request);
        }

        @Override
        public List<CompletionStage<Decision>> acquireAll(List<AcquireRequest> requests) {
            return requests.stream().map(this::acquire).toList();
        }
    };

    @Test
    void theLeasesOfCallersGoneQuietAreRemovedAndALeaseInUseStays() throws Exception {
        LeasingRateLimitBackend leasing = new LeasingRateLimitBackend(GRANTS_ALL);
        while (Held.permits(leasing, "hot") < 2) {
            decide(leasing, "hot", LONG);
        }
        for (int caller = 0; caller < 1_000; caller++) {
            decide(leasing, "caller:" + caller, SHORT);
        }
        Thread.sleep(3 * SHORT.toMillis()); // every caller's lease is now idle for more than its period
        int before = leasing.leasedLimiters();
        int added = 0;
        // new callers grow the map until it is looked at again: then the quiet ones go
        while (leasing.leasedLimiters() >= before) {
            before = leasing.leasedLimiters();
            decide(leasing, "caller:" + (1_000 + added), SHORT);
            added++;
            assertThat(added).as("new callers before the quiet ones were removed (at most twice the map)")
                    .isLessThanOrEqualTo(2 * 1_001);
        }
        assertThat(leasing.leasedLimiters()).as("of 1,001 + %d limiters, only the %d asked since the quiet and hot",
                added, added).isLessThanOrEqualTo(added + 1);
        assertThat(Held.permits(leasing, "hot")).as("the hot limiter's lease, untouched").isGreaterThan(0);
        long calls = leasing.redisCalls();
        decide(leasing, "hot", LONG);
        assertThat(leasing.redisCalls()).as("served from the lease it kept").isEqualTo(calls);
    }

    private static void decide(LeasingRateLimitBackend leasing, String name, Duration period) throws Exception {
        AcquireRequest request = new AcquireRequest(name, SPEC, 1, BackendErrorPolicy.DENY, false, Duration.ZERO,
                null, new AcquireRequest.Lease(period, 0));
        assertThat(leasing.acquire(request).toCompletableFuture().get(5, TimeUnit.SECONDS).allowed()).isTrue();
    }
}
