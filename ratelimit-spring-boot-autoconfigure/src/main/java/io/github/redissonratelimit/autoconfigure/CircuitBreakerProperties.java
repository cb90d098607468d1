package io.github.redissonratelimit.autoconfigure;

import java.time.Duration;

/** {@code ratelimit.circuit-breaker.*}: when Redis is skipped after failures, and for how long. */
public class CircuitBreakerProperties {

    /**
     * Consecutive failed or timed-out decisions after which Redis is skipped for open-duration. On a Redis
     * Cluster each master has its own circuit: only the failing master is skipped.
     */
    private int failureThreshold = 5;

    /**
     * How long Redis is skipped once failure-threshold is reached; then one call probes it, and its
     * success resumes normal limiting.
     */
    private Duration openDuration = Duration.ofSeconds(1);

    public int getFailureThreshold() {
        return failureThreshold;
    }

    public void setFailureThreshold(int failureThreshold) {
        this.failureThreshold = failureThreshold;
    }

    public Duration getOpenDuration() {
        return openDuration;
    }

    public void setOpenDuration(Duration openDuration) {
        this.openDuration = openDuration;
    }

    void validate(PropertyErrors errors) {
        errors.atLeast(1, "failureThreshold", failureThreshold);
        errors.require(openDuration != null && !openDuration.isNegative() && !openDuration.isZero(), "openDuration",
                openDuration, "must be positive, e.g. 1s,");
    }
}
