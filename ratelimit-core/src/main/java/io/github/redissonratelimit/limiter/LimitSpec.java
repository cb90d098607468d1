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

    /**
     * Why {@code lease} cannot be this limit's lease period, or null when it can (the one rule for annotations, yml
     * policies, routes and the gateway): an algorithm that leases (all but in-flight), from 1ms to a tenth of the
     * interval, so that what a lease costs (a spent permit counts up to one lease longer) stays small.
     * @param attribute how the declaration names the lease, for the fix
     */
    public LeaseRefusal leaseRefusal(Duration lease, String attribute) {
        if (!algorithm.leases()) {
            return new LeaseRefusal("(" + lease + ") is set on " + algorithm + ", whose permits cannot be leased: "
                    + "each is held by its call until the call ends, so a permit spent in memory would be held by no "
                    + "call Redis knows of", "remove " + attribute + ", or use another algorithm");
        }
        Duration most = interval.dividedBy(10);
        if (lease.isNegative() || lease.toMillis() < 1 || lease.compareTo(most) > 0) {
            return new LeaseRefusal("must be at least 1ms and at most a tenth of the interval (" + most + ") but was "
                    + lease + ": a spent permit counts up to one lease longer than its interval, which a short lease "
                    + "keeps small", "set " + attribute + " between 1ms and " + most + ", or remove it");
        }
        return null;
    }

    /** Why a lease period was refused ({@link #leaseRefusal}): the problem, and the fix to offer. */
    public record LeaseRefusal(String problem, String fix) {
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
