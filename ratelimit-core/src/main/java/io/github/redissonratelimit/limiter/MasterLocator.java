package io.github.redissonratelimit.limiter;

import java.util.Set;

/**
 * Which Redis master holds a limiter's keys, for a backend that spreads limiters over several masters (a Redis
 * Cluster). {@link io.github.redissonratelimit.resilience.ResilientRateLimitBackend} keeps one circuit breaker per
 * master when its delegate is one, so that a dead master only costs the decisions of the limiters in its slots.
 */
public interface MasterLocator {

    /** The key of the one master of a Redis that is not a cluster (single server, Sentinel). */
    String SINGLE_MASTER = "redis";

    /** The master that holds {@code limiterName}'s keys now ({@code host:port}, or {@link #SINGLE_MASTER}). */
    String masterOf(String limiterName);

    /** The masters that hold limiters now; a master that lost its slots (to a promoted replica) is not among them. */
    Set<String> masters();
}
