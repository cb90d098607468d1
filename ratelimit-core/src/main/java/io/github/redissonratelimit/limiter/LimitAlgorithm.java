package io.github.redissonratelimit.limiter;

import java.time.ZoneId;
import java.util.Objects;

import io.github.redissonratelimit.annotation.CalendarPeriod;
import io.github.redissonratelimit.annotation.RateLimitAlgorithm;

/**
 * How a limiter counts its permits, with what the algorithm needs besides rate and interval.
 *
 * @param type the algorithm, never {@link RateLimitAlgorithm#DEFAULT}
 * @param burst for {@link RateLimitAlgorithm#TOKEN_BUCKET}, the bucket's size (at least 1); 0 otherwise
 * @param calendar for {@link RateLimitAlgorithm#FIXED_WINDOW}, the calendar period its windows follow, or
 * {@link CalendarPeriod#NONE} for windows of the interval aligned to the epoch; {@code NONE} otherwise
 * @param zone the zone of a calendar period's windows
 */
public record LimitAlgorithm(RateLimitAlgorithm type, long burst, CalendarPeriod calendar, ZoneId zone) {

    /** The sliding window, in RRateLimiter's layout: the default. */
    public static final LimitAlgorithm SLIDING_WINDOW = new LimitAlgorithm(RateLimitAlgorithm.SLIDING_WINDOW, 0,
            CalendarPeriod.NONE, CalendarPeriod.DEFAULT_ZONE);

    public LimitAlgorithm {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(calendar, "calendar");
        Objects.requireNonNull(zone, "zone");
        if (type == RateLimitAlgorithm.DEFAULT) {
            throw new IllegalArgumentException("A limiter's algorithm must be resolved, not DEFAULT");
        }
        if (type == RateLimitAlgorithm.TOKEN_BUCKET ? burst < 1 : burst != 0) {
            throw new IllegalArgumentException(type == RateLimitAlgorithm.TOKEN_BUCKET
                    ? "A token bucket's burst must be at least 1 but was " + burst
                    : "Only a token bucket has a burst, not " + type);
        }
        if (calendar != CalendarPeriod.NONE && type != RateLimitAlgorithm.FIXED_WINDOW) {
            throw new IllegalArgumentException("Only a fixed window follows a calendar period, not " + type);
        }
    }

    /** A token bucket of {@code burst} permits. */
    public static LimitAlgorithm tokenBucket(long burst) {
        return new LimitAlgorithm(RateLimitAlgorithm.TOKEN_BUCKET, burst, CalendarPeriod.NONE,
                CalendarPeriod.DEFAULT_ZONE);
    }

    /** Fixed windows of the limit's interval, aligned to the epoch. */
    public static LimitAlgorithm fixedWindow() {
        return fixedWindow(CalendarPeriod.NONE, CalendarPeriod.DEFAULT_ZONE);
    }

    /** Fixed windows that follow {@code calendar} in {@code zone}. */
    public static LimitAlgorithm fixedWindow(CalendarPeriod calendar, ZoneId zone) {
        return new LimitAlgorithm(RateLimitAlgorithm.FIXED_WINDOW, 0, calendar, zone);
    }

    @Override
    public String toString() {
        return switch (type) {
            case TOKEN_BUCKET -> "token bucket of " + burst;
            case FIXED_WINDOW -> calendar == CalendarPeriod.NONE ? "fixed window"
                    : "fixed window per " + calendar.name().toLowerCase(java.util.Locale.ROOT) + " in " + zone;
            default -> "sliding window";
        };
    }
}
