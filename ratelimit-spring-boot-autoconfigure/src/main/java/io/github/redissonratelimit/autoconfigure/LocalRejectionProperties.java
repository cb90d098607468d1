package io.github.redissonratelimit.autoconfigure;

/**
 * {@code ratelimit.local-rejection.*}. Once Redis has rejected a limiter and said when its permits come back, the
 * same instance rejects further calls for that limiter from memory until then, without a round trip. Exact: no
 * permit can come back before the oldest grant leaves the window. Do not use with RRateLimiter.release() or
 * resetting a limiter's state by other means on the same limiters.
 */
public class LocalRejectionProperties {

    /**
     * Whether calls to a limiter that Redis reported out of permits are rejected from memory until the
     * permits can be free.
     */
    private boolean enabled = true;

    /**
     * How many limiters out of permits each instance remembers at most; each is forgotten when its
     * permits can be free.
     */
    private long maxEntries = 10_000;

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public long getMaxEntries() {
        return maxEntries;
    }

    public void setMaxEntries(long maxEntries) {
        this.maxEntries = maxEntries;
    }

    void validate(PropertyErrors errors) {
        errors.require(maxEntries >= 1, "maxEntries", maxEntries, "must be at least 1",
                "to turn local rejection off set ratelimit.local-rejection.enabled=false");
    }
}
