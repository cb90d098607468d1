package io.github.redissonratelimit;

/**
 * A {@code @RateLimit} key expression could not produce a key for a call: it failed, or it gave
 * {@code null} or a blank string. The call is not made, because limiting every such call under one
 * key ("null") would throttle unrelated callers together.
 *
 * <p>Usually the call's arguments are to blame (a missing or absurdly long value), so a web application answers
 * it with HTTP 400. The message names the method and the expression, never the arguments; it may quote
 * the expression's own error, which can hold part of them, so escape it before logging
 * ({@link io.github.redissonratelimit.log.LogSafe}).
 */
public class RateLimitKeyException extends RateLimitEvaluationException {

    public RateLimitKeyException(String method, String expression, String problem, Throwable cause) {
        super("@RateLimit key expression \"" + expression + "\" on " + method + " " + problem, method, expression,
                null, null, cause);
    }

    /** {@code failure} for the limit whose key it is. */
    public RateLimitKeyException(RateLimitKeyException failure, String limitName, String displayName) {
        super(failure.getMessage(), failure.getMethod(), failure.getExpression(), limitName, displayName,
                failure.getCause());
        setStackTrace(failure.getStackTrace());
    }

    /** For subclasses whose message is their own, e.g. {@link RateLimitCostException}. */
    protected RateLimitKeyException(String message, String method, String expression, String limitName,
            String displayName, Throwable cause) {
        super(message, method, expression, limitName, displayName, cause);
    }

    /**
     * What is wrong with the request, as a client may be told (no input, no expression), completing
     * "The request has ... for the rate limit 'name'": {@code no valid key} here.
     */
    public String getRequestProblem() {
        return "no valid key";
    }
}
