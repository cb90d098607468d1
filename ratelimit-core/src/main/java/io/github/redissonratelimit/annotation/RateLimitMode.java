package io.github.redissonratelimit.annotation;

/** Who shares one bucket of permits. */
public enum RateLimitMode {

    /**
     * Not set: the limit's policy, else {@code ratelimit.defaults.mode}, else {@link #OVERALL}. Only the
     * annotation and policies may leave the mode unset; the defaults must name one.
     */
    DEFAULT,

    /** One bucket for every application instance (Redisson {@code RateType.OVERALL}). */
    OVERALL,

    /**
     * One bucket per Redisson client, i.e. per application instance (Redisson {@code RateType.PER_CLIENT}):
     * {@code rate} is what each instance may do.
     */
    PER_CLIENT
}
