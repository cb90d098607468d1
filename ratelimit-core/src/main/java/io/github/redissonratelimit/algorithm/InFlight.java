package io.github.redissonratelimit.algorithm;

import java.time.Duration;

import io.github.redissonratelimit.annotation.RateLimitAlgorithm;

/**
 * At most {@code rate} permits held at once by calls in flight, across every instance: a grant is a lease in Redis
 * (its end stamped with Redis's clock) that the call holds until it ends and its instance renews while it runs, so
 * that the permits of an instance that stops (killed, cut off from Redis) come back one lease period (the limit's
 * interval) after its last renewal. Decided by {@code in-flight.lua}; the give-back at the call's end is the grant's
 * refund, and a renewal is a refund's sibling ({@code refund.lua}).
 */
record InFlight() implements LimitAlgorithm {

    /** The lease period of an in-flight limit whose interval is not set. */
    static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);

    /** The shortest lease period: renewals are sent a third of it apart, and a pause of the JVM must not outlast it. */
    static final Duration SHORTEST_LEASE = Duration.ofSeconds(1);

    @Override
    public RateLimitAlgorithm type() {
        return RateLimitAlgorithm.IN_FLIGHT;
    }

    /** Permits come back when calls end: no time is known at which the whole rate is free again. */
    @Override
    public Duration replenishment(long rate, Duration interval) {
        return null;
    }

    @Override
    public String file() {
        return "in-flight";
    }

    /** {@code "i <permits> <clock> <type> <check> <rate>:<lease ms> <grant id> <holder> <waiter>"}. */
    @Override
    public String argument(long permits, long rate, Duration interval, int type, char check,
            DecisionArguments arguments) {
        return "i " + permits + " " + arguments.clock() + " " + type + " " + check + " " + rate + ":"
                + interval.toMillis() + " " + arguments.grantId() + " " + arguments.holder() + " "
                + arguments.waiter();
    }

    /** A call admitted in memory during an outage holds no lease in Redis: nothing is written back. */
    @Override
    public String writeBackDeclaration(long rate, Duration interval) {
        return " i " + rate + " " + interval.toMillis();
    }

    @Override
    public String storedName() {
        return "in-flight";
    }

    @Override
    public boolean held() {
        return true;
    }

    @Override
    public String toString() {
        return "in-flight limit";
    }
}
