package io.github.redissonratelimit.key;

import java.util.List;

import io.github.redissonratelimit.RateLimitKeyException;


/** A key expression parsed once for one method; {@link #evaluate} runs per call. */
public final class KeyExpression {

    private final MethodExpression expression;

    KeyExpression(MethodExpression expression) {
        this.expression = expression;
    }

    /**
     * Variables the expression reads that are neither a parameter name, {@code p<n>}/{@code a<n>} within
     * the parameter count, {@code #root} nor {@code #this}: they would always be null. Empty when the
     * parameter names are not known and only index variables are used correctly.
     */
    public List<String> unknownVariables() {
        return expression.unknownVariables();
    }

    public String source() {
        return expression.source;
    }

    /** Parameter names of the method, or {@code null} when the class was compiled without {@code -parameters}. */
    public String[] parameterNames() {
        return expression.parameterNames();
    }

    /** The key for one call; never null or blank. */
    public String evaluate(Object target, Class<?> targetClass, Object[] args) {
        Object value;
        try {
            value = expression.evaluate(target, targetClass, args);
        }
        catch (RuntimeException ex) {
            throw new RateLimitKeyException(expression.methodDescription, expression.source,
                    "failed: " + ex.getMessage(), ex);
        }
        if (value == null) {
            throw new RateLimitKeyException(expression.methodDescription, expression.source, "evaluated to null"
                    + (expression.parameterNamesKnown() ? "" : " (parameter names are not available: compile with "
                            + "-parameters or use #p0/#a0)"), null);
        }
        String key = value.toString();
        if (key.isBlank()) {
            throw new RateLimitKeyException(expression.methodDescription, expression.source,
                    "evaluated to an empty key", null);
        }
        return key;
    }

    @Override
    public String toString() {
        return expression.source;
    }
}
