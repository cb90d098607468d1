package io.github.redissonratelimit.interceptor;

import java.util.List;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.framework.AopProxyUtils;

import io.github.redissonratelimit.RateLimitExceededException;
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
            Decision decision = backend.tryAcquire(limiterName, operation.spec(), operation.permits());
            if (!decision.allowed()) {
                throw new RateLimitExceededException(operation.message(), operation.name(), key, limiterName,
                        operation.spec(), operation.permits(), decision.retryAfter());
            }
        }
        return invocation.proceed();
    }
}
