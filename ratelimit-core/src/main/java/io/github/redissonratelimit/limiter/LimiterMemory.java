package io.github.redissonratelimit.limiter;

import java.util.function.Predicate;

/**
 * Something this instance remembers about limiters in memory (rejections answered locally, the configs already
 * compared with Redis, the grants the local outage policy counts), which must be forgotten when the limiters' keys
 * are deleted or their limit changes. Register each with the instance's {@link LimiterMemories}, which resets tell.
 */
@FunctionalInterface
public interface LimiterMemory {

    /** Forgets what is remembered about every limiter whose name {@code limiterNames} accepts. */
    void forget(Predicate<String> limiterNames);
}
