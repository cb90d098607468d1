package io.github.redissonratelimit.autoconfigure;

import java.time.Duration;

import io.github.redissonratelimit.resilience.ResilientRateLimitBackend;

/** {@code ratelimit.circuit-breaker.*}: when Redis counts as down, when it is skipped then, and for how long. */
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

    /**
     * How long Redis may take to answer a decision, from its start, before it counts as down (a failure towards
     * failure-threshold); longer than backend-timeout. A decision still gets the outage policy at backend-timeout,
     * but an answer that comes later, within this time, proves Redis alive and counts as a success: a slow Redis or a
     * busy JVM never opens the circuit. Errors (a lost connection, a refusal) count at once. Default: 1s, or twice
     * backend-timeout when that is longer.
     */
    private Duration livenessTimeout;

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

    public Duration getLivenessTimeout() {
        return livenessTimeout;
    }

    public void setLivenessTimeout(Duration livenessTimeout) {
        this.livenessTimeout = livenessTimeout;
    }

    /** The liveness timeout in force with {@code backendTimeout}: the one set, or the default. */
    public Duration livenessTimeout(Duration backendTimeout) {
        return livenessTimeout != null ? livenessTimeout : ResilientRateLimitBackend.defaultLiveness(backendTimeout);
    }

    void validate(PropertyErrors errors, Duration backendTimeout) {
        errors.atLeast(1, "failureThreshold", failureThreshold);
        errors.require(openDuration != null && !openDuration.isNegative() && !openDuration.isZero(), "openDuration",
                openDuration, "must be positive, e.g. 1s,");
        errors.require(livenessTimeout == null || backendTimeout == null || livenessTimeout.compareTo(backendTimeout) > 0,
                "livenessTimeout", livenessTimeout, "must be longer than ratelimit.backend-timeout ("
                        + (backendTimeout == null ? "" : backendTimeout.toMillis() + "ms") + ")",
                "set a longer one, or leave it unset (1s, or twice backend-timeout when that is longer)");
    }
}
