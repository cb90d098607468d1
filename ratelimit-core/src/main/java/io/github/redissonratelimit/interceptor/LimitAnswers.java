package io.github.redissonratelimit.interceptor;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import io.github.redissonratelimit.RateLimitBackendUnavailableException;
import io.github.redissonratelimit.annotation.BackendErrorPolicy;
import io.github.redissonratelimit.limiter.Completions;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.operation.RateLimitOperation;

/**
 * Reads the answers to a call's limits in declaration order, as asking them in turn would: the first limit that
 * rejects (or whose failure ends the call under its outage policy) decides, and what the call was granted is given
 * back when it does not pass. A shadow limit never stops a call.
 */
final class LimitAnswers {

    private final ShadowRejectionLog shadowRejections = new ShadowRejectionLog();
    private final Refunds refunds;
    private final Supplier<BackendErrorPolicy> defaultPolicy;

    /** @param defaultPolicy what a limit whose outage policy is {@code DEFAULT} does */
    LimitAnswers(Refunds refunds, Supplier<BackendErrorPolicy> defaultPolicy) {
        this.refunds = refunds;
        this.defaultPolicy = defaultPolicy;
    }

    /** Records the answers in declaration order, then gives back what a call that did not pass was granted. */
    CompletionStage<Acquisition> settle(Acquisition acquisition, CompletableFuture<Decision>[] decisions,
            long[] starts, int asked) {
        boolean decided = false;
        acquisition.asked(asked);
        for (int i = 0; i < asked; i++) {
            Decision result = null;
            Throwable error = null;
            try {
                result = decisions[i].join();
            }
            catch (CompletionException | CancellationException ex) {
                error = ex;
            }
            if (decided) {
                if (result != null) {
                    acquisition.decidedAfterTheEnd(i, result);
                }
            }
            else if (!record(acquisition, i, result, error, starts[i])) {
                decided = true;
            }
        }
        return refunds.refund(acquisition);
    }

    /** Whether a decision already made lets the next limits be asked; a shadow limit never stops them. */
    boolean goesOn(LimitCall call, CompletableFuture<Decision> made) {
        try {
            return made.join().allowed() || call.operation().shadow();
        }
        catch (CompletionException | CancellationException ex) {
            return passesWithout(call, Completions.unwrap(ex));
        }
    }

    /** @return whether the next limit should be asked */
    private boolean record(Acquisition acquisition, int index, Decision decision, Throwable ex, long start) {
        LimitCall call = acquisition.calls().get(index);
        if (ex == null) {
            if (!decision.allowed() && call.operation().shadow()) {
                shadowRejections.rejected(call, decision);
            }
            return acquisition.decided(index, decision, start);
        }
        Throwable error = Completions.unwrap(ex);
        if (passesWithout(call, error)) {
            acquisition.passed(index, error, start);
            return true;
        }
        acquisition.failed(index, error, start);
        return false;
    }

    /**
     * Whether the call goes on although the limit got no decision: a shadow limit always lets it; otherwise only
     * when Redis gave none and the limit's outage policy allows.
     */
    private boolean passesWithout(LimitCall call, Throwable error) {
        return call.operation().shadow() || (error instanceof RateLimitBackendUnavailableException
                && !deniesWithoutBackend(call.operation()));
    }

    private boolean deniesWithoutBackend(RateLimitOperation operation) {
        return policyOf(operation) == BackendErrorPolicy.DENY;
    }

    /** The limit's outage policy, {@code DEFAULT} resolved. */
    BackendErrorPolicy policyOf(RateLimitOperation operation) {
        BackendErrorPolicy policy = operation.backendErrorPolicy();
        return policy == BackendErrorPolicy.DEFAULT ? defaultPolicy.get() : policy;
    }
}
