package io.github.redissonratelimit;

/**
 * A {@code @RateLimit} {@code condition} or {@code skipIf} expression could not decide a call: it failed,
 * or it gave something other than a boolean. The call is not made, since neither limiting it nor letting
 * it through unlimited is safe to guess.
 */
public class RateLimitConditionException extends RateLimitException {

    private final String method;
    private final String attribute;
    private final String expression;

    public RateLimitConditionException(String method, String attribute, String expression, String problem,
            Throwable cause) {
        super("@RateLimit " + attribute + " \"" + expression + "\" on " + method + " " + problem, cause);
        this.method = method;
        this.attribute = attribute;
        this.expression = expression;
    }

    /** The annotated method, e.g. {@code com.example.OrderController.submit(String)}. */
    public String getMethod() {
        return method;
    }

    /** {@code condition} or {@code skipIf}. */
    public String getAttribute() {
        return attribute;
    }

    public String getExpression() {
        return expression;
    }
}
