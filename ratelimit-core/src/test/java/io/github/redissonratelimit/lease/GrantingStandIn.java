package io.github.redissonratelimit.lease;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitState;

/**
 * A stand-in for Redis in the lease layer's bookkeeping tests: grants the permits asked, and a lease of what a call
 * asks beyond them (receipt {@code l1}, 1,000 free).
 */
final class GrantingStandIn {

    private GrantingStandIn() {
    }

    static CompletableFuture<Decision> grant(AcquireRequest request) {
        long leased = request.lease() == null ? 0 : request.lease().permits() - request.permits();
        return CompletableFuture.completedFuture(new Decision(true, Duration.ZERO,
                new LimitState(1_000, Duration.ZERO, Map.of()), false, "l1", leased));
    }
}
