package io.github.redissonratelimit.key;

/**
 * A {@code @RateLimit} attribute other than {@code key}, {@code condition} and {@code skipIf} that is computed
 * per call ({@code cost}), parsed once for one method with the same variables as a key. What its value means is
 * up to the caller.
 */
public final class ValueExpression extends DeclaredExpression {

    private final String attribute;

    ValueExpression(MethodExpression expression, String attribute) {
        super(expression);
        this.attribute = attribute;
    }

    /** The annotation attribute, e.g. {@code cost}. */
    public String attribute() {
        return attribute;
    }

    /** How errors name the annotated method. */
    public String methodDescription() {
        return expression.methodDescription;
    }

    /**
     * The value for one call.
     * @throws RuntimeException whatever the expression throws
     */
    public Object evaluate(Object target, Class<?> targetClass, Object[] args) {
        return expression.evaluate(target, targetClass, args);
    }
}
