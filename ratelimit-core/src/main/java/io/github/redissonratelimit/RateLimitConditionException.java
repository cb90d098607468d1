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
    private final String limitName;
    private final String displayName;

    public RateLimitConditionException(String method, String attribute, String expression, String problem,
            Throwable cause) {
        super("@RateLimit " + attribute + " \"" + expression + "\" on " + method + " " + problem, cause);
        this.method = method;
        this.attribute = attribute;
        this.expression = expression;
        this.limitName = null;
        this.displayName = null;
    }

    /** {@code failure}, naming the limit it belongs to. */
    public RateLimitConditionException(RateLimitConditionException failure, String limitName, String displayName) {
        super(failure.getMessage(), failure.getCause());
        this.method = failure.method;
        this.attribute = failure.attribute;
        this.expression = failure.expression;
        this.limitName = limitName;
        this.displayName = displayName;
    }

    /** The limit's declared name, or null when the exception does not know it. */
    public String getLimitName() {
        return limitName;
    }

    /** How the limit is named to clients (its name, or the class and method it is declared on), or null. */
    public String getDisplayName() {
        return displayName;
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
