package io.github.redissonratelimit.benchmarks;

import io.github.redissonratelimit.annotation.RateLimit;

/**
 * The limits of the section on leases ({@link LeaseScenario}): one hot limit with a lease and its twin without, and a
 * limit that demand just exceeds, one key per run. The lease period is {@value #LEASE}: 1 % of the interval, so a
 * spent permit counts at most 1 % longer than the interval (the price of the bound at spend time), while an instance
 * still asks Redis at most twice per lease period (a lease, its refund) whatever the rate.
 */
public class LeasedService {

    static final String LEASE = "10ms";

    static final long LEASE_MILLIS = 10;

    static final long HOT_RATE = 1_000_000;

    /** The rate the fairness and kill runs' demand just exceeds (or stays below). */
    static final long NEAR_RATE = 50_000;

    @RateLimit(name = "hot-leased", key = "'lease:hot'", rate = HOT_RATE, window = "1s", lease = LEASE)
    public void hot() {
    }

    @RateLimit(name = "hot-unleased", key = "'lease:hot-unleased'", rate = HOT_RATE, window = "1s")
    public void hotUnleased() {
    }

    @RateLimit(name = "near", key = "'lease:near:' + #run", rate = NEAR_RATE, window = "1s", lease = LEASE)
    public void near(String run) {
    }
}
