package io.github.redissonratelimit;

/**
 * A {@code @RateLimit} {@code condition} or {@code skipIf} expression could not decide a call: it failed,
 * or it gave something other than a boolean. The call is not made, since neither limiting it nor letting
 * it through unlimited is safe to guess.
 */
public class RateLimitConditionException extends RateLimitEvaluationException {

    private final String attribute;

    public RateLimitConditionException(String method, String attribute, String expression, String problem,
            Throwable cause) {
        super("@RateLimit " + attribute + " \"" + expression + "\" on " + method + " " + problem, method, expression,
                null, null, cause);
        this.attribute = attribute;
    }

    /** {@code failure}, naming the limit it belongs to. */
    public RateLimitConditionException(RateLimitConditionException failure, String limitName, String displayName) {
        super(failure.getMessage(), failure.getMethod(), failure.getExpression(), limitName, displayName,
                failure.getCause());
        this.attribute = failure.attribute;
    }

    /** {@code condition} or {@code skipIf}. */
    public String getAttribute() {
        return attribute;
    }
}
