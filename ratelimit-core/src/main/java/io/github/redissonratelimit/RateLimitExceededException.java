package io.github.redissonratelimit;

import java.time.Duration;

import io.github.redissonratelimit.log.LogSafe;
import io.github.redissonratelimit.limiter.LimitSpec;

/**
 * A call found no free permit. {@link #getMessage()} is the annotation's {@code message};
 * {@link #getRetryAfter()} tells when the permits can be free again.
 */
public class RateLimitExceededException extends RateLimitException {

    private final String limitName;
    private final String displayName;
    private final String key;
    private final String limiterName;
    private final LimitSpec limit;
    private final long permits;
    private final Duration retryAfter;

    public RateLimitExceededException(String message, String limitName, String key, String limiterName,
            LimitSpec limit, long permits, Duration retryAfter) {
        this(message, limitName, limitName, key, limiterName, limit, permits, retryAfter);
    }

    /** @param displayName the limit's name as clients see it (HTTP headers) */
    public RateLimitExceededException(String message, String limitName, String displayName, String key,
            String limiterName, LimitSpec limit, long permits, Duration retryAfter) {
        super(message);
        this.limitName = limitName;
        this.displayName = displayName;
        this.key = key;
        this.limiterName = limiterName;
        this.limit = limit;
        this.permits = permits;
        this.retryAfter = retryAfter;
    }

    /** The limit's declared name, or the method (or class) it belongs to. */
    public String getLimitName() {
        return limitName;
    }

    /** The limit's name as clients see it, e.g. in the HTTP {@code RateLimit} header. */
    public String getDisplayName() {
        return displayName;
    }

    /** The logical key of the call, e.g. {@code order:submit:42}. */
    public String getKey() {
        return key;
    }

    /** The RRateLimiter name in Redis, e.g. {@code rate_limit:{order:submit:42}}. */
    public String getLimiterName() {
        return limiterName;
    }

    /** Rate, interval and mode of the limit. */
    public LimitSpec getLimit() {
        return limit;
    }

    /** Permits the call asked for. */
    public long getPermits() {
        return permits;
    }

    /** Time until the permits can be free, in milliseconds precision. */
    public Duration getRetryAfter() {
        return retryAfter;
    }

    /**
     * Whether {@link #getRetryAfter()} tells when permits can be free again, so that an HTTP refusal carries it as
     * {@code Retry-After}: not for a limit whose permits come back when calls end (an in-flight limit's), where no
     * time is known.
     */
    public boolean isRetryAfterKnown() {
        return limit == null || !limit.algorithm().held();
    }

    /** {@link #getRetryAfter()} rounded up to whole seconds, at least 1: the HTTP {@code Retry-After} value. */
    public long getRetryAfterSeconds() {
        return retryAfterSeconds(retryAfter);
    }

    /** {@code retryAfter} rounded up to whole seconds, at least 1, as HTTP {@code Retry-After} carries it. */
    public static long retryAfterSeconds(Duration retryAfter) {
        return Math.max(1, toSecondsRoundedUp(retryAfter));
    }

    /**
     * {@code wait} rounded up to whole seconds (0 stays 0, 1 ms becomes 1): the one rounding of a wait to
     * seconds, behind {@code Retry-After} of both exceptions and the seconds of the rate limit headers.
     */
    public static long toSecondsRoundedUp(Duration wait) {
        return (wait.toMillis() + 999) / 1000;
    }

    /** For logs: the message plus key, limit and wait, on one line ({@link LogSafe}: the key may be user input). */
    public String describe() {
        return LogSafe.text(getMessage() + " [limit " + limitName + ", key " + LogSafe.text(key) + ", " + limit
                + ", retry after " + retryAfter.toMillis() + "ms]");
    }
}
