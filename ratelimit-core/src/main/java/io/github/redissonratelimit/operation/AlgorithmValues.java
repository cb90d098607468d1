package io.github.redissonratelimit.operation;

import java.time.ZoneId;

import io.github.redissonratelimit.annotation.CalendarPeriod;
import io.github.redissonratelimit.annotation.RateLimitAlgorithm;

/**
 * The algorithm values configured outside the annotation for one named limit (or one of its tiers), or as
 * defaults. A {@code null} component is not configured.
 *
 * @param algorithm how the limiter counts; {@link RateLimitAlgorithm#DEFAULT} is not configured either
 * @param burst the size of a token bucket
 * @param calendar the calendar period of a quota; {@link CalendarPeriod#NONE} is configured (windows of the interval)
 * @param zone the zone of a calendar quota's periods
 */
public record AlgorithmValues(RateLimitAlgorithm algorithm, Long burst, CalendarPeriod calendar, ZoneId zone) {

    /** Nothing configured. */
    public static final AlgorithmValues NONE = new AlgorithmValues(null, null, null, null);

    public AlgorithmValues {
        algorithm = algorithm == RateLimitAlgorithm.DEFAULT ? null : algorithm;
    }

    /** These values with {@code tier}'s burst where it sets one (a tier shares the limit's algorithm). */
    AlgorithmValues forTier(AlgorithmValues tier) {
        return tier.burst == null ? this : new AlgorithmValues(algorithm, tier.burst, calendar, zone);
    }
}
