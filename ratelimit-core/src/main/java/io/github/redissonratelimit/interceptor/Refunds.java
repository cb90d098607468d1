package io.github.redissonratelimit.interceptor;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.util.function.SingletonSupplier;

import io.github.redissonratelimit.log.LogSafe;
import io.github.redissonratelimit.limiter.Completions;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.local.LocalFallback;

/**
 * Gives back what the limits of a call that did not pass granted it: the permits each call took (its fixed
 * permits or its cost). A refund that fails is logged; its permits return when the grant leaves the window.
 */
final class Refunds {

    private static final Log logger = LogFactory.getLog(RateLimitInterceptor.class);

    private final SingletonSupplier<RateLimitBackend> backend;

    Refunds(SingletonSupplier<RateLimitBackend> backend) {
        this.backend = backend;
    }

    /**
     * Gives back, latest first, the grants of a call that did not pass; the stage completes with the acquisition.
     * A grant made in memory while Redis gave no decision is given back to {@code localFallback} only; one made by
     * Redis to Redis, and to {@code localFallback}, which counts it in this instance's share.
     */
    CompletionStage<Acquisition> refund(Acquisition acquisition, LocalFallback localFallback) {
        List<LimitCall> grants = acquisition.grantsToRefund();
        if (grants.isEmpty()) {
            return CompletableFuture.completedFuture(acquisition);
        }
        CompletableFuture<?>[] refunds = new CompletableFuture<?>[grants.size()];
        for (int i = 0; i < refunds.length; i++) {
            LimitCall grant = grants.get(i);
            localFallback.released(grant.limiterName(), grant.permits());
            if (acquisition.grantedLocally(grant)) {
                acquisition.refunded(grant);
                refunds[i] = CompletableFuture.completedFuture(null);
                continue;
            }
            CompletionStage<Void> refund;
            try {
                refund = backend.obtain().release(grant.limiterName(), grant.operation().spec(), grant.permits());
            }
            catch (RuntimeException ex) {
                refund = CompletableFuture.failedFuture(ex);
            }
            refunds[i] = refund.handle((ignored, ex) -> {
                if (ex != null) {
                    refundFailed(grant, Completions.unwrap(ex), acquisition);
                }
                else {
                    acquisition.refunded(grant);
                }
                return null;
            }).toCompletableFuture();
        }
        return CompletableFuture.allOf(refunds).thenApply(done -> acquisition);
    }

    private static void refundFailed(LimitCall grant, Throwable ex, Acquisition acquisition) {
        synchronized (acquisition) {
            if (acquisition.error() != null) {
                acquisition.error().addSuppressed(ex);
            }
        }
        logger.warn("Could not give back " + grant.permits() + " permit(s) of "
                + LogSafe.text(grant.limiterName()) + " after the call was "
                + (acquisition.error() != null ? "failed" : "rejected") + ": they return"
                + " when the grant leaves the window", ex);
    }
}
