package io.github.redissonratelimit.interceptor;

import java.lang.reflect.Method;
import java.util.function.Supplier;

import org.aopalliance.aop.Advice;
import org.springframework.aop.ClassFilter;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;

import io.github.redissonratelimit.operation.RateLimitOperationSource;

/**
 * Binds the {@link RateLimitInterceptor} to every method that has a rate limit. The interceptor is
 * obtained lazily, so that declaring the advisor (which happens early, while post-processors are set
 * up) does not create the Redis client with it.
 */
public class RateLimitAdvisor extends AbstractPointcutAdvisor {

    private final transient Pointcut pointcut;
    private final transient Supplier<? extends Advice> adviceSupplier;
    private transient volatile Advice advice;

    public RateLimitAdvisor(RateLimitOperationSource operationSource, Supplier<? extends Advice> adviceSupplier) {
        this.pointcut = new RateLimitPointcut(operationSource);
        this.adviceSupplier = adviceSupplier;
    }

    @Override
    public Pointcut getPointcut() {
        return pointcut;
    }

    @Override
    public Advice getAdvice() {
        Advice current = advice;
        if (current == null) {
            synchronized (this) {
                current = advice;
                if (current == null) {
                    current = adviceSupplier.get();
                    advice = current;
                }
            }
        }
        return current;
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
