package io.github.redissonratelimit.key;

/**
 * A {@code @RateLimit} key expression could not produce a key for a call: it failed, or it gave
 * {@code null} or a blank string. The call is not made, because limiting every such call under one
 * key ("null") would throttle unrelated callers together.
 */
public class RateLimitKeyException extends RuntimeException {

    private final String method;
    private final String expression;

    public RateLimitKeyException(String method, String expression, String problem, Throwable cause) {
        super("@RateLimit key expression \"" + expression + "\" on " + method + " " + problem, cause);
        this.method = method;
        this.expression = expression;
    }

    /** The annotated method, e.g. {@code com.example.OrderController.submit(String)}. */
    public String getMethod() {
        return method;
    }

    public String getExpression() {
        return expression;
    }
}
