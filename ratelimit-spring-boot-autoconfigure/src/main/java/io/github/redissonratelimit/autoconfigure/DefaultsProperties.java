package io.github.redissonratelimit.autoconfigure;

import java.time.ZoneId;

import io.github.redissonratelimit.annotation.RateLimitAlgorithm;

/** Values for every limit that neither its policy nor its annotation sets: {@code ratelimit.defaults.*}. */
public class DefaultsProperties extends LimitProperties {

    /**
     * Algorithm of the limits that choose none: 'sliding-window', 'token-bucket' or 'fixed-window'; a calendar quota
     * is a fixed window whatever this says. Unset: 'sliding-window'.
     */
    private RateLimitAlgorithm algorithm;

    /**
     * Zone of the calendar quotas (@RateLimit(calendar = ...)) that set none in their policy, e.g. Europe/Berlin:
     * their days, weeks, months and years start at midnight there. Unset: UTC.
     */
    private ZoneId zone;

    public RateLimitAlgorithm getAlgorithm() {
        return algorithm;
    }

    public void setAlgorithm(RateLimitAlgorithm algorithm) {
        this.algorithm = algorithm;
    }

    public ZoneId getZone() {
        return zone;
    }

    public void setZone(ZoneId zone) {
        this.zone = zone;
    }

    @Override
    void validateAsDefaults(PropertyErrors errors) {
        super.validateAsDefaults(errors);
        errors.require(algorithm != RateLimitAlgorithm.DEFAULT, "algorithm", "'default'",
                "must be 'sliding-window', 'token-bucket' or 'fixed-window' (or unset for 'sliding-window')",
                "'default' means \"not set\" on an annotation or policy");
    }
}
