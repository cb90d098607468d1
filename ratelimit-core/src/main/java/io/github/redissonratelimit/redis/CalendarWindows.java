package io.github.redissonratelimit.redis;

import java.time.Instant;
import java.time.ZonedDateTime;

import io.github.redissonratelimit.annotation.CalendarPeriod;
import io.github.redissonratelimit.limiter.LimitAlgorithm;

/**
 * The window bounds a fixed window's decision sends (see {@code algorithms.lua}): for a calendar quota, the previous,
 * current and next window as this JVM's clock places them in the quota's zone, of which Redis's clock picks the one
 * it is in (a clock off by less than a window never counts into the wrong one; further off, the script answers with
 * Redis's time and the bounds are computed again from it); {@code 0} for windows
 * of the interval aligned to the epoch, which the script computes itself.
 */
final class CalendarWindows {

    private CalendarWindows() {
    }

    /** {@code "<previous start>,<start>,<end>,<next end>"} in ms of the epoch, or {@code "0"}. */
    static String bounds(LimitAlgorithm algorithm, Instant now) {
        CalendarPeriod period = algorithm.calendar();
        if (period == CalendarPeriod.NONE) {
            return "0";
        }
        ZonedDateTime start = period.windowStart(now.atZone(algorithm.zone()));
        ZonedDateTime end = period.next(start);
        return millis(period.previous(start)) + "," + millis(start) + "," + millis(end) + ","
                + millis(period.next(end));
    }

    private static long millis(ZonedDateTime time) {
        return time.toInstant().toEpochMilli();
    }
}
