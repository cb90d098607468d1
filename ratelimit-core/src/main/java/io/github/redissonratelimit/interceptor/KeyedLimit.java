package io.github.redissonratelimit.interceptor;

import java.util.Objects;

import io.github.redissonratelimit.operation.RateLimitOperation;

/**
 * One limit of a request decided through a {@link RateLimitDecider}: the limit, the key it gives this request (the
 * logical key, before the key prefix and hash tag) and the permits the request takes.
 */
public record KeyedLimit(RateLimitOperation operation, String key, long permits) {

    public KeyedLimit {
        Objects.requireNonNull(operation, "operation");
        Objects.requireNonNull(key, "key");
        if (permits < 1) {
            throw new IllegalArgumentException("permits must be at least 1 but were " + permits);
        }
    }
}
