package io.github.redissonratelimit.algorithm;

import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import io.github.redissonratelimit.annotation.CalendarPeriod;
import io.github.redissonratelimit.annotation.RateLimitAlgorithm;

/**
 * The algorithms, registered here one line each, and the one resolution of a limit's algorithm and window from its
 * settings, which annotations, yml policies, routes and the gateway share: an explicit algorithm, else the one that
 * takes a calendar period when one is set, else the default algorithm, else the sliding window; every setting the
 * algorithm does not take is refused naming it.
 */
public final class Algorithms {

    /** A setting besides rate and interval that only some algorithms take. */
    enum Takes {
        BURST("has a burst"), CALENDAR("follows the calendar");

        final String phrase;

        Takes(String phrase) {
            this.phrase = phrase;
        }
    }

    /** The settings an algorithm is built from: burst null when not set; calendar NONE without a calendar period. */
    record Values(long rate, Long burst, CalendarPeriod calendar, ZoneId zone) {
    }

    private static final List<AlgorithmKind> REGISTERED = List.of(
            new AlgorithmKind(RateLimitAlgorithm.SLIDING_WINDOW, "a sliding window", Set.of(),
                    values -> LimitAlgorithm.SLIDING_WINDOW),
            new AlgorithmKind(RateLimitAlgorithm.TOKEN_BUCKET, "a token bucket", Set.of(Takes.BURST),
                    values -> new TokenBucket(values.burst() != null ? values.burst() : values.rate())),
            new AlgorithmKind(RateLimitAlgorithm.FIXED_WINDOW, "a fixed window", Set.of(Takes.CALENDAR),
                    values -> new FixedWindow(values.calendar(), values.zone())),
            new AlgorithmKind(RateLimitAlgorithm.IN_FLIGHT, "an in-flight limit", Set.of(),
                    values -> LimitAlgorithm.IN_FLIGHT, new AlgorithmKind.OwnInterval("the lease period",
                            InFlight.DEFAULT_LEASE, InFlight.SHORTEST_LEASE)));

    private static final Setting<Duration> ONE_SECOND = new Setting<>(Duration.ofSeconds(1), "interval");

    private Algorithms() {
    }

    /**
     * What a declaration sets about its window and algorithm; a null setting is not set.
     *
     * @param rate the limit's rate
     * @param interval the limit's interval, when set
     * @param defaultInterval the interval when none is set (null: 1 second)
     * @param algorithm the algorithm, when set (never {@link RateLimitAlgorithm#DEFAULT})
     * @param algorithmName how to name the algorithm's setting when it is not set
     * @param defaultAlgorithm the algorithm when none is set and no calendar period implies one
     * @param burst a token bucket's size
     * @param calendar a calendar period; {@link CalendarPeriod#NONE} counts as not set
     * @param zone the zone of a calendar period
     * @param defaultZone the zone when none is set (null: UTC)
     */
    public record Choice(Setting<Long> rate, Setting<Duration> interval, Setting<Duration> defaultInterval,
            Setting<RateLimitAlgorithm> algorithm, String algorithmName, Setting<RateLimitAlgorithm> defaultAlgorithm,
            Setting<Long> burst, Setting<CalendarPeriod> calendar, Setting<ZoneId> zone, ZoneId defaultZone) {
    }

    /**
     * A limit's window and algorithm.
     *
     * @param interval the interval and where it comes from (a calendar period's longest for a calendar quota)
     * @param capacity where the most permits a call can take come from: the burst's setting, else the rate's
     */
    public record Resolved(Setting<Duration> interval, LimitAlgorithm algorithm, String capacity) {
    }

    /** @throws AlgorithmSettingException naming the first setting that cannot work */
    public static Resolved resolve(Choice choice) {
        Setting<CalendarPeriod> calendar = choice.calendar() != null && choice.calendar().value() != CalendarPeriod.NONE
                ? choice.calendar() : null;
        Setting<RateLimitAlgorithm> type = choice.algorithm() != null ? choice.algorithm()
                : calendar != null ? new Setting<>(taking(Takes.CALENDAR).get(0).type(), calendar.origin())
                : choice.defaultAlgorithm() != null ? choice.defaultAlgorithm()
                : new Setting<>(RateLimitAlgorithm.SLIDING_WINDOW, choice.algorithmName());
        AlgorithmKind kind = kind(type.value());
        Setting<Duration> interval = kind.interval() != null ? ownInterval(choice, kind.interval(), type)
                : interval(choice, calendar);
        refuseUnless(kind, Takes.CALENDAR, calendar, type);
        refuseUnless(kind, Takes.BURST, choice.burst(), type);
        if (choice.zone() != null && calendar == null) {
            throw new AlgorithmSettingException(choice.zone().origin(), "(" + choice.zone().value() + ") is set, but "
                    + "the limit is not a calendar quota: only a calendar quota has a zone",
                    "set a calendar period too (e.g. DAY), or remove " + choice.zone().origin());
        }
        Setting<Long> burst = choice.burst();
        if (burst != null && burst.value() <= 0) {
            throw new AlgorithmSettingException(burst.origin(), "must be greater than 0 but was " + burst.value(),
                    "remove it (a token bucket holds the rate) or set it to a positive number");
        }
        ZoneId zone = choice.zone() != null ? choice.zone().value()
                : choice.defaultZone() != null ? choice.defaultZone() : CalendarPeriod.DEFAULT_ZONE;
        LimitAlgorithm algorithm = kind.build().apply(new Values(choice.rate().value(),
                burst == null ? null : burst.value(), calendar == null ? CalendarPeriod.NONE : calendar.value(), zone));
        return new Resolved(interval, algorithm, burst != null ? burst.origin() : choice.rate().origin());
    }

    /** The scripts that decide each algorithm alone in its common case ({@link LimitAlgorithm#script()}). */
    public static List<String> scripts() {
        return examples().map(LimitAlgorithm::script).filter(Objects::nonNull).distinct().toList();
    }

    /** The Lua files of the algorithms ({@link LimitAlgorithm#file()}), in the order they are registered. */
    public static List<String> files() {
        return examples().map(LimitAlgorithm::file).filter(Objects::nonNull).distinct().toList();
    }

    private static Stream<LimitAlgorithm> examples() {
        Values plain = new Values(1, null, CalendarPeriod.NONE, CalendarPeriod.DEFAULT_ZONE);
        return REGISTERED.stream().map(kind -> kind.build().apply(plain));
    }

    /** The algorithm registered as {@code type}. */
    static AlgorithmKind kind(RateLimitAlgorithm type) {
        return REGISTERED.stream().filter(kind -> kind.type() == type).findFirst().orElseThrow(
                () -> new IllegalArgumentException("No algorithm is registered as " + type));
    }

    private static Setting<Duration> interval(Choice choice, Setting<CalendarPeriod> calendar) {
        if (calendar != null && choice.interval() != null) {
            throw new AlgorithmSettingException(choice.interval().origin(), "(" + choice.interval().value()
                    + ") is set together with " + calendar.origin() + ", but a quota per " + calendar.value()
                    + " has its period as window", "remove " + choice.interval().origin() + ", or "
                            + calendar.origin());
        }
        Setting<Duration> interval = calendar != null ? new Setting<>(calendar.value().longest(), calendar.origin())
                : choice.interval() != null ? choice.interval()
                : choice.defaultInterval() != null ? choice.defaultInterval() : ONE_SECOND;
        if (interval.value().toMillis() <= 0) {
            throw new AlgorithmSettingException(interval.origin(), "must be at least 1ms but was " + interval.value(),
                    "Redis keeps time in milliseconds: use a window of at least 1ms");
        }
        return interval;
    }

    private static Setting<Duration> ownInterval(Choice choice, AlgorithmKind.OwnInterval own,
            Setting<RateLimitAlgorithm> type) {
        if (choice.interval() == null) {
            return new Setting<>(own.byDefault(), own.meaning() + " of " + type.value());
        }
        Setting<Duration> interval = choice.interval();
        if (interval.value().compareTo(own.shortest()) < 0) {
            throw new AlgorithmSettingException(interval.origin(), "is " + own.meaning() + " of " + type.origin()
                    + "=" + type.value() + " and must be at least " + own.shortest() + " but was " + interval.value(),
                    "set it to " + own.shortest() + " or more (or remove it: " + own.byDefault() + ")");
        }
        return interval;
    }

    private static void refuseUnless(AlgorithmKind kind, Takes takes, Setting<?> setting,
            Setting<RateLimitAlgorithm> type) {
        if (setting == null || kind.takes().contains(takes)) {
            return;
        }
        List<AlgorithmKind> holders = taking(takes);
        throw new AlgorithmSettingException(setting.origin(), "(" + setting.value() + ") is set, but " + type.origin()
                + " is " + type.value() + ": only " + holders.stream().map(AlgorithmKind::description)
                        .collect(Collectors.joining(" or ")) + " " + takes.phrase,
                "set " + type.origin() + " to " + holders.stream().map(holder -> holder.type().name())
                        .collect(Collectors.joining(" or ")) + ", or remove " + setting.origin());
    }

    private static List<AlgorithmKind> taking(Takes takes) {
        return REGISTERED.stream().filter(kind -> kind.takes().contains(takes)).toList();
    }
}
