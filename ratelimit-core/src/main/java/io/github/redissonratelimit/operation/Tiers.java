package io.github.redissonratelimit.operation;

import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

import io.github.redissonratelimit.RateLimitConditionException;
import io.github.redissonratelimit.key.ValueExpression;

/**
 * The tiers of one limit ({@code @RateLimit(tier = ...)}): the operation of each tier its policy configures, and
 * the expression that picks the tier of a call.
 */
public final class Tiers {

    private final ValueExpression expression;
    private final Map<String, RateLimitOperation> byName;

    Tiers(ValueExpression expression, Map<String, RateLimitOperation> byName) {
        this.expression = expression;
        this.byName = Map.copyOf(byName);
    }

    /** The {@code tier} expression as written. */
    public String source() {
        return expression.source();
    }

    /** The configured tiers. */
    public Set<String> names() {
        return byName.keySet();
    }

    /** The operation of each configured tier, by tier name in alphabetical order. */
    public SortedMap<String, RateLimitOperation> operations() {
        return Collections.unmodifiableSortedMap(new TreeMap<>(byName));
    }

    /**
     * The operation that limits one call: its tier's, or {@code base} (the policy's own values) when the
     * expression gives {@code null} or a tier that is not configured.
     * @throws RateLimitConditionException when the expression fails
     */
    public RateLimitOperation select(RateLimitOperation base, Object target, Class<?> targetClass, Object[] args) {
        Object tier;
        try {
            tier = expression.evaluate(target, targetClass, args);
        }
        catch (RuntimeException ex) {
            throw new RateLimitConditionException(expression.methodDescription(), "tier", expression.source(),
                    "failed: " + ex.getMessage(), ex);
        }
        RateLimitOperation operation = tier == null ? null : byName.get(tier.toString());
        return operation != null ? operation : base;
    }
}
