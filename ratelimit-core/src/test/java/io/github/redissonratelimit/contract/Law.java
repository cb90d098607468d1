package io.github.redissonratelimit.contract;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;

import io.github.redissonratelimit.annotation.CalendarPeriod;

/**
 * What an algorithm promises, as the most permits that grants all made within {@code [from, to]} of Redis's clock
 * (µs) may hold: a sliding window at most {@code rate} in any window of {@code interval}, a token bucket at most
 * {@code burst + rate × T / interval} over any span {@code T}, a fixed or calendar window at most {@code rate} in each
 * of its windows (so {@code rate} times the windows the span touches). Each bound only grows with the span, so a
 * grant known only to lie within a range of time can be counted in any span that holds the whole range.
 */
interface Law {

    /** The most permits grants made within {@code [fromMicros, toMicros]} may hold together. */
    double bound(long fromMicros, long toMicros);

    /** What a reset (state lost) may let through once more: a full window, or a full bucket. */
    long capacity();

    /**
     * Any window of {@code interval} at most {@code rate}. Redis stamps a sliding window's grants to the millisecond:
     * two grants less than {@code interval} apart on its clock may be an {@code interval} apart by their stamps, hence
     * the millisecond the span is taken longer by.
     */
    static Law slidingWindow(long rate, Duration interval) {
        long intervalMicros = interval.toNanos() / 1_000;
        return new Named("sliding window of " + rate + " per " + interval, rate,
                (from, to) -> rate * (Math.floorDiv(to - from + 1_000, intervalMicros) + 1.0));
    }

    /** At most {@code burst + rate × T / interval} over any span {@code T}. */
    static Law tokenBucket(long rate, Duration interval, long burst) {
        double perMicro = rate / (interval.toNanos() / 1_000.0);
        return new Named("token bucket of " + rate + " per " + interval + ", burst " + burst, burst,
                (from, to) -> burst + (to - from) * perMicro + 1e-9);
    }

    /** At most {@code rate} in each window {@code [k × interval, (k + 1) × interval)} of the epoch (ms of Redis). */
    static Law fixedWindow(long rate, Duration interval) {
        long intervalMillis = interval.toMillis();
        return new Named("fixed window of " + rate + " per " + interval, rate, (from, to) -> rate
                * (Math.floorDiv(Math.floorDiv(to, 1_000), intervalMillis)
                        - Math.floorDiv(Math.floorDiv(from, 1_000), intervalMillis) + 1.0));
    }

    /** At most {@code rate} in each window of {@code period} on the calendar of {@code zone}. */
    static Law calendar(long rate, CalendarPeriod period, ZoneId zone) {
        return new Named("calendar quota of " + rate + " per " + period + " in " + zone, rate, (from, to) -> {
            ZonedDateTime start = period.windowStart(Instant.ofEpochSecond(0, from * 1_000).atZone(zone));
            long windows = 0;
            while (start.toInstant().toEpochMilli() * 1_000 <= to) {
                windows++;
                start = period.next(start);
            }
            return rate * (double) windows;
        });
    }

    /** The more generous of two laws over every span: what a limit whose config changes from one to the other keeps. */
    static Law moreGenerous(Law one, Law other) {
        return new Named("the more generous of " + one + " and " + other, Math.max(one.capacity(), other.capacity()),
                (from, to) -> Math.max(one.bound(from, to), other.bound(from, to)));
    }

    /** A bound over a span, for the laws above. */
    @FunctionalInterface
    interface Span {
        double bound(long fromMicros, long toMicros);
    }

    /** A law with a name for reports. */
    record Named(String name, long capacity, Span span) implements Law {

        @Override
        public double bound(long fromMicros, long toMicros) {
            return span.bound(fromMicros, toMicros);
        }

        @Override
        public String toString() {
            return name;
        }
    }
}
