package io.github.redissonratelimit.interceptor;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.aop.support.AopUtils;

import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.key.KeyExpressionParser;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.operation.AnnotationRateLimitOperationSource;

class RateLimitAdvisorTest {

    private final AtomicInteger created = new AtomicInteger();
    private final AtomicInteger intercepted = new AtomicInteger();

    private final AnnotationRateLimitOperationSource operations =
            new AnnotationRateLimitOperationSource(new KeyExpressionParser());

    /** The backend (and with it the Redis client) is what must not be created before the first limited call. */
    private final RateLimitAdvisor advisor = new RateLimitAdvisor(operations, new RateLimitInterceptor(operations, () -> {
                created.incrementAndGet();
                return request -> {
                    intercepted.incrementAndGet();
                    return CompletableFuture.completedFuture(Decision.allow());
                };
            }));

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
    void askingForTheAdviceDoesNotCreateTheBackend() {
        assertThat(advisor.getAdvice()).isInstanceOf(RateLimitInterceptor.class);
        assertThat(advisor.getAdvice()).isSameAs(advisor.getAdvice());
        assertThat(created).hasValue(0);
    }

    @Test
    void theFirstLimitedCallCreatesTheBackendOnce() throws Exception {
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
