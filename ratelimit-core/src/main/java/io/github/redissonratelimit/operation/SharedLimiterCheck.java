package io.github.redissonratelimit.operation;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.github.redissonratelimit.InvalidRateLimitException;

/**
 * Several limits of one method that resolve to the same limiter would share one bucket in Redis, set up
 * with whichever rate came first: they are refused, naming what to change.
 */
final class SharedLimiterCheck {

    private SharedLimiterCheck() {
    }

    /** @throws InvalidRateLimitException for the first limit whose limiter an earlier one already uses */
    static void requireDistinct(List<RateLimitOperation> operations, String method) {
        Map<String, RateLimitOperation> seen = new HashMap<>();
        for (RateLimitOperation operation : operations) {
            String identity = operation.key() == null ? "name " + operation.name() : "key " + operation.key().source();
            RateLimitOperation first = seen.putIfAbsent(identity, operation);
            if (first == null) {
                continue;
            }
            String window = shortWindow(operation.spec().interval());
            if (operation.key() == null) {
                throw new InvalidRateLimitException(method, "name", "\"" + operation.name() + "\" is the same for "
                        + first.spec() + " and " + operation.spec() + ", so both would use one limiter in Redis",
                        "give each @RateLimit of the method its own name, e.g. name = \"" + operation.displayName()
                                + "-" + window + "\"", null);
            }
            throw new InvalidRateLimitException(method, "key", "\"" + operation.key().source() + "\" is the same for "
                    + first.spec() + " and " + operation.spec() + ", so both would use one limiter in Redis",
                    "give each @RateLimit of the method its own key, e.g. key = \"" + operation.key().source()
                            + " + ':" + window + "'\"", null);
        }
    }

    /** {@code 1h}, {@code 30s}, {@code 500ms}: for suggested names. */
    private static String shortWindow(Duration interval) {
        long millis = interval.toMillis();
        if (millis % 3_600_000 == 0) {
            return millis / 3_600_000 + "h";
        }
        if (millis % 60_000 == 0) {
            return millis / 60_000 + "m";
        }
        return millis % 1_000 == 0 ? millis / 1_000 + "s" : millis + "ms";
    }
}
