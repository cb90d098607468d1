package io.github.redissonratelimit.key;

import io.github.redissonratelimit.RateLimitKeyException;

/** A key expression parsed once for one method; {@link #evaluate} runs per call. */
public final class KeyExpression extends DeclaredExpression {

    KeyExpression(MethodExpression expression) {
        super(expression);
    }

    /**
     * The key of every call when the expression is text alone ({@code 'checkout'}), which {@link #evaluate} returns
     * for each; else null.
     */
    public String constant() {
        String literal = expression.literal();
        return literal == null || literal.isBlank() ? null : literal;
    }

    /** The key for one call; never null or blank, and no part of it a null value written as {@code null}. */
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
        String nullPart = expression.nullPart(target, targetClass, args, key);
        if (nullPart != null) {
            throw new RateLimitKeyException(expression.methodDescription, expression.source, "has a null part: "
                    + nullPart + " is null", null);
        }
        return key;
    }
}
