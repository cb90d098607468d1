package io.github.redissonratelimit.autoconfigure;

import java.time.Duration;

import io.github.redissonratelimit.annotation.RateLimitMode;

/** The values of a limit that can be set per policy ({@code ratelimit.policies.<name>.*}) and as defaults. */
public class LimitProperties {

    /**
     * Permits granted per interval.
     */
    private Long rate;

    /**
     * Length of the window, e.g. 1s, 60s, 1m, 500ms.
     */
    private Duration interval;

    /**
     * 'overall': one bucket for all instances; 'per-client': one per Redisson client (application instance).
     */
    private RateLimitMode mode;

    /**
     * Permits one call takes.
     */
    private Long permits;

    public Long getRate() {
        return rate;
    }

    public void setRate(Long rate) {
        this.rate = rate;
    }

    public Duration getInterval() {
        return interval;
    }

    public void setInterval(Duration interval) {
        this.interval = interval;
    }

    public RateLimitMode getMode() {
        return mode;
    }

    public void setMode(RateLimitMode mode) {
        this.mode = mode;
    }

    public Long getPermits() {
        return permits;
    }

    public void setPermits(Long permits) {
        this.permits = permits;
    }

    void validate(PropertyErrors errors) {
        errors.require(rate == null || rate > 0, "rate", rate, "must be greater than 0");
        errors.require(interval == null || interval.toMillis() > 0, "interval", interval, "must be at least 1ms");
        errors.require(permits == null || permits > 0, "permits", permits, "must be greater than 0");
        if (permits != null && rate != null && permits > rate && permitsBoundedByRate()) {
            errors.reject("permits", errors.name("permits") + " (" + permits + ") must not exceed " + errors.name("rate")
                    + " (" + rate + ")");
        }
    }

    /** Whether permits must not exceed the rate here: not where a token bucket's burst bounds them instead. */
    boolean permitsBoundedByRate() {
        return true;
    }

    /** As {@link #validate}, for {@code ratelimit.defaults.*}, where 'default' is no mode. */
    void validateAsDefaults(PropertyErrors errors) {
        validate(errors);
        errors.require(mode != RateLimitMode.DEFAULT, "mode", "'default'",
                "must be 'overall' or 'per-client' (or unset for 'overall')",
                "'default' means \"not set\" on an annotation or policy");
    }
}
