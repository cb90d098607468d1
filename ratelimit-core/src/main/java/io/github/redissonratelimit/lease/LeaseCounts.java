package io.github.redissonratelimit.lease;

/**
 * How this instance decided the calls of limits with a lease: from a lease in memory, or by a call to Redis. Their
 * ratio is the Redis calls per decision a lease saves.
 */
public interface LeaseCounts {

    /** Decisions served from a lease in memory, without a call to Redis. */
    long leaseHits();

    /** Calls to Redis for decisions of leased limits (each a new lease or a plain decision). */
    long redisCalls();
}
