package io.github.redissonratelimit;

/**
 * The Redisson on the class path cannot run the rate limiter. Thrown when the application starts (and by
 * the Redis backend's constructor), naming the version found and the supported range, so that a
 * wrong pin fails at startup rather than on every limited call.
 */
public class UnsupportedRedissonVersionException extends RateLimitException {

    /**
     * The supported versions, and those the build tests. Here rather than with the version check so that the
     * exception names them without depending on the Redis backend that throws it.
     */
    public static final String SUPPORTED_VERSIONS = "3.24.3 to 3.52.0 and 4.0.0 to 4.7.0 "
            + "(tested: 3.24.3, 3.52.0 and 4.7.0)";

    private final String version;
    private final String problem;

    public UnsupportedRedissonVersionException(String version, String problem, Throwable cause) {
        super("Redisson " + version + " is not supported by redisson-ratelimit: " + problem + ". Supported: Redisson "
                + SUPPORTED_VERSIONS, cause);
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

    /** The versions the rate limiter supports, as {@link #SUPPORTED_VERSIONS}. */
    public String getSupportedVersions() {
        return SUPPORTED_VERSIONS;
    }
}
