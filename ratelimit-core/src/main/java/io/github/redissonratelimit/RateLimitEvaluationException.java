package io.github.redissonratelimit;

/**
 * A limit's expression could not be evaluated for a call ({@link RateLimitKeyException} for its key or cost,
 * {@link RateLimitConditionException} for its {@code condition}, {@code skipIf} or tier), so the call is not made.
 * Usually the call's arguments are to blame: a web application answers HTTP 400 naming the limit.
 */
public abstract class RateLimitEvaluationException extends RateLimitException {

    private final String method;
    private final String expression;
    private final String limitName;
    private final String displayName;

    /**
     * @param limitName the limit's declared name, or null when not known
     * @param displayName the limit's name as clients see it, or null when not known
     */
    protected RateLimitEvaluationException(String message, String method, String expression, String limitName,
            String displayName, Throwable cause) {
        super(message, cause);
        this.method = method;
        this.expression = expression;
        this.limitName = limitName;
        this.displayName = displayName;
    }

    /** The annotated method, e.g. {@code com.example.OrderController.submit(String)}. */
    public String getMethod() {
        return method;
    }

    /** The expression that could not be evaluated, as declared. */
    public String getExpression() {
        return expression;
    }

    /** The limit's declared name, or the method (or class) it belongs to; null when not known. */
    public String getLimitName() {
        return limitName;
    }

    /**
     * The limit's name as clients see it (its name, or the class and method it is declared on, no package names),
     * e.g. {@code OrderController.submit}; null when not known.
     */
    public String getDisplayName() {
        return displayName;
    }
}
