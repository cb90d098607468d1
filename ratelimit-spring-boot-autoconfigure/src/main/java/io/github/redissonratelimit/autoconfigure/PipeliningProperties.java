package io.github.redissonratelimit.autoconfigure;

/** {@code ratelimit.pipelining.*}: how concurrent decisions share round trips to Redis. */
public class PipeliningProperties {

    /**
     * Whether a decision that arrives while max-in-flight pipelines wait for Redis is queued and sent with
     * the others queued meanwhile, in one pipeline. Each decision stays its own script call; only the
     * round trips are shared. When off, every decision is sent on its own at once.
     */
    private boolean enabled = true;

    /**
     * How many pipelines (or single decisions) each instance lets wait for Redis at once, per master on a
     * Redis Cluster. 0 turns
     * pipelining off, like enabled=false: every decision is sent on its own at once.
     */
    private int maxInFlight = 3;

    /**
     * The most decisions one pipeline carries.
     */
    private int maxBatchSize = 64;

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public int getMaxInFlight() {
        return maxInFlight;
    }

    public void setMaxInFlight(int maxInFlight) {
        this.maxInFlight = maxInFlight;
    }

    public int getMaxBatchSize() {
        return maxBatchSize;
    }

    public void setMaxBatchSize(int maxBatchSize) {
        this.maxBatchSize = maxBatchSize;
    }

    void validate(PropertyErrors errors) {
        errors.require(maxInFlight >= 0, "maxInFlight", maxInFlight, "must be 0 (no pipelining) or more");
        errors.atLeast(1, "maxBatchSize", maxBatchSize);
    }
}
