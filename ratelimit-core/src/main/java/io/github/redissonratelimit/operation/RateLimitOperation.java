package io.github.redissonratelimit.operation;

import java.time.Duration;
import java.util.Objects;

import io.github.redissonratelimit.RateLimitConditionException;
import io.github.redissonratelimit.RateLimitCostException;
import io.github.redissonratelimit.RateLimitKeyException;
import io.github.redissonratelimit.annotation.BackendErrorPolicy;
import io.github.redissonratelimit.key.ChargeCondition;
import io.github.redissonratelimit.key.ConditionExpression;
import io.github.redissonratelimit.key.KeyExpression;
import io.github.redissonratelimit.key.ValueExpression;
import io.github.redissonratelimit.limiter.LimitSpec;

/**
 * One {@code @RateLimit} as it applies to one method, validated and with its expressions parsed.
 * Built once per method by a {@link RateLimitOperationSource}, through a {@link RateLimitOperationBuilder}.
 */
public final class RateLimitOperation {

    private final String method;
    private final String name;
    private final KeyExpression key;
    private final LimitSpec spec;
    private final long permits;
    private final String message;
    private final String policyName;
    private final String source;
    private final BackendErrorPolicy backendErrorPolicy;
    private final String displayName;
    private final Duration waitTimeout;
    private final Duration lease;
    private final ConditionExpression condition;
    private final ConditionExpression skipIf;
    private final ChargeCondition chargeWhen;
    private final FallbackMethod fallback;
    private final ValueExpression cost;
    private final boolean shadow;
    private final Tiers tiers;
    private final CallerKey callerKey;

    RateLimitOperation(RateLimitOperationBuilder builder) {
        this.method = Objects.requireNonNull(builder.method, "method");
        this.name = Objects.requireNonNull(builder.name, "name");
        this.key = builder.key;
        this.spec = Objects.requireNonNull(builder.spec, "spec");
        this.permits = builder.permits;
        this.message = Objects.requireNonNull(builder.message, "message");
        this.policyName = builder.policyName;
        this.source = Objects.requireNonNull(builder.source, "source");
        this.backendErrorPolicy = Objects.requireNonNull(builder.backendErrorPolicy, "backendErrorPolicy");
        this.displayName = builder.displayName != null ? builder.displayName : name;
        this.waitTimeout = Objects.requireNonNull(builder.waitTimeout, "waitTimeout");
        this.lease = Objects.requireNonNull(builder.lease, "lease");
        this.condition = builder.condition;
        this.skipIf = builder.skipIf;
        this.chargeWhen = builder.chargeWhen;
        this.fallback = builder.fallback;
        this.cost = builder.cost;
        this.shadow = builder.shadow;
        this.tiers = builder.tiers;
        this.callerKey = builder.callerKey;
    }

    /**
     * An operation limiting {@code method} to {@code spec} under {@code name}: one permit a call, no key
     * expression, no waiting, no conditions and no fallback until set otherwise.
     */
    public static RateLimitOperationBuilder builder(String method, String name, LimitSpec spec) {
        return new RateLimitOperationBuilder(method, name, spec);
    }

    /** The declared {@code name}, under which a policy may be configured; {@code null} when none was declared. */
    public String policyName() {
        return policyName;
    }

    /** Where the values came from: {@code annotation}, {@code policy}, {@code defaults}, joined by {@code +}. */
    public String source() {
        return source;
    }

    /** The annotated method, e.g. {@code com.example.OrderController.submit(String)}. */
    public String method() {
        return method;
    }

    /** The declared name, or the method (class for a class-level annotation) the limit belongs to. */
    public String name() {
        return name;
    }

    /**
     * The name shown to clients, e.g. in HTTP {@code RateLimit-Policy}: the declared name, else the simple
     * class name and method ({@code OrderController.submit}), so package names do not leak.
     */
    public String displayName() {
        return displayName;
    }

    /** The parsed key expression, or {@code null} when the limit is one for the whole {@link #name()}. */
    public KeyExpression key() {
        return key;
    }

    /**
     * How the callers of a limit keyed outside a method (a URL route, a gateway route) are told apart, or
     * {@code null}: an annotated limit's callers are told apart by its {@link #key()}, a limit without either has
     * one limiter.
     */
    public CallerKey callerKey() {
        return callerKey;
    }

    public LimitSpec spec() {
        return spec;
    }

    /** Permits one call takes when there is no {@link #cost()} expression. */
    public long permits() {
        return permits;
    }

    /** The {@code cost} expression computing the permits of each call, or {@code null} for {@link #permits()}. */
    public ValueExpression cost() {
        return cost;
    }

    /** Shadow mode: decisions are taken and recorded, but never reject, deny, wait or fall back. */
    public boolean shadow() {
        return shadow;
    }

    /** The tiers a {@code tier} expression picks from per call, or {@code null} when the limit has none. */
    public Tiers tiers() {
        return tiers;
    }

    /**
     * The operation that limits one call: this one, or its tier's when a {@code tier} expression picks one.
     * @throws io.github.redissonratelimit.RateLimitConditionException when the tier expression fails
     */
    public RateLimitOperation forCall(Object target, Class<?> targetClass, Object[] args) {
        return tiers == null ? this : tiers.select(this, target, targetClass, args);
    }

    /**
     * The permits one call takes: {@link #permits()}, or what {@link #cost()} gives for it (0: nothing is taken).
     * @throws RateLimitCostException naming this limit, when the cost is not a whole number from 0 to the rate
     */
    public long permitsFor(Object target, Class<?> targetClass, Object[] args) {
        return cost == null ? permits : CallCost.of(cost, this, target, targetClass, args);
    }

    public String message() {
        return message;
    }

    /** What the call does when Redis gives no decision; {@code DEFAULT} defers to the interceptor's default. */
    public BackendErrorPolicy backendErrorPolicy() {
        return backendErrorPolicy;
    }

    /** How long a call may wait for its permits; {@link Duration#ZERO} rejects at once. */
    public Duration waitTimeout() {
        return waitTimeout;
    }

    /** The lease period of a limit whose permits each instance leases from Redis; zero when it has none. */
    public Duration lease() {
        return lease;
    }

    /** The {@code condition} expression, or {@code null}. */
    public ConditionExpression condition() {
        return condition;
    }

    /** The {@code skipIf} expression, or {@code null}. */
    public ConditionExpression skipIf() {
        return skipIf;
    }

    /** The {@code chargeWhen} expression, or {@code null}: every call that passes is charged. */
    public ChargeCondition chargeWhen() {
        return chargeWhen;
    }

    /** The method called instead of throwing on rejection, or {@code null}. */
    public FallbackMethod fallback() {
        return fallback;
    }

    /** Whether the limit applies to one call: {@code condition} holds and {@code skipIf} does not. */
    public boolean appliesTo(Object target, Class<?> targetClass, Object[] args) {
        try {
            return (condition == null || condition.isTrue(target, targetClass, args))
                    && (skipIf == null || !skipIf.isTrue(target, targetClass, args));
        }
        catch (RateLimitConditionException ex) {
            throw ex.getLimitName() != null ? ex : new RateLimitConditionException(ex, name, displayName);
        }
    }

    /**
     * The key {@link #resolveKey} gives every call when it does not depend on the call (no key expression: the name;
     * a key of text alone); else null.
     */
    public String constantKey() {
        return key == null ? name : key.constant();
    }

    /**
     * The logical key of one call: the evaluated expression, or {@link #name()} without one.
     * @throws RateLimitKeyException naming this limit, when the expression gives no key
     */
    public String resolveKey(Object target, Class<?> targetClass, Object[] args) {
        if (key == null) {
            return name;
        }
        try {
            return key.evaluate(target, targetClass, args);
        }
        catch (RateLimitKeyException ex) {
            throw ex.getLimitName() != null ? ex : new RateLimitKeyException(ex, name, displayName);
        }
    }

    /**
     * This operation with another spec and permits, everything else the same, for a {@link LimitOverride}; its
     * {@link #source()} ends with {@code +override}.
     */
    RateLimitOperation withLimit(LimitSpec spec, long permits) {
        return new RateLimitOperationBuilder(method, name, spec).key(key).permits(permits).message(message)
                .policyName(policyName).source(source + "+override").backendErrorPolicy(backendErrorPolicy)
                .displayName(displayName).waitTimeout(waitTimeout).lease(lease).condition(condition).skipIf(skipIf)
                .chargeWhen(chargeWhen).fallback(fallback).cost(cost).shadow(shadow).callerKey(callerKey)
                .build(); // no tiers: an override holds for every caller of the limit
    }

    @Override
    public String toString() {
        return "@RateLimit(" + (key == null ? "name=" + name : "key=" + key.source()) + ", " + spec
                + (cost != null ? ", cost=" + cost.source() : permits == 1 ? "" : ", permits=" + permits)
                + (shadow ? ", shadow" : "")
                + (waitTimeout.isZero() ? "" : ", waitTimeout=" + waitTimeout)
                + (lease.isZero() ? "" : ", lease=" + lease)
                + (fallback == null ? "" : ", fallback=" + fallback)
                + (chargeWhen == null ? "" : ", chargeWhen=" + chargeWhen.source()) + ") on " + method;
    }
}
