package io.github.redissonratelimit.limiter;

import java.time.Duration;
import java.util.Objects;

import io.github.redissonratelimit.algorithm.LimitAlgorithm;
import io.github.redissonratelimit.annotation.RateLimitMode;

/**
 * What a limiter allows: {@code rate} permits per {@code interval}, shared as {@code mode} says, counted by
 * {@code algorithm} (the sliding window unless given).
 */
public record LimitSpec(long rate, Duration interval, RateLimitMode mode, LimitAlgorithm algorithm) {

    public LimitSpec {
        Objects.requireNonNull(interval, "interval");
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(algorithm, "algorithm");
        if (rate <= 0) {
            throw new IllegalArgumentException("rate must be greater than 0 but was " + rate);
        }
        if (interval.toMillis() <= 0) {
            throw new IllegalArgumentException("interval must be at least 1ms but was " + interval);
        }
        if (algorithm.interval() != null && !interval.equals(algorithm.interval())) {
            throw new IllegalArgumentException("A " + algorithm + " has an interval of " + algorithm.interval()
                    + " but was " + interval);
        }
    }

    /** A sliding window. */
    public LimitSpec(long rate, Duration interval, RateLimitMode mode) {
        this(rate, interval, mode, LimitAlgorithm.SLIDING_WINDOW);
    }

    /** The most permits one call can take: the burst of a token bucket, else the rate. */
    public long capacity() {
        return algorithm.capacity(rate);
    }

    /** What {@link #capacity()} is called in messages: {@code rate} or {@code burst}. */
    public String capacityName() {
        return algorithm.capacityName();
    }

    /** The same limit counted by {@code algorithm}. */
    public LimitSpec with(LimitAlgorithm algorithm) {
        return new LimitSpec(rate, interval, mode, algorithm);
    }

    @Override
    public String toString() {
        return rate + " per " + interval + (mode == RateLimitMode.OVERALL ? "" : " " + mode)
                + (algorithm.equals(LimitAlgorithm.SLIDING_WINDOW) ? "" : ", " + algorithm);
    }
}
