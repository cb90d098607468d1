package io.github.redissonratelimit.limiter;

/** Takes permits from a named distributed limiter. */
public interface RateLimitBackend {

    /**
     * Takes {@code permits} from the limiter called {@code limiterName} if they are free now.
     * The limiter is created with {@code spec} when it does not exist yet.
     */
    Decision tryAcquire(String limiterName, LimitSpec spec, long permits);
}
