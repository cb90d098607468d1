package io.github.redissonratelimit.lease;

import java.util.concurrent.CompletionStage;

import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.RateLimitBackend;

/** What a {@link LimiterLease} asks of the backend that holds it: its delegate, refunds and the counts. */
interface LeaseCalls {

    RateLimitBackend delegate();

    /** Decides {@code request} afresh through the backend (a dropped lease's callers: a new lease, or none). */
    CompletionStage<Decision> again(AcquireRequest request);

    /**
     * Gives back a lease's unspent permits; the stage completes, never exceptionally, when Redis answered (or the
     * give-back failed: they then leave the window one interval after the lease's end).
     */
    CompletionStage<Void> giveBack(String limiterName, LimitSpec spec, LimiterLease.Unspent unspent);

    /** A decision served from a lease, without a call to Redis. */
    void hit();

    /** A call to Redis for a decision of a leased limit. */
    void redisCall();
}
