package io.github.redissonratelimit.interceptor;

import java.lang.reflect.Method;

import org.aopalliance.aop.Advice;
import org.aopalliance.intercept.MethodInterceptor;
import org.springframework.aop.ClassFilter;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;

import io.github.redissonratelimit.operation.RateLimitOperationSource;

/**
 * Binds the {@link RateLimitInterceptor} to every method that has a rate limit. The interceptor is cheap to
 * create; it obtains the backend (and with it the Redis client) at the first limited call.
 */
public class RateLimitAdvisor extends AbstractPointcutAdvisor {

    private final transient Pointcut pointcut;
    private final transient Advice advice;

    public RateLimitAdvisor(RateLimitOperationSource operationSource, MethodInterceptor interceptor) {
        this.pointcut = new RateLimitPointcut(operationSource);
        this.advice = interceptor;
    }

    @Override
    public Pointcut getPointcut() {
        return pointcut;
    }

    @Override
    public Advice getAdvice() {
        return advice;
    }

    private static final class RateLimitPointcut extends StaticMethodMatcherPointcut {

        private final RateLimitOperationSource operationSource;

        RateLimitPointcut(RateLimitOperationSource operationSource) {
            this.operationSource = operationSource;
            setClassFilter(new CandidateClassFilter(operationSource));
        }

        @Override
        public boolean matches(Method method, Class<?> targetClass) {
            return !operationSource.getOperations(method, targetClass).isEmpty();
        }
    }

    private record CandidateClassFilter(RateLimitOperationSource operationSource) implements ClassFilter {

        @Override
        public boolean matches(Class<?> clazz) {
            return operationSource.isCandidateClass(clazz);
        }
    }
}
