package io.github.redissonratelimit.key;

import java.util.List;

import io.github.redissonratelimit.RateLimitConditionException;


/**
 * A {@code condition} or {@code skipIf} expression parsed once for one method; {@link #isTrue} runs per
 * call with the same variables as a key expression.
 */
public final class ConditionExpression {

    private final MethodExpression expression;
    private final String attribute;

    ConditionExpression(MethodExpression expression, String attribute) {
        this.expression = expression;
        this.attribute = attribute;
    }

    public String source() {
        return expression.source;
    }

    /** Parameter names of the method, or {@code null} when the class was compiled without {@code -parameters}. */
    public String[] parameterNames() {
        return expression.parameterNames();
    }

    /** Variables the expression reads that no call has (misspelt parameters): always null. */
    public List<String> unknownVariables() {
        return expression.unknownVariables();
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

    @Override
    public String toString() {
        return expression.source;
    }
}
