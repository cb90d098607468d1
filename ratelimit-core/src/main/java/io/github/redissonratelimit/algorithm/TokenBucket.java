package io.github.redissonratelimit.algorithm;

import java.time.Duration;
import java.util.Map;

import io.github.redissonratelimit.annotation.RateLimitAlgorithm;

/**
 * A token bucket of {@code burst} permits refilled smoothly at {@code rate} per {@code interval}: over any span T at
 * most {@code burst + rate * T / interval} permits. GCRA on one key, decided by
 * {@code acquire-bucket.lua} in its common case, by {@code token-bucket.lua} otherwise; a refund gives back only what
 * has not refilled since the grant, and nothing to a state started afresh since (see {@code token-bucket.lua}). A
 * lease leaves at most {@code burst - lease * rate / interval} permits to lease on a full bucket.
 *
 * @param burst the bucket's size, at least 1
 */
public record TokenBucket(long burst) implements LimitAlgorithm {

    public TokenBucket {
        if (burst < 1) {
            throw new IllegalArgumentException("must be greater than 0 but was " + burst);
        }
    }

    @Override
    public RateLimitAlgorithm type() {
        return RateLimitAlgorithm.TOKEN_BUCKET;
    }

    @Override
    public long capacity(long rate) {
        return burst;
    }

    @Override
    public String capacityName() {
        return "burst";
    }

    @Override
    public boolean sharesLimiterWith(LimitAlgorithm other) {
        return other instanceof TokenBucket;
    }

    @Override
    public Map<String, Object> settings() {
        return Map.of("burst", burst);
    }

    /** A whole burst refills in {@code burst * interval / rate}; null when that is no whole number of ms. */
    @Override
    public Duration replenishment(long rate, Duration interval) {
        long millis = interval.toMillis();
        if (Math.multiplyHigh(burst, millis) != 0 || burst * millis < 0 || burst * millis % rate != 0) {
            return null;
        }
        return Duration.ofMillis(burst * millis / rate);
    }

    /** In a short span the bucket allows its burst: a local window of more than that could exceed it. */
    @Override
    public long outageQuota(long rate) {
        return Math.min(burst, rate);
    }

    @Override
    public String file() {
        return "token-bucket";
    }

    @Override
    public String script() {
        return "acquire-bucket";
    }

    /**
     * {@code "g <permits> <clock> <type> <check> <rate>:<interval ms>:<burst> [L<lease ms>:<permits wanted> ]<grant
     * id>"}.
     */
    @Override
    public String argument(long permits, long rate, Duration interval, int type, char check,
            DecisionArguments arguments) {
        return "g " + permits + " " + arguments.clock() + " " + type + " " + check + " " + rate + ":"
                + interval.toMillis() + ":" + burst + " " + DecisionArguments.leaseMark(arguments.lease())
                + arguments.grantId();
    }

    /**
     * A lease of k granted at t moves tat to max(tat, t + lease) + k permits' time, allowed within the burst: while it
     * runs the bucket and the lease hold no more than the burst together (see {@code acquire-bucket.lua}).
     */
    @Override
    public boolean leases() {
        return true;
    }

    @Override
    public String writeBackDeclaration(long rate, Duration interval) {
        return " g " + rate + " " + interval.toMillis() + " " + burst;
    }

    @Override
    public String storedName() {
        return "token-bucket:" + burst;
    }

    @Override
    public String toString() {
        return "token bucket of " + burst;
    }
}
