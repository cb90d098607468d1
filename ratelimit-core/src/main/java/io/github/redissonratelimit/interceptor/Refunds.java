package io.github.redissonratelimit.interceptor;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.util.function.SingletonSupplier;

import io.github.redissonratelimit.log.LogSafe;
import io.github.redissonratelimit.limiter.Completions;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.RateLimitBackend;

/**
 * Gives back what the limits of a call that did not pass granted it, through the decision stack that granted it
 * (each layer undoes its part: the local outage policy keeps a grant made in memory out of Redis). A refund that
 * fails is logged; its permits return when the grant leaves the window.
 */
final class Refunds {

    private static final Log logger = LogFactory.getLog(RateLimitInterceptor.class);

    private final SingletonSupplier<RateLimitBackend> backend;

    Refunds(SingletonSupplier<RateLimitBackend> backend) {
        this.backend = backend;
    }

    /** Gives back, latest first, the grants of a call that did not pass; the stage completes with the acquisition. */
    CompletionStage<Acquisition> refund(Acquisition acquisition) {
        List<Acquisition.Grant> grants = acquisition.grantsToRefund();
        if (grants.isEmpty()) {
            return CompletableFuture.completedFuture(acquisition);
        }
        CompletableFuture<?>[] refunds = new CompletableFuture<?>[grants.size()];
        for (int i = 0; i < refunds.length; i++) {
            Acquisition.Grant grant = grants.get(i);
            refunds[i] = release(grant.call(), grant.decision()).handle((ignored, ex) -> {
                if (ex != null) {
                    refundFailed(grant.call(), Completions.unwrap(ex), acquisition);
                }
                else {
                    acquisition.refunded(grant.index());
                }
                return null;
            }).toCompletableFuture();
        }
        return CompletableFuture.allOf(refunds).thenApply(done -> acquisition);
    }

    /**
     * Gives back one grant of a call that passed and was not charged ({@code chargeWhen}); a refund that fails is
     * logged, and the permits return when the grant leaves the window: the stage completes normally either way.
     */
    CompletionStage<Void> giveBack(Acquisition acquisition, Acquisition.Grant grant) {
        return release(grant.call(), grant.decision()).handle((ignored, ex) -> {
            if (ex != null) {
                logger.warn("Could not give back " + grant.call().permits() + " permit(s) of "
                        + LogSafe.text(grant.call().limiterName()) + " for a call its chargeWhen did not charge: they "
                        + "return when the grant leaves the window", Completions.unwrap(ex));
            }
            else {
                acquisition.refunded(grant.index());
            }
            return null;
        });
    }

    /**
     * Gives back the grants a call held until its end (an in-flight limit's), without the caller waiting for it; a
     * give-back that fails is logged, and the permits return when their lease ends unrenewed.
     */
    void endOfCall(Acquisition acquisition) {
        for (Acquisition.Grant grant : acquisition.heldGrants()) {
            giveBackHeld(grant.call(), grant.decision(), "at the end of the call that held them");
        }
    }

    /**
     * A caller that stops waiting for its decisions (a cancelled future or subscription) cancels {@code result}
     * before its acquisition is known: the grants its decisions made or make later of limits held until the call's
     * end (an in-flight limit's) go back, since no call holds them. A decision still on its way is cancelled by the
     * caller's cancel or not; either way its grant comes back here.
     */
    void giveBackHeldWhenCancelled(CompletableFuture<Acquisition> result, List<LimitCall> calls,
            CompletableFuture<Decision>[] decisions, int asked) {
        boolean holds = false;
        for (int i = 0; i < asked && !holds; i++) {
            holds = calls.get(i).request().spec().algorithm().held();
        }
        if (!holds) {
            return;
        }
        result.whenComplete((acquisition, ex) -> {
            if (!result.isCancelled()) {
                return;
            }
            for (int i = 0; i < asked; i++) {
                LimitCall call = calls.get(i);
                if (call.request().spec().algorithm().held()) {
                    decisions[i].thenAccept(decision -> {
                        if (decision.allowed()) {
                            giveBackHeld(call, decision, "for a call cancelled before it ran");
                        }
                    });
                }
            }
        });
    }

    /**
     * Gives back a grant held until its call's end, without waiting for it; a give-back that fails is logged with its
     * {@code occasion}, and the permits return when their lease ends unrenewed.
     */
    private void giveBackHeld(LimitCall call, Decision decision, String occasion) {
        release(call, decision).whenComplete((ignored, ex) -> {
            if (ex != null) {
                logger.warn("Could not give back " + call.permits() + " permit(s) of "
                        + LogSafe.text(call.limiterName()) + " " + occasion + ": they return when their lease ends",
                        Completions.unwrap(ex));
            }
        });
    }

    /** Gives back through the stack what {@code decision} granted {@code call}; a stack that throws fails the stage. */
    private CompletionStage<Void> release(LimitCall call, Decision decision) {
        try {
            return backend.obtain().release(call.request(), decision);
        }
        catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(ex);
        }
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
