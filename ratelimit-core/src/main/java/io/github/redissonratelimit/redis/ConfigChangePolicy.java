package io.github.redissonratelimit.redis;

/**
 * What to do when a limiter already in Redis has another rate, interval, mode or key TTL than the one
 * declared now (the limit was changed in code or properties). Checked once per limiter per JVM.
 */
public enum ConfigChangePolicy {

    /**
     * Apply the declared config and keep the grants of the current window (Redisson {@code updateRate}
     * with {@code keepState}); a changed mode starts from a full bucket.
     */
    UPDATE,

    /** Apply the declared config and start from a full bucket (Redisson {@code setRate}). */
    RESET,

    /** Keep what Redis has (plain {@code trySetRate} behaviour) and log a warning naming both configs. */
    KEEP
}
