package io.github.redissonratelimit.operation;

import java.time.Duration;
import java.time.ZoneId;

import io.github.redissonratelimit.InvalidRateLimitException;
import io.github.redissonratelimit.annotation.CalendarPeriod;
import io.github.redissonratelimit.annotation.RateLimitAlgorithm;
import io.github.redissonratelimit.limiter.LimitAlgorithm;

/**
 * Resolves the window and the algorithm of one limit, which depend on each other: a calendar period is the window of
 * a fixed-window quota (its interval is the period's longest), a burst belongs to a token bucket.
 *
 * <p>The window comes from the first of policy and declaration that sets an interval or a calendar period (setting
 * both in one place is refused), else from the defaults' interval, else 1 second. The algorithm comes from the
 * policy, the declaration, then {@code FIXED_WINDOW} for a calendar quota, then the defaults, then the sliding window.
 */
final class AlgorithmResolver {

    /** The resolved window and algorithm; {@code capacity} names where the most permits a call can take come from. */
    record Resolved(Sourced<Duration> interval, LimitAlgorithm algorithm, String capacity) {
    }

    private AlgorithmResolver() {
    }

    static Resolved resolve(RateLimitDeclaration declaration, PolicyValues policy, ValueResolver values,
            Sourced<Long> rate, String method) {
        Duration declaredInterval = declaration.window().toDuration(method);
        Sourced<CalendarPeriod> calendar = calendar(declaration, declaredInterval, policy, values, method);
        boolean quota = calendar != null && calendar.value() != CalendarPeriod.NONE;
        Sourced<Duration> interval = quota ? new Sourced<>(calendar.value().longest(), calendar.origin())
                : values.resolve("interval", PolicyValues::interval, declaredInterval, Duration.ofSeconds(1));
        if (interval.value().toMillis() <= 0) {
            throw new InvalidRateLimitException(method, interval.origin(), "must be at least 1ms but was "
                    + interval.value(), "Redis keeps time in milliseconds: use a window of at least 1ms", null);
        }
        Sourced<RateLimitAlgorithm> type = values.explicit("algorithm", policyValues -> policyValues.algorithm()
                .algorithm(), declaration.algorithm() == RateLimitAlgorithm.DEFAULT ? null : declaration.algorithm());
        if (type == null) {
            type = quota ? new Sourced<>(RateLimitAlgorithm.FIXED_WINDOW, calendar.origin())
                    : values.resolve("algorithm", policyValues -> policyValues.algorithm().algorithm(), null,
                            RateLimitAlgorithm.SLIDING_WINDOW);
        }
        if (quota && type.value() != RateLimitAlgorithm.FIXED_WINDOW) {
            throw new InvalidRateLimitException(method, calendar.origin(), "is " + calendar.value() + ", but "
                    + type.origin() + " is " + type.value() + ": only a fixed window follows the calendar",
                    "set algorithm to FIXED_WINDOW (or leave it unset), or remove " + calendar.origin(), null);
        }
        Sourced<Long> burst = burst(declaration, values, type, method);
        ZoneId zone = zone(values, quota, method);
        LimitAlgorithm algorithm = switch (type.value()) {
            case TOKEN_BUCKET -> LimitAlgorithm.tokenBucket(burst == null ? rate.value() : burst.value());
            case FIXED_WINDOW -> quota ? LimitAlgorithm.fixedWindow(calendar.value(), zone)
                    : LimitAlgorithm.fixedWindow();
            default -> LimitAlgorithm.SLIDING_WINDOW;
        };
        return new Resolved(interval, algorithm, burst != null ? burst.origin() : rate.origin());
    }

    /**
     * The calendar period, {@code null} when none is set. A policy's interval replaces a declared period, as a
     * policy's period replaces a declared interval.
     */
    private static Sourced<CalendarPeriod> calendar(RateLimitDeclaration declaration, Duration declaredInterval,
            PolicyValues policy, ValueResolver values, String method) {
        CalendarPeriod fromPolicy = policy == null ? null : policy.algorithm().calendar();
        if (fromPolicy != null && fromPolicy != CalendarPeriod.NONE && policy.interval() != null) {
            throw new InvalidRateLimitException(method, values.policyValue("interval"), "(" + policy.interval()
                    + ") is set, but the limit is a quota per " + fromPolicy + " (" + values.policyValue("calendar")
                    + "), whose window is the period", "remove the interval, or the calendar period", null);
        }
        if (declaration.calendar() != CalendarPeriod.NONE && declaredInterval != null) {
            throw new InvalidRateLimitException(method, "calendar", "(" + declaration.calendar() + ") is set together "
                    + "with " + (declaration.window().text() != null ? "window" : "interval") + ", but a calendar "
                    + "quota's window is its period", "remove the interval (or window), or the calendar", null);
        }
        if (fromPolicy == null && policy != null && policy.interval() != null) {
            return null;
        }
        return values.explicit("calendar", policyValues -> policyValues.algorithm().calendar(),
                declaration.calendar() == CalendarPeriod.NONE ? null : declaration.calendar());
    }

    private static Sourced<Long> burst(RateLimitDeclaration declaration, ValueResolver values,
            Sourced<RateLimitAlgorithm> type, String method) {
        if (declaration.burst() < 0) {
            throw new InvalidRateLimitException(method, "burst", "must be greater than 0 but was "
                    + declaration.burst(), "remove burst (a token bucket holds the rate) or set it to a positive "
                            + "number", null);
        }
        Sourced<Long> burst = values.resolve("burst", policyValues -> policyValues.algorithm().burst(),
                declaration.burst() > 0 ? declaration.burst() : null, null);
        if (burst == null) {
            return null;
        }
        if (type.value() != RateLimitAlgorithm.TOKEN_BUCKET) {
            throw new InvalidRateLimitException(method, burst.origin(), "(" + burst.value() + ") is set, but "
                    + type.origin() + " is " + type.value() + ": only a token bucket has a burst",
                    "set algorithm to TOKEN_BUCKET, or remove " + burst.origin(), null);
        }
        if (burst.value() <= 0) {
            throw new InvalidRateLimitException(method, burst.origin(), "must be greater than 0 but was "
                    + burst.value(), "remove it (a token bucket holds the rate) or set it to a positive number", null);
        }
        return burst;
    }

    /** The zone of a calendar quota; a zone set for a limit that is not one is refused. */
    private static ZoneId zone(ValueResolver values, boolean quota, String method) {
        if (!quota) {
            Sourced<ZoneId> zone = values.explicit("zone", policyValues -> policyValues.algorithm().zone(), null);
            if (zone != null) {
                throw new InvalidRateLimitException(method, zone.origin(), "(" + zone.value() + ") is set, but the "
                        + "limit is not a calendar quota", "set calendar too (e.g. DAY), or remove the zone", null);
            }
            return CalendarPeriod.DEFAULT_ZONE;
        }
        return values.resolve("zone", policyValues -> policyValues.algorithm().zone(), null,
                CalendarPeriod.DEFAULT_ZONE).value();
    }
}
