package io.github.redissonratelimit.operation;

import java.util.Objects;

import io.github.redissonratelimit.annotation.BackendErrorPolicy;
import io.github.redissonratelimit.key.KeyExpression;
import io.github.redissonratelimit.limiter.LimitSpec;

/**
 * One {@code @RateLimit} as it applies to one method, validated and with its key expression parsed.
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
        this.backendErrorPolicy = Objects.requireNonNull(backendErrorPolicy, "backendErrorPolicy");
        this.method = Objects.requireNonNull(method, "method");
        this.name = Objects.requireNonNull(name, "name");
        this.key = key;
        this.spec = Objects.requireNonNull(spec, "spec");
        this.permits = permits;
        this.message = Objects.requireNonNull(message, "message");
        this.policyName = policyName;
        this.source = Objects.requireNonNull(source, "source");
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

    /** The logical key of one call: the evaluated expression, or {@link #name()} without one. */
    public String resolveKey(Object target, Class<?> targetClass, Object[] args) {
        return key == null ? name : key.evaluate(target, targetClass, args);
    }

    @Override
    public String toString() {
        return "@RateLimit(" + (key == null ? "name=" + name : "key=" + key.source()) + ", " + spec
                + (permits == 1 ? "" : ", permits=" + permits) + ") on " + method;
    }
}
