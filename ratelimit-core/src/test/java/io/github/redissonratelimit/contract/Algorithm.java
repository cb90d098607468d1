package io.github.redissonratelimit.contract;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;

import io.github.redissonratelimit.annotation.CalendarPeriod;
import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.algorithm.LimitAlgorithm;
import io.github.redissonratelimit.limiter.LimitSpec;

/**
 * An algorithm the contract runs against: how a limit of it is declared (through the starter's public entry points
 * only) and the law it promises. A calendar quota follows the hours of a zone whose hour ends at a given instant, so
 * that a run of a few seconds crosses one of its windows' ends.
 */
record Algorithm(String name, Declaration declaration) {

    /** One OVERALL limit of an algorithm, with its law. */
    record Limit(String label, LimitSpec spec, Law law) {

        @Override
        public String toString() {
            return label;
        }
    }

    /** Declares a limit: {@code burst} for a token bucket, {@code windowEnd} for a calendar quota, else unused. */
    @FunctionalInterface
    interface Declaration {
        Limit limit(long rate, long burst, Duration interval, Instant windowEnd);
    }

    static final Algorithm SLIDING_WINDOW = new Algorithm("sliding window", (rate, burst, interval, end) -> new Limit(
            "sliding window " + rate + "/" + interval.toMillis() + "ms",
            new LimitSpec(rate, interval, RateLimitMode.OVERALL, LimitAlgorithm.SLIDING_WINDOW),
            Law.slidingWindow(rate, interval)));

    static final Algorithm TOKEN_BUCKET = new Algorithm("token bucket", (rate, burst, interval, end) -> new Limit(
            "token bucket " + rate + "/" + interval.toMillis() + "ms burst " + burst,
            new LimitSpec(rate, interval, RateLimitMode.OVERALL, LimitAlgorithm.tokenBucket(burst)),
            Law.tokenBucket(rate, interval, burst)));

    static final Algorithm FIXED_WINDOW = new Algorithm("fixed window", (rate, burst, interval, end) -> new Limit(
            "fixed window " + rate + "/" + interval.toMillis() + "ms",
            new LimitSpec(rate, interval, RateLimitMode.OVERALL, LimitAlgorithm.fixedWindow()),
            Law.fixedWindow(rate, interval)));

    static final Algorithm CALENDAR_WINDOW = new Algorithm("calendar window", (rate, burst, interval, end) -> {
        ZoneId zone = zoneWhoseHourEndsAt(end);
        return new Limit("calendar " + rate + "/hour in " + zone,
                new LimitSpec(rate, CalendarPeriod.HOUR.longest(), RateLimitMode.OVERALL,
                        LimitAlgorithm.fixedWindow(CalendarPeriod.HOUR, zone)),
                Law.calendar(rate, CalendarPeriod.HOUR, zone));
    });

    static final List<Algorithm> ALL = List.of(SLIDING_WINDOW, TOKEN_BUCKET, FIXED_WINDOW, CALENDAR_WINDOW);

    /** The name without spaces, for keys. */
    String id() {
        return name.replace(' ', '-');
    }

    Limit limit(long rate, long burst, Duration interval, Instant windowEnd) {
        return declaration.limit(rate, burst, interval, windowEnd);
    }

    /** A fixed offset from UTC (to the second) whose hours start at {@code end}, give or take whole hours. */
    static ZoneId zoneWhoseHourEndsAt(Instant end) {
        return ZoneOffset.ofTotalSeconds((int) Math.floorMod(-end.getEpochSecond(), 3_600L));
    }

    @Override
    public String toString() {
        return name;
    }
}
