package io.github.redissonratelimit.operation;

import java.time.Duration;
import java.util.Map;

import io.github.redissonratelimit.annotation.BackendErrorPolicy;
import io.github.redissonratelimit.annotation.RateLimitMode;

/**
 * Values configured outside the annotation (e.g. in application.yml) for one named limit, or as
 * defaults for all limits. A {@code null} component is not configured.
 *
 * @param enabled {@code false} switches the limit off: the method runs unlimited
 * @param onBackendError what the limit does when Redis gives no decision; overrides the annotation's
 * @param shadow whether the limit only records what it would reject (shadow mode); overrides the annotation's
 * @param tiers values per tier ({@code @RateLimit(tier = ...)}), each overriding the policy's own rate, interval,
 * mode, permits and burst for the calls of that tier; never null
 * @param algorithm the algorithm, burst, calendar period and zone; never null ({@link AlgorithmValues#NONE} when
 * none is configured)
 * @param lease the lease period (see {@link io.github.redissonratelimit.annotation.RateLimit#lease()}); overrides
 * the annotation's
 */
public record PolicyValues(Long rate, Duration interval, RateLimitMode mode, Long permits, Boolean enabled,
        BackendErrorPolicy onBackendError, Boolean shadow, Map<String, PolicyValues> tiers,
        AlgorithmValues algorithm, Duration lease) {

    public static final PolicyValues NONE = new PolicyValues(null, null, null, null, null, null, null, Map.of(),
            AlgorithmValues.NONE, null);

    public PolicyValues {
        tiers = tiers == null ? Map.of() : Map.copyOf(tiers);
        algorithm = algorithm == null ? AlgorithmValues.NONE : algorithm;
    }

    /** Values without a lease. */
    public PolicyValues(Long rate, Duration interval, RateLimitMode mode, Long permits, Boolean enabled,
            BackendErrorPolicy onBackendError, Boolean shadow, Map<String, PolicyValues> tiers,
            AlgorithmValues algorithm) {
        this(rate, interval, mode, permits, enabled, onBackendError, shadow, tiers, algorithm, null);
    }

    /** Values with the sliding window unless the defaults say otherwise. */
    public PolicyValues(Long rate, Duration interval, RateLimitMode mode, Long permits, Boolean enabled,
            BackendErrorPolicy onBackendError, Boolean shadow, Map<String, PolicyValues> tiers) {
        this(rate, interval, mode, permits, enabled, onBackendError, shadow, tiers, AlgorithmValues.NONE);
    }

    public PolicyValues(Long rate, Duration interval, RateLimitMode mode, Long permits, Boolean enabled,
            BackendErrorPolicy onBackendError, Boolean shadow) {
        this(rate, interval, mode, permits, enabled, onBackendError, shadow, Map.of());
    }

    public PolicyValues(Long rate, Duration interval, RateLimitMode mode, Long permits, Boolean enabled,
            BackendErrorPolicy onBackendError) {
        this(rate, interval, mode, permits, enabled, onBackendError, null, Map.of());
    }

    public PolicyValues(Long rate, Duration interval, RateLimitMode mode, Long permits, Boolean enabled) {
        this(rate, interval, mode, permits, enabled, null);
    }

    /**
     * The values of {@code tier}: its own where it sets them, this policy's otherwise (its algorithm, calendar period
     * and zone always this policy's: the tiers share the key's limiter); {@code null} when unknown.
     */
    public PolicyValues forTier(String tier) {
        PolicyValues values = tiers.get(tier);
        if (values == null) {
            return null;
        }
        RateLimitMode tierMode = values.mode != null && values.mode != RateLimitMode.DEFAULT ? values.mode : mode;
        return new PolicyValues(values.rate != null ? values.rate : rate,
                values.interval != null ? values.interval : interval, tierMode,
                values.permits != null ? values.permits : permits, enabled, onBackendError, shadow, Map.of(),
                algorithm.forTier(values.algorithm), lease);
    }

    public boolean isDisabled() {
        return Boolean.FALSE.equals(enabled);
    }
}
