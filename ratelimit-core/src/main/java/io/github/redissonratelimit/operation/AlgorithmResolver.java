package io.github.redissonratelimit.operation;

import java.time.Duration;
import java.time.ZoneId;

import io.github.redissonratelimit.InvalidRateLimitException;
import io.github.redissonratelimit.annotation.CalendarPeriod;
import io.github.redissonratelimit.annotation.RateLimitAlgorithm;
import io.github.redissonratelimit.algorithm.AlgorithmSettingException;
import io.github.redissonratelimit.algorithm.Algorithms;
import io.github.redissonratelimit.algorithm.Setting;

/**
 * Resolves the window and the algorithm of one limit, which depend on each other: a calendar period is the window of
 * a fixed-window quota (its interval is the period's longest), a burst belongs to a token bucket.
 *
 * <p>The window comes from the first of policy and declaration that sets an interval or a calendar period (setting
 * both in one place is refused), else from the defaults' interval, else 1 second. The algorithm comes from the
 * policy, the declaration, then {@code FIXED_WINDOW} for a calendar quota, then the defaults, then the sliding window.
 */
final class AlgorithmResolver {

    private AlgorithmResolver() {
    }

    static Algorithms.Resolved resolve(RateLimitDeclaration declaration, PolicyValues policy, ValueResolver values,
            Setting<Long> rate, String method) {
        Duration declaredInterval = declaration.window().toDuration(method);
        Setting<CalendarPeriod> calendar = calendar(declaration, declaredInterval, policy, values, method);
        boolean quota = calendar != null && calendar.value() != CalendarPeriod.NONE;
        Setting<Duration> interval = quota ? null
                : values.explicit("interval", PolicyValues::interval, declaredInterval);
        Setting<Duration> defaultInterval = quota || interval != null ? null
                : values.resolve("interval", PolicyValues::interval, null, null);
        Setting<RateLimitAlgorithm> type = values.explicit("algorithm", policyValues -> policyValues.algorithm()
                .algorithm(), declaration.algorithm() == RateLimitAlgorithm.DEFAULT ? null : declaration.algorithm());
        Setting<RateLimitAlgorithm> defaultType = type != null || quota ? null
                : values.resolve("algorithm", policyValues -> policyValues.algorithm().algorithm(), null, null);
        if (declaration.burst() < 0) {
            throw new InvalidRateLimitException(method, "burst", "must be greater than 0 but was "
                    + declaration.burst(), "remove burst (a token bucket holds the rate) or set it to a positive "
                            + "number", null);
        }
        Setting<Long> burst = values.resolve("burst", policyValues -> policyValues.algorithm().burst(),
                declaration.burst() > 0 ? declaration.burst() : null, null);
        Setting<ZoneId> zone = values.explicit("zone", policyValues -> policyValues.algorithm().zone(), null);
        Setting<ZoneId> defaultZone = !quota || zone != null ? null
                : values.resolve("zone", policyValues -> policyValues.algorithm().zone(), null, null);
        try {
            return Algorithms.resolve(new Algorithms.Choice(rate, interval, defaultInterval, type, "algorithm",
                    defaultType, burst, quota ? calendar : null, zone, defaultZone == null ? null : defaultZone.value()));
        }
        catch (AlgorithmSettingException ex) {
            throw new InvalidRateLimitException(method, ex.getOrigin(), ex.getProblem(), ex.getFix(), null);
        }
    }

    /**
     * The calendar period, {@code null} when none is set. A policy's interval replaces a declared period, as a
     * policy's period replaces a declared interval.
     */
    private static Setting<CalendarPeriod> calendar(RateLimitDeclaration declaration, Duration declaredInterval,
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
}
