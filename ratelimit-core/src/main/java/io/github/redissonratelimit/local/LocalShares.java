package io.github.redissonratelimit.local;

import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.LimitSpec;

/**
 * What one instance may grant of a limit on its own, in memory: its share of what the instances together grant per
 * interval ({@link #inMemoryRate}), split by {@link InstanceCount#shareOf} so that the shares add up to it (a
 * PER_CLIENT limit is each instance's own).
 */
final class LocalShares {

    private final InstanceCount instances;

    LocalShares(InstanceCount instances) {
        this.instances = instances;
    }

    /** The permits this instance may grant on its own per interval. */
    long shareOf(LimitSpec spec) {
        long rate = inMemoryRate(spec);
        return spec.mode() == RateLimitMode.PER_CLIENT ? rate : instances.shareOf(rate);
    }

    /**
     * This instance's part of the permits the bound allows above the rate (a tenth of it, none under 10), split like
     * the shares so that the instances' parts add up to it: what it may take again of its grants that left the window
     * between Redis's last answer and the outage, whose permits another instance may have got from Redis.
     */
    long allowanceOf(LimitSpec spec) {
        long tenth = inMemoryRate(spec) / 10;
        return spec.mode() == RateLimitMode.PER_CLIENT ? tenth : instances.shareOf(tenth);
    }

    /**
     * What the instances together grant in memory per interval: the algorithm's outage quota (the rate, or a token
     * bucket's burst when smaller: a bucket lets its burst out at once, and no more than it plus the rate over any
     * span).
     */
    static long inMemoryRate(LimitSpec spec) {
        return spec.algorithm().outageQuota(spec.rate());
    }
}
