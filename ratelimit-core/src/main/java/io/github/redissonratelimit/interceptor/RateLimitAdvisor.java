package io.github.redissonratelimit.interceptor;

import java.lang.reflect.Method;
import java.util.function.Supplier;

import org.aopalliance.aop.Advice;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.ClassFilter;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;

import io.github.redissonratelimit.operation.RateLimitOperationSource;

/**
 * Binds the {@link RateLimitInterceptor} to every method that has a rate limit. The interceptor is
 * obtained at the first call of a limited method, not when the advisor is asked for its advice: auto-proxy
 * creators ask for it while post-processors are still being set up, and during AOT processing, where
 * creating the interceptor would create (and connect) the Redis client at build time.
 */
public class RateLimitAdvisor extends AbstractPointcutAdvisor {

    private final transient Pointcut pointcut;
    private final transient Advice advice;

    public RateLimitAdvisor(RateLimitOperationSource operationSource,
            Supplier<? extends MethodInterceptor> interceptorSupplier) {
        this.pointcut = new RateLimitPointcut(operationSource);
        this.advice = new DeferredInterceptor(interceptorSupplier);
    }

    @Override
    public Pointcut getPointcut() {
        return pointcut;
    }

    @Override
    public Advice getAdvice() {
        return advice;
    }

    private static final class DeferredInterceptor implements MethodInterceptor {

        private final Supplier<? extends MethodInterceptor> supplier;
        private volatile MethodInterceptor interceptor;

        DeferredInterceptor(Supplier<? extends MethodInterceptor> supplier) {
            this.supplier = supplier;
        }

        @Override
        public Object invoke(MethodInvocation invocation) throws Throwable {
            return interceptor().invoke(invocation);
        }

        private MethodInterceptor interceptor() {
            MethodInterceptor current = interceptor;
            if (current == null) {
                synchronized (this) {
                    current = interceptor;
                    if (current == null) {
                        current = supplier.get();
                        interceptor = current;
                    }
                }
            }
            return current;
        }

        @Override
        public String toString() {
            MethodInterceptor current = interceptor;
            return "RateLimitAdvisor.DeferredInterceptor[" + (current == null ? "not resolved yet" : current) + "]";
        }
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
