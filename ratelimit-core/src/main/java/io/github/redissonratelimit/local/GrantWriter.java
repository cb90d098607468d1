package io.github.redissonratelimit.local;

import java.util.List;
import java.util.concurrent.CompletionStage;

import io.github.redissonratelimit.limiter.LimitSpec;

/**
 * Writes the grants this instance made in memory into the shared limiter once it answers again, as grants of its
 * window, so that every instance's later decisions count them ({@link LocalFallback#writeBackTo}). The Redis backend's
 * is {@code io.github.redissonratelimit.redis.InMemoryGrantWriter}.
 */
@FunctionalInterface
public interface GrantWriter {

    /**
     * Writes {@code grants} of the limiter {@code limiterName} (declared as {@code spec}): each one placed
     * {@link Grant#ageMillis} before the store's clock when it is written, none counted twice when written again.
     * Completes with the permits added (those of grants written before, or out of the window, are not) when they are
     * written; fails when they may not be.
     */
    CompletionStage<Long> write(String limiterName, LimitSpec spec, List<Grant> grants);

    /**
     * One grant made in memory.
     *
     * @param id unique among this instance's grants: what makes a second write of the same grant count nothing
     * @param permits the permits granted
     * @param ageMillis how long ago it was made, on this JVM's monotonic clock, when the write is sent
     */
    record Grant(String id, long permits, long ageMillis) {
    }
}
