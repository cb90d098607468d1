package io.github.redissonratelimit.autoconfigure;

import io.github.redissonratelimit.UnsupportedRedissonVersionException;
import io.github.redissonratelimit.redis.RedissonCompatibility;

/**
 * The Redisson version the rate limiter found when the application started. Created with the context, unlike the
 * interceptor and its Redis backend (made by the first limited call): a Redisson that cannot work fails startup
 * with {@link UnsupportedRedissonVersionException}, explained by the failure analyzer, instead of every call.
 */
public final class RedissonVersionCheck {

    private final String version;

    /**
     * @param classLoader the application's class loader, through which the Redisson jar's version is read
     * @throws UnsupportedRedissonVersionException for a Redisson older than {@value RedissonCompatibility#OLDEST} or
     * one that lacks the API the limiter uses
     */
    public RedissonVersionCheck(ClassLoader classLoader) {
        this.version = RedissonCompatibility.check(classLoader);
    }

    /** The Redisson version found ({@code unknown} when the jar does not say). */
    public String getVersion() {
        return version;
    }
}
