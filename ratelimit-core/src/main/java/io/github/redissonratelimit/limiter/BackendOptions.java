package io.github.redissonratelimit.limiter;

import java.time.Duration;
import java.util.Objects;

/**
 * @param knownLimiters how many limiter names one JVM remembers as checked; past it the least recently
 * used are forgotten and checked again (one or two extra calls) on their next use
 * @param keyTtl how long a limiter's keys live after its last use (never less than its interval);
 * {@link Duration#ZERO} keeps them forever
 * @param onConfigChange what to do when Redis holds another config than the declared one
 */
public record BackendOptions(long knownLimiters, Duration keyTtl, ConfigChangePolicy onConfigChange) {

    public static final BackendOptions DEFAULTS = new BackendOptions(100_000, Duration.ofHours(1),
            ConfigChangePolicy.UPDATE);

    public BackendOptions {
        Objects.requireNonNull(keyTtl, "keyTtl");
        Objects.requireNonNull(onConfigChange, "onConfigChange");
        if (knownLimiters < 1) {
            throw new IllegalArgumentException("knownLimiters must be at least 1 but was " + knownLimiters);
        }
        if (keyTtl.isNegative()) {
            throw new IllegalArgumentException("keyTtl must not be negative but was " + keyTtl);
        }
    }

    /** The keep-alive RRateLimiter gets for a limiter with {@code interval}. */
    public Duration keepAlive(Duration interval) {
        if (keyTtl.isZero()) {
            return Duration.ZERO;
        }
        return keyTtl.compareTo(interval) < 0 ? interval : keyTtl;
    }
}
