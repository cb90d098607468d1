package io.github.redissonratelimit.annotation;

/** Who shares one bucket of permits. */
public enum RateLimitMode {

    /** One bucket for every application instance (Redisson {@code RateType.OVERALL}). */
    OVERALL,

    /**
     * One bucket per Redisson client, i.e. per application instance (Redisson {@code RateType.PER_CLIENT}):
     * {@code rate} is what each instance may do.
     */
    PER_CLIENT
}
