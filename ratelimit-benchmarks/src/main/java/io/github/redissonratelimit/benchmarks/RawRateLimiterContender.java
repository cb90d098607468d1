package io.github.redissonratelimit.benchmarks;

import java.time.Duration;

import org.redisson.api.RRateLimiter;
import org.redisson.api.RateType;
import org.redisson.api.RedissonClient;

/** (a) The floor: one {@link RRateLimiter} per user, configured once, then {@code tryAcquire()} per call. */
final class RawRateLimiterContender implements Contender {

    private final RRateLimiter[] limiters = new RRateLimiter[Users.COUNT];

    RawRateLimiterContender(RedissonClient redisson) {
        for (int user = 0; user < Users.COUNT; user++) {
            RRateLimiter limiter = redisson.getRateLimiter("raw:{" + Users.id(user) + "}");
            limiter.trySetRate(RateType.OVERALL, Limits.GENEROUS_RATE, Duration.ofSeconds(1));
            limiters[user] = limiter;
        }
    }

    @Override
    public String id() {
        return "a";
    }

    @Override
    public String description() {
        return "raw `RRateLimiter.tryAcquire()` (limiter objects created and configured once)";
    }

    @Override
    public boolean decide(int user) {
        return limiters[user].tryAcquire();
    }
}
