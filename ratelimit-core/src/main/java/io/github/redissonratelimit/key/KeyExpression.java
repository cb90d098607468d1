package io.github.redissonratelimit.key;

import java.lang.reflect.Method;
import java.util.List;

import org.springframework.expression.BeanResolver;
import org.springframework.expression.Expression;

/** A key expression parsed once for one method; {@link #evaluate} runs per call. */
public final class KeyExpression {

    private final String source;
    private final Expression expression;
    private final Method method;
    private final String methodDescription;
    private final String[] parameterNames;
    private final BeanResolver beanResolver;
    private final List<String> unknownVariables;

    KeyExpression(String source, Expression expression, Method method, String methodDescription,
            String[] parameterNames, BeanResolver beanResolver, List<String> unknownVariables) {
        this.source = source;
        this.expression = expression;
        this.method = method;
        this.methodDescription = methodDescription;
        this.parameterNames = parameterNames;
        this.beanResolver = beanResolver;
        this.unknownVariables = unknownVariables;
    }

    /**
     * Variables the expression reads that are neither a parameter name, {@code p<n>}/{@code a<n>} within
     * the parameter count, {@code #root} nor {@code #this}: they would always be null. Empty when the
     * parameter names are not known and only index variables are used correctly.
     */
    public List<String> unknownVariables() {
        return unknownVariables;
    }

    public String source() {
        return source;
    }

    /** Parameter names of the method, or {@code null} when the class was compiled without {@code -parameters}. */
    public String[] parameterNames() {
        return parameterNames == null ? null : parameterNames.clone();
    }

    /** The key for one call; never null or blank. */
    public String evaluate(Object target, Class<?> targetClass, Object[] args) {
        KeyEvaluationContext context = new KeyEvaluationContext(
                new KeyExpressionRoot(method, args, target, targetClass), parameterNames, beanResolver);
        Object value;
        try {
            value = expression.getValue(context);
        }
        catch (RuntimeException ex) {
            throw new RateLimitKeyException(methodDescription, source, "failed: " + ex.getMessage(), ex);
        }
        if (value == null) {
            throw new RateLimitKeyException(methodDescription, source, "evaluated to null"
                    + (parameterNames == null ? " (parameter names are not available: compile with -parameters "
                            + "or use #p0/#a0)" : ""), null);
        }
        String key = value.toString();
        if (key.isBlank()) {
            throw new RateLimitKeyException(methodDescription, source, "evaluated to an empty key", null);
        }
        return key;
    }

    @Override
    public String toString() {
        return source;
    }
}
