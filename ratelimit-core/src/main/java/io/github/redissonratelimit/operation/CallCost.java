package io.github.redissonratelimit.operation;

import java.math.BigInteger;

import io.github.redissonratelimit.RateLimitCostException;
import io.github.redissonratelimit.key.ValueExpression;

/**
 * The permits one call takes under a {@code cost} expression: a whole number from 0 (nothing is taken) up to the
 * limit's rate; anything else refuses the call with {@link RateLimitCostException}.
 */
final class CallCost {

    private CallCost() {
    }

    /** @throws RateLimitCostException when the expression gives no whole number from 0 up to the rate */
    static long of(ValueExpression cost, RateLimitOperation operation, Object target, Class<?> targetClass,
            Object[] args) {
        Object value;
        try {
            value = cost.evaluate(target, targetClass, args);
        }
        catch (RuntimeException ex) {
            throw refused(cost, operation, null, "failed: " + ex.getMessage(), ex);
        }
        Long permits = wholeNumber(value);
        if (permits == null) {
            throw refused(cost, operation, null, "gave " + (value == null ? "null"
                    : value.getClass().getSimpleName() + " '" + value + "'") + " instead of a whole number", null);
        }
        if (permits < 0) {
            throw refused(cost, operation, permits, "gave " + permits + ", a negative cost", null);
        }
        if (permits > operation.spec().capacity()) {
            throw refused(cost, operation, permits, "gave " + permits + ", more than " + (operation.spec().capacity()
                    == operation.spec().rate() ? "the rate" : "the burst") + " (" + operation.spec()
                    + "): no call of this cost could ever be allowed", null);
        }
        return permits;
    }

    private static RateLimitCostException refused(ValueExpression cost, RateLimitOperation operation, Long permits,
            String problem, Throwable cause) {
        return new RateLimitCostException(cost.methodDescription(), cost.source(), operation.name(),
                operation.displayName(), permits, problem, cause);
    }

    /** An integral number, or a text holding one; {@code null} for anything else. */
    private static Long wholeNumber(Object value) {
        if (value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte) {
            return ((Number) value).longValue();
        }
        if (value instanceof BigInteger big && big.bitLength() < Long.SIZE) {
            return big.longValue();
        }
        if (value instanceof CharSequence text) {
            try {
                return Long.parseLong(text.toString().strip());
            }
            catch (NumberFormatException ex) {
                return null;
            }
        }
        return null;
    }
}
