package io.github.redissonratelimit.key;

import io.github.redissonratelimit.RateLimitConditionException;

/**
 * A {@code condition} or {@code skipIf} expression parsed once for one method; {@link #isTrue} runs per
 * call with the same variables as a key expression.
 */
public final class ConditionExpression extends DeclaredExpression {

    private final String attribute;

    ConditionExpression(MethodExpression expression, String attribute) {
        super(expression);
        this.attribute = attribute;
    }

    /**
     * @throws RateLimitConditionException when the expression fails or does not give a boolean
     */
    public boolean isTrue(Object target, Class<?> targetClass, Object[] args) {
        Object value;
        try {
            value = expression.evaluate(target, targetClass, args);
        }
        catch (RuntimeException ex) {
            throw new RateLimitConditionException(expression.methodDescription, attribute, expression.source,
                    "failed: " + ex.getMessage(), ex);
        }
        if (value instanceof Boolean bool) {
            return bool;
        }
        if (value instanceof String text && (text.equalsIgnoreCase("true") || text.equalsIgnoreCase("false"))) {
            return Boolean.parseBoolean(text);
        }
        throw new RateLimitConditionException(expression.methodDescription, attribute, expression.source, "gave "
                + (value == null ? "null" : value.getClass().getSimpleName() + " '" + value + "'")
                + " instead of true or false", null);
    }
}
