package io.github.redissonratelimit.interceptor;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;

import org.aopalliance.intercept.MethodInterceptor;
import org.junit.jupiter.api.Test;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.aop.support.AopUtils;

import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.key.KeyExpressionParser;
import io.github.redissonratelimit.operation.AnnotationRateLimitOperationSource;

class RateLimitAdvisorTest {

    private final AtomicInteger created = new AtomicInteger();
    private final AtomicInteger intercepted = new AtomicInteger();

    private final RateLimitAdvisor advisor = new RateLimitAdvisor(
            new AnnotationRateLimitOperationSource(new KeyExpressionParser()), () -> {
                created.incrementAndGet();
                return (MethodInterceptor) invocation -> {
                    intercepted.incrementAndGet();
                    return invocation.proceed();
                };
            });

    public static class Greeter {
        @RateLimit(rate = 1)
        public String greet(String name) {
            return "hello " + name;
        }

        public String wave() {
            return "wave";
        }
    }

    @Test
    void askingForTheAdviceDoesNotCreateTheInterceptor() {
        assertThat(advisor.getAdvice()).isInstanceOf(MethodInterceptor.class);
        assertThat(advisor.getAdvice()).isSameAs(advisor.getAdvice());
        assertThat(created).hasValue(0);
    }

    @Test
    void theFirstLimitedCallCreatesTheInterceptorOnce() throws Exception {
        ProxyFactory factory = new ProxyFactory(new Greeter());
        factory.setProxyTargetClass(true);
        factory.addAdvisor(advisor);
        Greeter greeter = (Greeter) factory.getProxy();

        assertThat(AopUtils.canApply(advisor, Greeter.class)).isTrue();
        assertThat(greeter.wave()).isEqualTo("wave");
        assertThat(created).hasValue(0);
        assertThat(greeter.greet("ann")).isEqualTo("hello ann");
        assertThat(greeter.greet("ben")).isEqualTo("hello ben");
        assertThat(created).hasValue(1);
        assertThat(intercepted).hasValue(2);
    }
}
