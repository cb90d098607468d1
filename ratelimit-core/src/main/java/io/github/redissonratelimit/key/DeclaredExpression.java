package io.github.redissonratelimit.key;

import java.util.List;

/**
 * A {@code key}, {@code condition}, {@code skipIf} or {@code cost} expression parsed once for one method, with what it
 * reads that no call will have, so an unusable declaration can fail at startup.
 */
public abstract sealed class DeclaredExpression permits KeyExpression, ConditionExpression, ValueExpression,
        ChargeCondition {

    final MethodExpression expression;

    DeclaredExpression(MethodExpression expression) {
        this.expression = expression;
    }

    /** The expression as written. */
    public String source() {
        return expression.source;
    }

    /** Parameter names of the method, or {@code null} when the class was compiled without {@code -parameters}. */
    public String[] parameterNames() {
        return expression.parameterNames();
    }

    /**
     * Variables the expression reads that are neither a parameter name, {@code p<n>}/{@code a<n>} within
     * the parameter count, {@code #root} nor {@code #this} (misspelt parameters): they would always be null.
     * Empty when the parameter names are not known and only index variables are used correctly.
     */
    public List<String> unknownVariables() {
        return expression.unknownVariables();
    }

    /**
     * Names read without {@code #} from the root object that it does not have, e.g. a parameter written
     * without {@code #}: SpEL would fail on them at every call.
     */
    public List<String> unknownRootProperties() {
        return expression.unknownRootProperties();
    }

    @Override
    public String toString() {
        return expression.source;
    }
}
