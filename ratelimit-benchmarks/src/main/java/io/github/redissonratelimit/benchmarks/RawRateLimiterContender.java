package io.github.redissonratelimit.benchmarks;

import java.time.Duration;

import org.redisson.api.RRateLimiter;
import org.redisson.api.RateType;
import org.redisson.api.RedissonClient;

/**
 * (a) The floor for RRateLimiter itself: one {@link RRateLimiter} per user, configured once (with the same key TTL as (b)'s
 * default), then {@code tryAcquire()} per call.
 */
final class RawRateLimiterContender implements Contender {

    private final RRateLimiter[] limiters = new RRateLimiter[Users.COUNT];

    RawRateLimiterContender(RedissonClient redisson) {
        for (int user = 0; user < Users.COUNT; user++) {
            RRateLimiter limiter = redisson.getRateLimiter("raw:{" + Users.id(user) + "}");
            limiter.trySetRate(RateType.OVERALL, Limits.GENEROUS_RATE, Duration.ofSeconds(1), Limits.KEY_TTL);
            limiters[user] = limiter;
        }
    }

    @Override
    public String id() {
        return "a";
    }

    @Override
    public String description() {
        return "raw `RRateLimiter.tryAcquire()` (limiter objects created and configured once, keep-alive "
                + Limits.KEY_TTL.toMinutes() + " min like (b)'s default `ratelimit.key-ttl`)";
    }

    @Override
    public boolean decide(int user) {
        return limiters[user].tryAcquire();
    }
}
