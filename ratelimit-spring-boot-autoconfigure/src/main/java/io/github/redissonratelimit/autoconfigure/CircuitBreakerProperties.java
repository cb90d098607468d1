package io.github.redissonratelimit.autoconfigure;

import java.time.Duration;

import org.springframework.validation.Errors;

/** {@code ratelimit.circuit-breaker.*}: when Redis is skipped after failures, and for how long. */
public class CircuitBreakerProperties {

    /**
     * Consecutive failed or timed-out decisions after which Redis is skipped for open-duration.
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

    void validate(Errors errors) {
        if (failureThreshold < 1) {
            errors.rejectValue("failureThreshold", "invalid", "ratelimit.circuit-breaker.failure-threshold must be at "
                    + "least 1 but was " + failureThreshold);
        }
        if (openDuration == null || openDuration.isNegative() || openDuration.isZero()) {
            errors.rejectValue("openDuration", "invalid", "ratelimit.circuit-breaker.open-duration must be positive, "
                    + "e.g. 1s, but was " + openDuration);
        }
    }
}
