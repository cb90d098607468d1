package io.github.redissonratelimit.operation;

import java.time.Duration;
import java.util.Objects;

import io.github.redissonratelimit.RateLimitKeyException;
import io.github.redissonratelimit.annotation.BackendErrorPolicy;
import io.github.redissonratelimit.key.ConditionExpression;
import io.github.redissonratelimit.key.KeyExpression;
import io.github.redissonratelimit.limiter.LimitSpec;

/**
 * One {@code @RateLimit} as it applies to one method, validated and with its expressions parsed.
 * Built once per method by a {@link RateLimitOperationSource}.
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
    private final ConditionExpression condition;
    private final ConditionExpression skipIf;
    private final FallbackMethod fallback;

    public RateLimitOperation(String method, String name, KeyExpression key, LimitSpec spec, long permits,
            String message) {
        this(method, name, key, spec, permits, message, null, "annotation");
    }

    public RateLimitOperation(String method, String name, KeyExpression key, LimitSpec spec, long permits,
            String message, String policyName, String source) {
        this(method, name, key, spec, permits, message, policyName, source, BackendErrorPolicy.DEFAULT);
    }

    public RateLimitOperation(String method, String name, KeyExpression key, LimitSpec spec, long permits,
            String message, String policyName, String source, BackendErrorPolicy backendErrorPolicy) {
        this(method, name, key, spec, permits, message, policyName, source, backendErrorPolicy, name, Duration.ZERO,
                null, null, null);
    }

    /**
     * @param displayName the short name clients see (HTTP headers)
     * @param waitTimeout how long a call may wait for its permits; zero rejects at once
     * @param condition the limit applies only when true; may be null
     * @param skipIf the limit does not apply when true; may be null
     * @param fallback called instead of throwing on rejection; may be null
     */
    public RateLimitOperation(String method, String name, KeyExpression key, LimitSpec spec, long permits,
            String message, String policyName, String source, BackendErrorPolicy backendErrorPolicy,
            String displayName, Duration waitTimeout, ConditionExpression condition, ConditionExpression skipIf,
            FallbackMethod fallback) {
        this.backendErrorPolicy = Objects.requireNonNull(backendErrorPolicy, "backendErrorPolicy");
        this.method = Objects.requireNonNull(method, "method");
        this.name = Objects.requireNonNull(name, "name");
        this.key = key;
        this.spec = Objects.requireNonNull(spec, "spec");
        this.permits = permits;
        this.message = Objects.requireNonNull(message, "message");
        this.policyName = policyName;
        this.source = Objects.requireNonNull(source, "source");
        this.displayName = Objects.requireNonNull(displayName, "displayName");
        this.waitTimeout = Objects.requireNonNull(waitTimeout, "waitTimeout");
        this.condition = condition;
        this.skipIf = skipIf;
        this.fallback = fallback;
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

    public LimitSpec spec() {
        return spec;
    }

    public long permits() {
        return permits;
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

    /** The {@code condition} expression, or {@code null}. */
    public ConditionExpression condition() {
        return condition;
    }

    /** The {@code skipIf} expression, or {@code null}. */
    public ConditionExpression skipIf() {
        return skipIf;
    }

    /** The method called instead of throwing on rejection, or {@code null}. */
    public FallbackMethod fallback() {
        return fallback;
    }

    /** Whether the limit applies to one call: {@code condition} holds and {@code skipIf} does not. */
    public boolean appliesTo(Object target, Class<?> targetClass, Object[] args) {
        return (condition == null || condition.isTrue(target, targetClass, args))
                && (skipIf == null || !skipIf.isTrue(target, targetClass, args));
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

    @Override
    public String toString() {
        return "@RateLimit(" + (key == null ? "name=" + name : "key=" + key.source()) + ", " + spec
                + (permits == 1 ? "" : ", permits=" + permits)
                + (waitTimeout.isZero() ? "" : ", waitTimeout=" + waitTimeout)
                + (fallback == null ? "" : ", fallback=" + fallback) + ") on " + method;
    }
}
