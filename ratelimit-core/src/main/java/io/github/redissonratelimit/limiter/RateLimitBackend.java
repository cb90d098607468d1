package io.github.redissonratelimit.limiter;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Takes permits from a named distributed limiter, without blocking the caller.
 *
 * <p>Only {@link #acquire} must be implemented; {@link #release} and {@link #state} fail with
 * {@link UnsupportedOperationException} unless a backend can give permits back or tell what is left.
 * Callers that must block wait for the returned stage; there is no second, blocking form of any operation.
 * Decorators add behaviour around a backend: {@link LocalRejectionCache} (answers a flood from memory),
 * {@link WaitingRateLimitBackend} (waits for permits on a timer), and
 * {@link io.github.redissonratelimit.resilience.ResilientRateLimitBackend} (a deadline and a circuit breaker).
 * A stage fails with the backend's exception, never wrapped in a {@code CompletionException} by the backend
 * itself.
 *
 * <p>The limits of one call with several are asked together, in order, through {@link #acquireAll}: a backend may
 * send them together (the Redis backend decides them in one script call); a decorator keeps that possible by
 * overriding {@link #acquireAll} and passing its delegate the requests it does not answer itself, in one batch
 * (see {@link AcquireBatch#decorate}), as the decorators of this library do.
 */
public interface RateLimitBackend {

    /**
     * Takes {@code permits} from the limiter called {@code limiterName} if they are free now. The limiter is
     * created with {@code spec} when it does not exist yet.
     */
    CompletionStage<Decision> acquire(String limiterName, LimitSpec spec, long permits);

    /**
     * Decides the limits of one call, in order, each as {@link #acquire} would, and may send them together. Returns
     * the stages of the requests asked, in order: all of them, or fewer when the answer of one was known at once and
     * may end the call ({@link AcquireBatch#mayEndTheCall}); the requests after it were not asked, and the caller
     * asks them again if that answer did not end the call. The default asks one after the other through
     * {@link #acquire}.
     */
    default List<CompletionStage<Decision>> acquireAll(List<AcquireRequest> requests) {
        return AcquireBatch.oneByOne(this, requests);
    }

    /**
     * Gives back {@code permits} that a call took and did not use (a later limit of the same call rejected it).
     * The default fails with {@link UnsupportedOperationException}.
     */
    default CompletionStage<Void> release(String limiterName, LimitSpec spec, long permits) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException(getClass().getName()
                + " cannot give permits back: implement release(...) to put several @RateLimit on one method"));
    }

    /**
     * Reads, without taking anything, how many permits are free now and when the next one comes back. Costs a
     * round trip to the store; used for reads that are not decisions (the actuator endpoint), and for
     * remaining-permits headers only when a decision did not carry its {@link Decision#state()}. The default
     * fails with {@link UnsupportedOperationException}.
     */
    default CompletionStage<LimitState> state(String limiterName, LimitSpec spec) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException(getClass().getName()
                + " cannot report available permits"));
    }
}
