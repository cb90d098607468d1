package io.github.redissonratelimit.autoconfigure;

import java.util.List;

import io.github.redissonratelimit.RateLimitException;

/**
 * The application declares rate limits ({@code @RateLimit} methods or {@code ratelimit.policies.*}), but no limiter
 * can be built for them, so every one of them would silently do nothing. Thrown at startup, explained by the
 * failure analyzer with what is missing and how to fix it (or to run without limits, {@code ratelimit.enabled=false}).
 */
public class RateLimiterUnavailableException extends RateLimitException {

    private final List<String> declarations;
    private final int declarationCount;
    private final String redissonVersion;
    private final String redissonProblem;

    /**
     * @param declarations some of the declarations found (methods, then policy properties)
     * @param declarationCount how many there are in all
     * @param redissonVersion the Redisson on the class path, or {@code null} when there is none
     * @param redissonProblem why that Redisson cannot run the limiter, or {@code null} when it can
     */
    public RateLimiterUnavailableException(List<String> declarations, int declarationCount, String redissonVersion,
            String redissonProblem) {
        super("Rate limits are declared (" + String.join(", ", declarations)
                + (declarationCount > declarations.size() ? ", ..." : "") + "), but no rate limiter can be built: "
                + reason(redissonVersion, redissonProblem)
                + ". Add a RedissonClient (redisson-spring-boot-starter, or a RedissonClient bean), or set "
                + "ratelimit.enabled=false to run without limits");
        this.declarations = List.copyOf(declarations);
        this.declarationCount = declarationCount;
        this.redissonVersion = redissonVersion;
        this.redissonProblem = redissonProblem;
    }

    private static String reason(String redissonVersion, String redissonProblem) {
        if (redissonVersion == null) {
            return "Redisson is not on the class path";
        }
        return "there is no RedissonClient bean" + (redissonProblem == null ? ""
                : ", and Redisson " + redissonVersion + " cannot run the limiter: " + redissonProblem);
    }

    /** Some of the declarations found: methods ({@code com.example.Orders.submit(String)}) and policy properties. */
    public List<String> getDeclarations() {
        return declarations;
    }

    /** How many declarations there are in all. */
    public int getDeclarationCount() {
        return declarationCount;
    }

    /** The version of the Redisson on the class path ({@code unknown} when unreadable), or {@code null} if none. */
    public String getRedissonVersion() {
        return redissonVersion;
    }

    /** Why the Redisson on the class path cannot run the limiter, or {@code null} when it can. */
    public String getRedissonProblem() {
        return redissonProblem;
    }
}
