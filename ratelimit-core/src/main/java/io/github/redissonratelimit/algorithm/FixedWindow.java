package io.github.redissonratelimit.algorithm;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

import io.github.redissonratelimit.annotation.CalendarPeriod;
import io.github.redissonratelimit.annotation.RateLimitAlgorithm;

/**
 * At most {@code rate} permits per window, the windows following each other back to back: aligned to the epoch for an
 * interval, or to the calendar (the hour, day, ISO week, month or year in a zone) for a calendar quota, whose
 * interval is its period's longest. One counter key per window, decided by {@code acquire-window.lua} in its common
 * case, by {@code fixed-window.lua} otherwise.
 *
 * @param calendar the period its windows follow, or {@link CalendarPeriod#NONE} for windows of the interval
 * @param zone the zone of a calendar period's windows
 */
public record FixedWindow(CalendarPeriod calendar, ZoneId zone) implements LimitAlgorithm {

    public FixedWindow {
        Objects.requireNonNull(calendar, "calendar");
        Objects.requireNonNull(zone, "zone");
    }

    @Override
    public RateLimitAlgorithm type() {
        return RateLimitAlgorithm.FIXED_WINDOW;
    }

    @Override
    public Duration interval() {
        return calendar == CalendarPeriod.NONE ? null : calendar.longest();
    }

    @Override
    public Map<String, Object> settings() {
        if (calendar == CalendarPeriod.NONE) {
            return Map.of();
        }
        Map<String, Object> settings = new LinkedHashMap<>();
        settings.put("calendar", calendar.name());
        settings.put("zone", zone.getId());
        return settings;
    }

    /** A calendar period's windows differ in length (months, days with a clock change): none. */
    @Override
    public Duration replenishment(long rate, Duration interval) {
        return calendar == CalendarPeriod.NONE ? interval : null;
    }

    @Override
    public String file() {
        return "fixed-window";
    }

    @Override
    public String script() {
        return "acquire-window";
    }

    /**
     * {@code "f <permits> <clock> <rate> <interval ms> <type> <check> <bounds> [L<lease ms>:<permits wanted> ]<grant
     * id>"}; the bounds those of {@link #bounds}, placed on Redis's time as this JVM knows it.
     */
    @Override
    public String argument(long permits, long rate, Duration interval, int type, char check,
            DecisionArguments arguments) {
        return "f " + permits + " " + arguments.clock() + " " + rate + " " + interval.toMillis() + " " + type + " "
                + check + " " + bounds(calendar == CalendarPeriod.NONE ? null : arguments.redisTime()) + " "
                + DecisionArguments.leaseMark(arguments.lease()) + arguments.grantId();
    }

    /** A lease is counted in its window and spent only while the window lasts (see {@link #leaseSpend}). */
    @Override
    public boolean leases() {
        return true;
    }

    /**
     * No longer than the window lasts: a lease's grant tells the whole ms left in its window by Redis's clock
     * (rounded down), so that, measured from the call's send, its spending stops before the window ends.
     */
    @Override
    public Duration leaseSpend(Duration period, Duration nextPermitIn) {
        return nextPermitIn.compareTo(period) < 0 ? nextPermitIn : period;
    }

    /**
     * {@code "<previous start>,<start>,<end>,<next end>"} in ms of the epoch for a calendar quota: the previous,
     * current and next window around {@code now}, of which Redis's clock picks the one it is in (when none holds it,
     * the script answers with its time and the caller places them again); {@code "0"} for windows of the interval
     * aligned to the epoch, which the script computes itself.
     */
    String bounds(Instant now) {
        if (calendar == CalendarPeriod.NONE) {
            return "0";
        }
        ZonedDateTime start = calendar.windowStart(now.atZone(zone));
        ZonedDateTime end = calendar.next(start);
        return millis(calendar.previous(start)) + "," + millis(start) + "," + millis(end) + ","
                + millis(calendar.next(end));
    }

    @Override
    public String writeBackDeclaration(long rate, Duration interval) {
        return " f " + rate + " " + interval.toMillis() + (calendar == CalendarPeriod.NONE ? "" : " c");
    }

    @Override
    public String storedName() {
        return "fixed-window";
    }

    @Override
    public String toString() {
        return calendar == CalendarPeriod.NONE ? "fixed window"
                : "fixed window per " + calendar.name().toLowerCase(Locale.ROOT) + " in " + zone;
    }

    private static long millis(ZonedDateTime time) {
        return time.toInstant().toEpochMilli();
    }
}
