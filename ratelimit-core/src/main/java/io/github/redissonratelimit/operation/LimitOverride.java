package io.github.redissonratelimit.operation;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

import io.github.redissonratelimit.annotation.RateLimitMode;
import io.github.redissonratelimit.limiter.LimitSpec;

/**
 * A limit changed at runtime, for every instance: {@code rate} permits per {@code interval} instead of the
 * declared ones, and optionally the permits one call takes. The mode stays the declared one.
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

    /** The spec that replaces a declared one of mode {@code mode}. */
    public LimitSpec spec(RateLimitMode mode) {
        return new LimitSpec(rate, interval, mode);
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
