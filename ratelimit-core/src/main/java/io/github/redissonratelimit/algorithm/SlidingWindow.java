package io.github.redissonratelimit.algorithm;

import java.time.Duration;

import io.github.redissonratelimit.annotation.RateLimitAlgorithm;

/**
 * At most {@code rate} permits in any window of {@code interval}: each grant gives its permits back one interval after
 * it was made. RRateLimiter's data model (a config hash, a free-permits counter and a ZSET of grants), so both can work
 * on one limiter. Decided by {@code acquire-sliding.lua} in its common case, by {@code decide.lua} otherwise.
 */
record SlidingWindow() implements LimitAlgorithm {

    @Override
    public RateLimitAlgorithm type() {
        return RateLimitAlgorithm.SLIDING_WINDOW;
    }

    @Override
    public Duration replenishment(long rate, Duration interval) {
        return interval;
    }

    @Override
    public String script() {
        return "acquire-sliding";
    }

    /** {@code "<permits> <clock> <grant id> <rate> <interval ms> <type> <keep-alive ms> <check>[ <lease>]"}. */
    @Override
    public String argument(long permits, long rate, Duration interval, int type, char check,
            DecisionArguments arguments) {
        return permits + " " + arguments.clock() + " " + arguments.grantId() + " " + rate + " " + interval.toMillis()
                + " " + type + " " + arguments.keepAlive(interval).toMillis() + " " + check + arguments.lease();
    }

    @Override
    public String writeBackDeclaration(long rate, Duration interval) {
        return "";
    }

    /** Nothing: a sliding window without keys is read from the declared rate. */
    @Override
    public Long stateWhenEmpty(long rate) {
        return null;
    }

    @Override
    public String storedName() {
        return "sliding";
    }

    /** A lease is stamped at its end: the window counts it until one interval after its last spend. */
    @Override
    public boolean leases() {
        return true;
    }

    /** Its lease's grant answers {@code r<end>:<permits granted>} and is given back by {@code l<end>}. */
    @Override
    public LeaseGrant leaseGrant(String receipt) {
        int split = receipt == null ? -1 : receipt.indexOf(':');
        if (split > 0 && receipt.lastIndexOf(':') == split) {
            return new LeaseGrant("l" + receipt.substring(1, split), Long.parseLong(receipt.substring(split + 1)));
        }
        return null;
    }

    @Override
    public boolean keepsAlive() {
        return true;
    }

    @Override
    public String toString() {
        return "sliding window";
    }
}
