package io.github.redissonratelimit.autoconfigure.actuate;

import java.time.Duration;
import java.util.List;

import org.springframework.boot.convert.DurationStyle;

import io.github.redissonratelimit.algorithm.LimitAlgorithm;
import io.github.redissonratelimit.operation.RateLimitOperation;

/**
 * The values of {@code POST /actuator/ratelimits/{name}}, read from the request's text and checked against the
 * limit they change before anything is written, so that a wrong one is refused naming its field and the rule.
 *
 * @param rate permits per interval, at least 1
 * @param interval at least 1 ms; for a calendar quota, its period's longest (an override changes its rate only)
 * @param permits permits per call from 1 to the rate, or {@code null} to keep each method's own
 */
record OverrideRequest(long rate, Duration interval, Long permits) {

    private static final String DURATION = "a duration such as 30s, 1m or PT1M, of at least 1ms";

    /**
     * @param operations the declared operations of the limit (one per method that shares it)
     * @throws RefusedWrite naming the first field at fault
     */
    static OverrideRequest of(String rate, String interval, String permits, List<RateLimitOperation> operations) {
        long parsedRate = wholeNumber("rate", rate, 1, Long.MAX_VALUE, "must be a whole number of at least 1");
        LimitAlgorithm fixed = operations.stream().map(operation -> operation.spec().algorithm())
                .filter(algorithm -> algorithm.interval() != null).findFirst().orElse(null);
        Duration parsedInterval = fixed != null && (interval == null || interval.isBlank()) ? fixed.interval()
                : duration(interval);
        if (fixed != null && !parsedInterval.equals(fixed.interval())) {
            throw RefusedWrite.field("interval", interval, "cannot be overridden: the limit is a " + fixed
                    + ", whose window is the period; leave interval out to override the rate only");
        }
        Long parsedPermits = permits == null ? null : wholeNumber("permits", permits, 1, parsedRate,
                "must be a whole number from 1 to the rate (" + parsedRate + ")");
        if (parsedPermits == null) {
            for (RateLimitOperation operation : operations) {
                if (operation.permits() > parsedRate) {
                    throw RefusedWrite.field("rate", rate, "must be at least the " + operation.permits()
                            + " permits each call of " + operation.method() + " takes: give a higher rate, or permits");
                }
            }
        }
        return new OverrideRequest(parsedRate, parsedInterval, parsedPermits);
    }

    private static long wholeNumber(String field, String text, long min, long max, String rule) {
        if (text == null || text.isBlank()) {
            throw RefusedWrite.field(field, null, "is required: it " + rule);
        }
        long value;
        try {
            value = Long.parseLong(text.strip());
        }
        catch (NumberFormatException ex) {
            throw RefusedWrite.field(field, text, rule);
        }
        if (value < min || value > max) {
            throw RefusedWrite.field(field, text, rule);
        }
        return value;
    }

    private static Duration duration(String text) {
        if (text == null || text.isBlank()) {
            throw RefusedWrite.field("interval", null, "is required: it must be " + DURATION);
        }
        Duration duration;
        try {
            duration = DurationStyle.detectAndParse(text.strip());
        }
        catch (IllegalArgumentException ex) {
            throw RefusedWrite.field("interval", text, "must be " + DURATION);
        }
        if (duration.isNegative() || duration.compareTo(Duration.ofMillis(1)) < 0
                || duration.compareTo(Duration.ofMillis(Long.MAX_VALUE)) > 0) {
            throw RefusedWrite.field("interval", text, "must be " + DURATION);
        }
        return duration;
    }
}
