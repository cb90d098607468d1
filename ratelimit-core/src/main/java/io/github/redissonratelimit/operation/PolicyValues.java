package io.github.redissonratelimit.operation;

import java.time.Duration;

import io.github.redissonratelimit.annotation.BackendErrorPolicy;
import io.github.redissonratelimit.annotation.RateLimitMode;

/**
 * Values configured outside the annotation (e.g. in application.yml) for one named limit, or as
 * defaults for all limits. A {@code null} component is not configured.
 *
 * @param enabled {@code false} switches the limit off: the method runs unlimited
 * @param onBackendError what the limit does when Redis gives no decision; overrides the annotation's
 * @param shadow whether the limit only records what it would reject (shadow mode); overrides the annotation's
 */
public record PolicyValues(Long rate, Duration interval, RateLimitMode mode, Long permits, Boolean enabled,
        BackendErrorPolicy onBackendError, Boolean shadow) {

    public static final PolicyValues NONE = new PolicyValues(null, null, null, null, null, null, null);

    public PolicyValues(Long rate, Duration interval, RateLimitMode mode, Long permits, Boolean enabled,
            BackendErrorPolicy onBackendError) {
        this(rate, interval, mode, permits, enabled, onBackendError, null);
    }

    public PolicyValues(Long rate, Duration interval, RateLimitMode mode, Long permits, Boolean enabled) {
        this(rate, interval, mode, permits, enabled, null);
    }

    public boolean isDisabled() {
        return Boolean.FALSE.equals(enabled);
    }
}
