package io.github.redissonratelimit.operation;

import java.time.Duration;

import io.github.redissonratelimit.annotation.BackendErrorPolicy;
import io.github.redissonratelimit.key.ChargeCondition;
import io.github.redissonratelimit.key.ConditionExpression;
import io.github.redissonratelimit.key.KeyExpression;
import io.github.redissonratelimit.key.ValueExpression;
import io.github.redissonratelimit.limiter.LimitSpec;

/** Collects the values of one {@link RateLimitOperation}; {@link #build()} checks the required ones. */
public final class RateLimitOperationBuilder {

    final String method;
    final String name;
    final LimitSpec spec;
    KeyExpression key;
    long permits = 1;
    String message = "Too many requests";
    String policyName;
    String source = "annotation";
    BackendErrorPolicy backendErrorPolicy = BackendErrorPolicy.DEFAULT;
    String displayName;
    Duration waitTimeout = Duration.ZERO;
    Duration lease = Duration.ZERO;
    ConditionExpression condition;
    ConditionExpression skipIf;
    ChargeCondition chargeWhen;
    FallbackMethod fallback;
    ValueExpression cost;
    boolean shadow;
    Tiers tiers;
    CallerKey callerKey;

    RateLimitOperationBuilder(String method, String name, LimitSpec spec) {
        this.method = method;
        this.name = name;
        this.spec = spec;
    }

    /** @param key evaluated per call; {@code null} (the default) makes one limit for the whole name */
    public RateLimitOperationBuilder key(KeyExpression key) {
        this.key = key;
        return this;
    }

    /** Permits one call takes; 1 unless set. */
    public RateLimitOperationBuilder permits(long permits) {
        this.permits = permits;
        return this;
    }

    /** The rejection's message; {@code Too many requests} unless set. */
    public RateLimitOperationBuilder message(String message) {
        this.message = message;
        return this;
    }

    /** @param policyName the declared {@code name}; {@code null} (the default) when none was declared */
    public RateLimitOperationBuilder policyName(String policyName) {
        this.policyName = policyName;
        return this;
    }

    /** Where the values came from, e.g. {@code annotation+defaults}; {@code annotation} unless set. */
    public RateLimitOperationBuilder source(String source) {
        this.source = source;
        return this;
    }

    public RateLimitOperationBuilder backendErrorPolicy(BackendErrorPolicy backendErrorPolicy) {
        this.backendErrorPolicy = backendErrorPolicy;
        return this;
    }

    /** The short name clients see (HTTP headers); the name unless set. */
    public RateLimitOperationBuilder displayName(String displayName) {
        this.displayName = displayName;
        return this;
    }

    /** How long a call may wait for its permits; zero (the default) rejects at once. */
    /** @param lease the lease period of {@link io.github.redissonratelimit.annotation.RateLimit#lease()}; zero: off */
    public RateLimitOperationBuilder lease(Duration lease) {
        this.lease = lease;
        return this;
    }

    public RateLimitOperationBuilder waitTimeout(Duration waitTimeout) {
        this.waitTimeout = waitTimeout;
        return this;
    }

    /** @param condition the limit applies only when true; may be null */
    public RateLimitOperationBuilder condition(ConditionExpression condition) {
        this.condition = condition;
        return this;
    }

    /** @param chargeWhen the call's permits are kept only when true once it has run; may be null */
    public RateLimitOperationBuilder chargeWhen(ChargeCondition chargeWhen) {
        this.chargeWhen = chargeWhen;
        return this;
    }

    /** @param skipIf the limit does not apply when true; may be null */
    public RateLimitOperationBuilder skipIf(ConditionExpression skipIf) {
        this.skipIf = skipIf;
        return this;
    }

    /** @param fallback called instead of throwing on rejection; may be null */
    public RateLimitOperationBuilder fallback(FallbackMethod fallback) {
        this.fallback = fallback;
        return this;
    }

    /** @param cost computes the permits of each call instead of {@link #permits(long)}; may be null */
    public RateLimitOperationBuilder cost(ValueExpression cost) {
        this.cost = cost;
        return this;
    }

    /** @param shadow record decisions without ever rejecting; false unless set */
    public RateLimitOperationBuilder shadow(boolean shadow) {
        this.shadow = shadow;
        return this;
    }

    /** @param tiers the operations of the tiers, picked per call; may be null */
    public RateLimitOperationBuilder tiers(Tiers tiers) {
        this.tiers = tiers;
        return this;
    }

    /**
     * @param callerKey how the callers of a limit keyed outside a method are told apart, for resets and reads by
     *        key; {@code null} (the default) for an annotated limit, whose {@link #key} says it
     */
    public RateLimitOperationBuilder callerKey(CallerKey callerKey) {
        this.callerKey = callerKey;
        return this;
    }

    public RateLimitOperation build() {
        return new RateLimitOperation(this);
    }
}
