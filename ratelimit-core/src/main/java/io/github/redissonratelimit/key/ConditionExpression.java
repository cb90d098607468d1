package io.github.redissonratelimit.key;

import java.lang.reflect.Method;
import java.util.List;

import org.springframework.expression.BeanResolver;
import org.springframework.expression.Expression;

/**
 * A {@code condition} or {@code skipIf} expression parsed once for one method; {@link #isTrue} runs per
 * call with the same variables as a key expression.
 */
public final class ConditionExpression {

    private final String source;
    private final String attribute;
    private final Expression expression;
    private final Method method;
    private final String methodDescription;
    private final String[] parameterNames;
    private final BeanResolver beanResolver;
    private final List<String> unknownVariables;

    ConditionExpression(String source, String attribute, Expression expression, Method method,
            String methodDescription, String[] parameterNames, BeanResolver beanResolver, List<String> unknownVariables) {
        this.source = source;
        this.attribute = attribute;
        this.expression = expression;
        this.method = method;
        this.methodDescription = methodDescription;
        this.parameterNames = parameterNames;
        this.beanResolver = beanResolver;
        this.unknownVariables = unknownVariables;
    }

    public String source() {
        return source;
    }

    /** Parameter names of the method, or {@code null} when the class was compiled without {@code -parameters}. */
    public String[] parameterNames() {
        return parameterNames == null ? null : parameterNames.clone();
    }

    /** Variables the expression reads that no call has (misspelt parameters): always null. */
    public List<String> unknownVariables() {
        return unknownVariables;
    }

    /**
     * @throws RateLimitConditionException when the expression fails or does not give a boolean
     */
    public boolean isTrue(Object target, Class<?> targetClass, Object[] args) {
        KeyEvaluationContext context = new KeyEvaluationContext(
                new KeyExpressionRoot(method, args, target, targetClass), parameterNames, beanResolver);
        Object value;
        try {
            value = expression.getValue(context);
        }
        catch (RuntimeException ex) {
            throw new RateLimitConditionException(methodDescription, attribute, source, "failed: " + ex.getMessage(), ex);
        }
        if (value instanceof Boolean bool) {
            return bool;
        }
        if (value instanceof String text && (text.equalsIgnoreCase("true") || text.equalsIgnoreCase("false"))) {
            return Boolean.parseBoolean(text);
        }
        throw new RateLimitConditionException(methodDescription, attribute, source, "gave "
                + (value == null ? "null" : value.getClass().getSimpleName() + " '" + value + "'")
                + " instead of true or false", null);
    }

    @Override
    public String toString() {
        return source;
    }
}
