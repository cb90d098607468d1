package io.github.redissonratelimit.algorithm;

/**
 * What a lease's decision granted, as its algorithm reads it ({@link LimitAlgorithm#leaseGrant(String)}).
 *
 * @param receipt what a refund of the lease's unspent permits names
 * @param permits the permits granted, those of the call that took the lease included
 */
public record LeaseGrant(String receipt, long permits) {
}
