package io.github.redissonratelimit.autoconfigure.web;

import java.time.Duration;

import io.github.redissonratelimit.limiter.LimitSpec;

/**
 * What {@code RateLimit-Policy} tells of one limit: {@code q}, the most permits a caller can have at once, and
 * {@code w}, the seconds in which they come back.
 *
 * <ul>
 * <li>Sliding and fixed window: {@code q} the rate, {@code w} the interval.</li>
 * <li>Token bucket: {@code q} the burst, {@code w} the time to refill a whole burst at the rate
 * ({@code burst * interval / rate}).</li>
 * <li>Calendar quota: {@code q} the rate, no {@code w}: its periods differ in length (months, days with a clock
 * change), and {@code t} of {@code RateLimit} tells when the current one ends.</li>
 * </ul>
 * {@code w} is left out when it is not a whole number of seconds (the draft's {@code w} is an integer).
 */
final class QuotaPolicy {

    private QuotaPolicy() {
    }

    /** The {@code q} of the limit. */
    static long quota(LimitSpec limit) {
        return limit.capacity();
    }

    /** The {@code w} of the limit in seconds, or -1 to leave it out. */
    static long windowSeconds(LimitSpec limit) {
        Duration replenishment = limit.algorithm().replenishment(limit.rate(), limit.interval());
        if (replenishment == null) {
            return -1;
        }
        long millis = replenishment.toMillis();
        return millis % 1000 == 0 && replenishment.toNanos() % 1_000_000 == 0 ? millis / 1000 : -1;
    }

    /** The items's parameters after its name: {@code ;q=5;w=60}. */
    static String parameters(LimitSpec limit) {
        long window = windowSeconds(limit);
        return ";q=" + quota(limit) + (window < 0 ? "" : ";w=" + window);
    }
}
