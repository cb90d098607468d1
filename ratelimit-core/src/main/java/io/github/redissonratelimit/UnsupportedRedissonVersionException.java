package io.github.redissonratelimit;

import io.github.redissonratelimit.redis.RedissonCompatibility;

/**
 * The Redisson on the class path cannot run the rate limiter. Thrown when the application starts (and by
 * {@link RedissonRateLimitBackend}'s constructor), naming the version found and the supported range, so that a
 * wrong pin fails at startup rather than on every limited call.
 */
public class UnsupportedRedissonVersionException extends RateLimitException {

    private final String version;
    private final String problem;

    public UnsupportedRedissonVersionException(String version, String problem, Throwable cause) {
        super("Redisson " + version + " is not supported by redisson-ratelimit: " + problem + ". Supported: Redisson "
                + RedissonCompatibility.SUPPORTED_VERSIONS, cause);
        this.version = version;
        this.problem = problem;
    }

    /** The Redisson version found on the class path ({@code unknown} when it could not be read). */
    public String getVersion() {
        return version;
    }

    /** What is wrong with it, e.g. {@code it is older than 3.24.3}. */
    public String getProblem() {
        return problem;
    }

    /** The versions the rate limiter supports, as {@link RedissonCompatibility#SUPPORTED_VERSIONS}. */
    public String getSupportedVersions() {
        return RedissonCompatibility.SUPPORTED_VERSIONS;
    }
}
