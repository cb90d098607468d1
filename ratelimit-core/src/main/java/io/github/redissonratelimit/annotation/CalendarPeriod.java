package io.github.redissonratelimit.annotation;

import java.time.DayOfWeek;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.time.temporal.TemporalAdjusters;

/**
 * A quota's window on the calendar of a zone, for {@link RateLimitAlgorithm#FIXED_WINDOW}: the quota resets at the
 * start of each hour, day, ISO week (Monday), month or year there.
 */
public enum CalendarPeriod {

    /** Not a calendar quota: windows of the limit's {@code interval}. */
    NONE(Duration.ZERO),

    HOUR(Duration.ofHours(1)),

    DAY(Duration.ofDays(1)),

    WEEK(Duration.ofDays(7)),

    MONTH(Duration.ofDays(31)),

    YEAR(Duration.ofDays(366));

    private final Duration longest;

    CalendarPeriod(Duration longest) {
        this.longest = longest;
    }

    /** The longest one window of this period lasts (a month of 31 days, a leap year); zero for {@link #NONE}. */
    public Duration longest() {
        return longest;
    }

    /** The start of the window that holds {@code time} in {@code zone}. */
    public ZonedDateTime windowStart(ZonedDateTime time) {
        return switch (this) {
            case NONE -> throw new IllegalStateException("NONE has no calendar windows");
            case HOUR -> time.truncatedTo(ChronoUnit.HOURS);
            case DAY -> time.toLocalDate().atStartOfDay(time.getZone());
            case WEEK -> time.toLocalDate().with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY))
                    .atStartOfDay(time.getZone());
            case MONTH -> time.toLocalDate().withDayOfMonth(1).atStartOfDay(time.getZone());
            case YEAR -> time.toLocalDate().withDayOfYear(1).atStartOfDay(time.getZone());
        };
    }

    /** The start of the window after the one that starts at {@code start}. */
    public ZonedDateTime next(ZonedDateTime start) {
        return step(start, 1);
    }

    /** The start of the window before the one that starts at {@code start}. */
    public ZonedDateTime previous(ZonedDateTime start) {
        return step(start, -1);
    }

    /** The start of the window {@code windows} windows after (before, when negative) the one at {@code start}. */
    private ZonedDateTime step(ZonedDateTime start, int windows) {
        return switch (this) {
            case NONE -> throw new IllegalStateException("NONE has no calendar windows");
            case HOUR -> start.plusHours(windows);
            case DAY -> start.toLocalDate().plusDays(windows).atStartOfDay(start.getZone());
            case WEEK -> start.toLocalDate().plusWeeks(windows).atStartOfDay(start.getZone());
            case MONTH -> start.toLocalDate().plusMonths(windows).atStartOfDay(start.getZone());
            case YEAR -> start.toLocalDate().plusYears(windows).atStartOfDay(start.getZone());
        };
    }

    /** {@code UTC}, the zone of a calendar quota unless configured. */
    public static final ZoneId DEFAULT_ZONE = ZoneId.of("UTC");
}
