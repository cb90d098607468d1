package io.github.redissonratelimit.operation;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.LimitSpec;

/**
 * A limit changed at runtime, for every instance: {@code rate} permits per {@code interval} instead of the
 * declared ones, and optionally the permits one call takes. The mode and the algorithm stay the declared ones: a
 * token bucket keeps its burst, and a calendar quota its period, whose interval an override cannot change.
 *
 * @param name the limit's {@link RateLimitOperation#name() name}
 * @param permits permits one call takes, or {@code null} to keep each method's declared permits
 * @param by who set it (a principal's name, or {@code null} when set by code)
 * @param at when it was set
 */
public record LimitOverride(String name, long rate, Duration interval, Long permits, String by, Instant at) {

    public LimitOverride {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(interval, "interval");
        Objects.requireNonNull(at, "at");
        if (rate <= 0) {
            throw new IllegalArgumentException("rate must be greater than 0 but was " + rate);
        }
        if (interval.toMillis() <= 0) {
            throw new IllegalArgumentException("interval must be at least 1ms but was " + interval);
        }
        if (permits != null && (permits <= 0 || permits > rate)) {
            throw new IllegalArgumentException("permits must be between 1 and the rate (" + rate + ") but were "
                    + permits);
        }
    }

    /** The sliding-window spec that replaces a declared one of mode {@code mode}. */
    public LimitSpec spec(RateLimitMode mode) {
        return new LimitSpec(rate, interval, mode);
    }

    /**
     * The spec that replaces {@code declared}: this rate and interval, the declared mode and algorithm (a token
     * bucket keeps its burst, a calendar quota its period and zone).
     * @throws IllegalArgumentException when this override cannot apply to it ({@link #problemWith})
     */
    public LimitSpec spec(LimitSpec declared) {
        String problem = problemWith(declared);
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        return new LimitSpec(rate, interval, declared.mode(), declared.algorithm());
    }

    /**
     * Why this override cannot replace {@code declared}, or {@code null} when it can: the interval of a calendar
     * quota is its period, which an override does not change.
     */
    public String problemWith(LimitSpec declared) {
        Duration own = declared.algorithm().interval();
        if (own != null && !interval.equals(own)) {
            return "The interval of a " + declared.algorithm() + " is its period (" + own
                    + "), which an override cannot change: override the rate only, with interval " + own
                    + ", or change the period in configuration";
        }
        return null;
    }

    /** The permits a call of {@code operation} takes under this override. */
    public long permitsOf(RateLimitOperation operation) {
        return permits != null ? permits : operation.permits();
    }

    @Override
    public String toString() {
        return rate + " per " + interval + (permits == null ? "" : ", " + permits + " permit(s) a call");
    }
}
