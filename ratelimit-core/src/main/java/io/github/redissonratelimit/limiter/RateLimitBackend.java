package io.github.redissonratelimit.limiter;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.github.redissonratelimit.naming.LimiterNaming;

/**
 * Takes permits from a named distributed limiter, without blocking the caller. Every decision is asked with one
 * {@link AcquireRequest}: the limiter, its spec and the permits, and what the call makes of the answer (its outage
 * policy, shadow mode, how long it may wait), so that each layer of the decision stack reads what concerns it from
 * the request itself.
 *
 * <p>Only {@link #acquire(AcquireRequest)} must be implemented; {@link #release} and {@link #state} fail with
 * {@link UnsupportedOperationException} unless a backend can give permits back or tell what is left.
 * Callers that must block wait for the returned stage; there is no second, blocking form of any operation.
 * A stage fails with the backend's exception, never wrapped in a {@code CompletionException} by the backend itself.
 *
 * <p>Decorators add behaviour around a backend. The auto-configuration composes them in one place, innermost first:
 * the deadline and circuit breaker ({@link io.github.redissonratelimit.resilience.ResilientRateLimitBackend}), the
 * {@link LocalRejectionCache} (answers a flood from memory), the {@link WaitingRateLimitBackend} (waits for permits
 * on a timer, for requests with a wait) and the local outage policy
 * ({@link io.github.redissonratelimit.local.LocalOutagePolicy}, for requests under {@code LOCAL}).
 *
 * <p>The limits of one call with several are asked together, in order, through {@link #acquireAll}: a backend may
 * send them together (the Redis backend decides them in one script call); a decorator keeps that possible by
 * overriding {@link #acquireAll} and passing its delegate the requests it does not answer itself, in one batch
 * (see {@link AcquireBatch#decorate}), as the decorators of this library do.
 */
public interface RateLimitBackend {

    /**
     * Takes the request's permits from its limiter if they are free now (or, for a request with a wait, within it).
     * The limiter is created with the request's spec when it does not exist yet.
     */
    CompletionStage<Decision> acquire(AcquireRequest request);

    /**
     * The name of the limiter that holds the permits of {@code logicalKey} ({@code order:submit:42}), under which
     * requests reach this backend: the Redis backend's key layout ({@code ratelimit.key-prefix}, key style and
     * length). The default is that layout with its default prefix; a decorator answers as the backend it wraps.
     */
    default String limiterName(String logicalKey) {
        return LimiterNaming.DEFAULT.limiterName(logicalKey);
    }

    /** Shorthand for {@link #acquire(AcquireRequest)} with {@link AcquireRequest#of}: no wait, no outage policy. */
    default CompletionStage<Decision> acquire(String limiterName, LimitSpec spec, long permits) {
        return acquire(AcquireRequest.of(limiterName, spec, permits));
    }

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
     * Gives back the permits that {@code granted}, this backend's answer to {@code request}, took and the call did
     * not use (a later limit of the same call rejected it). The default fails with
     * {@link UnsupportedOperationException}.
     */
    default CompletionStage<Void> release(AcquireRequest request, Decision granted) {
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
