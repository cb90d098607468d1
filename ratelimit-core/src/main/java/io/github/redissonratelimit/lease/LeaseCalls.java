package io.github.redissonratelimit.lease;

import io.github.redissonratelimit.limiter.LimitSpec;
import io.github.redissonratelimit.limiter.RateLimitBackend;

/** What a {@link LimiterLease} asks of the backend that holds it: its delegate, refunds and the counts. */
interface LeaseCalls {

    RateLimitBackend delegate();

    /** Gives back a lease's unspent permits ({@code unspent} may be null: nothing to give back). */
    void giveBack(String limiterName, LimitSpec spec, LimiterLease.Unspent unspent);

    /** A decision served from a lease, without a call to Redis. */
    void hit();

    /** A call to Redis for a decision of a leased limit. */
    void redisCall();
}
