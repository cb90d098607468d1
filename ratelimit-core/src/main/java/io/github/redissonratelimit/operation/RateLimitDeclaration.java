package io.github.redissonratelimit.operation;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.github.redissonratelimit.InvalidRateLimitException;
import io.github.redissonratelimit.annotation.BackendErrorPolicy;
import io.github.redissonratelimit.annotation.CalendarPeriod;
import io.github.redissonratelimit.annotation.RateLimitAlgorithm;
import io.github.redissonratelimit.annotation.RateLimitMode;

/**
 * What one annotation declares, before policies, defaults and validation. As in
 * {@link io.github.redissonratelimit.annotation.RateLimit}, 0 and {@code DEFAULT} mean not set; texts that
 * were not set are {@code null}; {@code shadow} is false when not set; {@code calendar} is {@code NONE} when not set.
 */
record RateLimitDeclaration(String name, String key, long rate, DeclaredWindow window, RateLimitMode mode,
        long permits, String message, BackendErrorPolicy onBackendError, String waitTimeout, String fallback,
        String condition, String skipIf, String cost, boolean shadow, String tier, String chargeWhen,
        RateLimitAlgorithm algorithm, long burst, CalendarPeriod calendar, String lease) {

    /** A declaration without a lease. */
    RateLimitDeclaration(String name, String key, long rate, DeclaredWindow window, RateLimitMode mode,
            long permits, String message, BackendErrorPolicy onBackendError, String waitTimeout, String fallback,
            String condition, String skipIf, String cost, boolean shadow, String tier, String chargeWhen,
            RateLimitAlgorithm algorithm, long burst, CalendarPeriod calendar) {
        this(name, key, rate, window, mode, permits, message, onBackendError, waitTimeout, fallback, condition, skipIf,
                cost, shadow, tier, chargeWhen, algorithm, burst, calendar, null);
    }

    /** The window as written: a duration text, or an interval in a unit; {@code null} text and 0 when not set. */
    record DeclaredWindow(String text, long interval, TimeUnit unit) {

        /**
         * @param method how errors name the limited method
         * @return {@code null} when not set
         * @throws InvalidRateLimitException when window and interval are both set, the text is not a duration, or
         *         the interval is negative or under 1ms
         */
        Duration toDuration(String method) {
            if (text != null) {
                if (interval != 0) {
                    throw new InvalidRateLimitException(method, "window", "is set together with interval",
                            "use either window = \"" + text + "\" or interval + unit", null);
                }
                return DurationText.parseAttribute(text, "window", method, "\"500ms\", \"60s\", \"1m\" or \"PT1M\"");
            }
            if (interval < 0) {
                throw new InvalidRateLimitException(method, "interval", "must be greater than 0 but was " + interval,
                        "set a positive interval, e.g. interval = 60 (seconds)", null);
            }
            if (interval == 0) {
                return null;
            }
            Duration duration = Duration.ofNanos(unit.toNanos(interval));
            if (duration.toMillis() <= 0) {
                throw new InvalidRateLimitException(method, "interval", "is shorter than 1ms (" + interval + " "
                        + unit + ")", "Redis keeps time in milliseconds: use an interval of at least 1ms", null);
            }
            return duration;
        }
    }
}
