package io.github.redissonratelimit.interceptor;

import java.util.List;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.framework.AopProxyUtils;

import io.github.redissonratelimit.RateLimitBackendUnavailableException;
import io.github.redissonratelimit.RateLimitExceededException;
import io.github.redissonratelimit.annotation.BackendErrorPolicy;
import io.github.redissonratelimit.key.LimiterNaming;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.operation.RateLimitOperation;
import io.github.redissonratelimit.operation.RateLimitOperationSource;

/**
 * Applies the rate limits of a method before it runs: resolves the key, takes the permits and
 * either proceeds or throws {@link RateLimitExceededException}.
 */
public class RateLimitInterceptor implements MethodInterceptor {

    private final RateLimitOperationSource operationSource;
    private final LimiterNaming naming;
    private final RateLimitBackend backend;
    private volatile BackendErrorPolicy defaultBackendErrorPolicy = BackendErrorPolicy.ALLOW;

    public RateLimitInterceptor(RateLimitOperationSource operationSource, LimiterNaming naming,
            RateLimitBackend backend) {
        this.operationSource = operationSource;
        this.naming = naming;
        this.backend = backend;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Class<?> targetClass = target == null ? null : AopProxyUtils.ultimateTargetClass(target);
        List<RateLimitOperation> operations = operationSource.getOperations(invocation.getMethod(), targetClass);
        for (RateLimitOperation operation : operations) {
            String key = operation.resolveKey(target, targetClass, invocation.getArguments());
            String limiterName = naming.limiterName(key);
            Decision decision;
            try {
                decision = backend.tryAcquire(limiterName, operation.spec(), operation.permits());
            }
            catch (RateLimitBackendUnavailableException ex) {
                if (deniesWithoutBackend(operation)) {
                    throw ex;
                }
                continue;
            }
            if (!decision.allowed()) {
                throw new RateLimitExceededException(operation.message(), operation.name(), key, limiterName,
                        operation.spec(), operation.permits(), decision.retryAfter());
            }
        }
        return invocation.proceed();
    }

    /**
     * What limits whose {@code onBackendError} is {@code DEFAULT} do when the backend gives no decision
     * (it throws {@link RateLimitBackendUnavailableException}): {@code ALLOW} (the default) runs the
     * call, {@code DENY} rethrows the exception.
     */
    public void setDefaultBackendErrorPolicy(BackendErrorPolicy policy) {
        if (policy == null || policy == BackendErrorPolicy.DEFAULT) {
            throw new IllegalArgumentException("The default backend error policy must be ALLOW or DENY but was " + policy);
        }
        this.defaultBackendErrorPolicy = policy;
    }

    public BackendErrorPolicy getDefaultBackendErrorPolicy() {
        return defaultBackendErrorPolicy;
    }

    private boolean deniesWithoutBackend(RateLimitOperation operation) {
        BackendErrorPolicy policy = operation.backendErrorPolicy();
        return (policy == BackendErrorPolicy.DEFAULT ? defaultBackendErrorPolicy : policy) == BackendErrorPolicy.DENY;
    }
}
