package io.github.redissonratelimit.lease;

import java.time.Duration;

/**
 * How this instance decided the calls of limits with a lease: from a lease in memory, or by a call to Redis. Their
 * ratio is the Redis calls per decision a lease saves. And what it holds of each limiter's lease now.
 */
public interface LeaseCounts {

    /** Decisions served from a lease in memory, without a call to Redis. */
    long leaseHits();

    /** Calls to Redis for decisions of leased limits (each a new lease or a plain decision). */
    long redisCalls();

    /**
     * The limiters this instance keeps a lease for: held, being fetched, or asked for within their last lease period
     * (those gone quiet longer are removed as new ones come).
     */
    int leasedLimiters();

    /** What this instance holds on the limiter's lease now; null when it holds no permit it may still spend. */
    Holding holding(String limiterName);

    /**
     * Permits this instance holds on a limiter's lease, not counted in Redis's free permits.
     * @param permits the permits it may still spend from memory
     * @param endsIn how long it may still spend them; then the unspent ones go back to Redis
     */
    record Holding(long permits, Duration endsIn) {
    }
}
