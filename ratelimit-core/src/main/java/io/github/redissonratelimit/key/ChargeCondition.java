package io.github.redissonratelimit.key;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.github.redissonratelimit.RateLimitConditionException;

/**
 * A {@code chargeWhen} expression, parsed once for one method: evaluated after the call has run, with the variables
 * of a key and {@code #result} (what the call returned; for a future or a {@code Mono}, its value) and
 * {@code #exception} (what it threw or failed with), each null when there is none.
 */
public final class ChargeCondition extends DeclaredExpression {

    /** The variables a charge condition has besides the arguments. */
    static final List<String> VARIABLES = List.of("result", "exception");

    ChargeCondition(MethodExpression expression) {
        super(expression);
    }

    /**
     * Whether the call is charged.
     * @throws RateLimitConditionException when the expression fails or does not give a boolean
     */
    public boolean holds(Object target, Class<?> targetClass, Object[] args, Object result, Throwable exception) {
        Map<String, Object> variables = new HashMap<>(4);
        variables.put("result", result);
        variables.put("exception", exception);
        Object value;
        try {
            value = expression.evaluate(target, targetClass, args, variables);
        }
        catch (RuntimeException ex) {
            throw new RateLimitConditionException(expression.methodDescription, "chargeWhen", expression.source,
                    "failed: " + ex.getMessage(), ex);
        }
        if (value instanceof Boolean bool) {
            return bool;
        }
        throw new RateLimitConditionException(expression.methodDescription, "chargeWhen", expression.source, "gave "
                + (value == null ? "null" : value.getClass().getSimpleName()) + " instead of true or false", null);
    }
}
