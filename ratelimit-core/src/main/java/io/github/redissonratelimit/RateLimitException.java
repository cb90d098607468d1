package io.github.redissonratelimit;

/**
 * The base of every exception this library throws on its own account, so that one {@code catch} or
 * {@code @ExceptionHandler} can cover them all:
 *
 * <ul>
 * <li>{@link RateLimitExceededException}: a limit rejected the call (HTTP 429);</li>
 * <li>{@link RateLimitBackendUnavailableException}: Redis gave no decision and the limit's outage policy denies
 * (HTTP 503);</li>
 * <li>{@link RateLimitEvaluationException}: a limit's expression could not be evaluated for the call's arguments,
 * its key or cost ({@link RateLimitKeyException}) or its condition ({@link RateLimitConditionException}) (HTTP
 * 400);</li>
 * <li>{@link InvalidRateLimitException}: a {@code @RateLimit} declaration is wrong (fails startup);</li>
 * <li>{@link UnsupportedRedissonVersionException}: the Redisson on the class path cannot run the limiter (fails
 * startup).</li>
 * </ul>
 */
public abstract class RateLimitException extends RuntimeException {

    protected RateLimitException(String message) {
        super(message);
    }

    protected RateLimitException(String message, Throwable cause) {
        super(message, cause);
    }
}
