package io.github.redissonratelimit.lease;

/** What a lease layer holds of a limiter now, read as any caller of {@link LeaseCounts} reads it. */
final class Held {

    private Held() {
    }

    /** The permits it may still spend from memory; 0 when it holds none it may still spend. */
    static long permits(LeaseCounts counts, String limiterName) {
        LeaseCounts.Holding holding = counts.holding(limiterName);
        return holding == null ? 0 : holding.permits();
    }
}
