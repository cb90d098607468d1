package io.github.redissonratelimit.limiter;

import java.time.Duration;
import java.util.Objects;

import io.github.redissonratelimit.annotation.RateLimitMode;

/** What a limiter allows: {@code rate} permits per {@code interval}, shared as {@code mode} says. */
public record LimitSpec(long rate, Duration interval, RateLimitMode mode) {

    public LimitSpec {
        Objects.requireNonNull(interval, "interval");
        Objects.requireNonNull(mode, "mode");
        if (rate <= 0) {
            throw new IllegalArgumentException("rate must be greater than 0 but was " + rate);
        }
        if (interval.toMillis() <= 0) {
            throw new IllegalArgumentException("interval must be at least 1ms but was " + interval);
        }
    }

    @Override
    public String toString() {
        return rate + " per " + interval + (mode == RateLimitMode.OVERALL ? "" : " " + mode);
    }
}
