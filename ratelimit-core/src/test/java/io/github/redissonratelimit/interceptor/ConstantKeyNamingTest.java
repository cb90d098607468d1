package io.github.redissonratelimit.interceptor;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.springframework.aop.framework.ProxyFactory;

import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.key.KeyExpressionParser;
import io.github.redissonratelimit.limiter.AcquireRequest;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.operation.AnnotationRateLimitOperationSource;

/**
 * A limit whose key is the same for every call (no key, or a key of text alone) is named once; a key that depends on
 * the call is named per call; either way each call asks the limiter its naming gives. Pure logic: a backend that
 * grants every call and counts how often it names each key.
 */
class ConstantKeyNamingTest {

    private static final LimiterNaming NAMING = new LimiterNaming("names:", 200);

    private final Map<String, AtomicInteger> named = new ConcurrentHashMap<>();
    private final List<String> asked = new CopyOnWriteArrayList<>();

    private final RateLimitBackend counting = new RateLimitBackend() {
        @Override
        public CompletionStage<Decision> acquire(AcquireRequest request) {
            asked.add(request.limiterName());
            return CompletableFuture.completedFuture(Decision.allow());
        }

        @Override
        public CompletionStage<Void> release(AcquireRequest request, Decision granted) {
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public String limiterName(String logicalKey) {
            named.computeIfAbsent(logicalKey, key -> new AtomicInteger()).incrementAndGet();
            return NAMING.limiterName(logicalKey);
        }
    };

    @Test
    void aConstantKeyIsNamedOnceAndAKeyOfTheCallPerCall() {
        Service service = service();
        for (int i = 0; i < 5; i++) {
            service.global();
            service.checkout();
            service.user("u" + (i % 2));
        }

        assertThat(asked).filteredOn(name -> name.equals(NAMING.limiterName("global"))).hasSize(5);
        assertThat(asked).filteredOn(name -> name.equals(NAMING.limiterName("checkout {eu}"))).hasSize(5);
        assertThat(asked).filteredOn(name -> name.equals(NAMING.limiterName("user:u0"))).hasSize(3);
        assertThat(asked).filteredOn(name -> name.equals(NAMING.limiterName("user:u1"))).hasSize(2);
        assertThat(asked).hasSize(15);
        assertThat(named.get("global")).hasValue(1);
        assertThat(named.get("checkout {eu}")).hasValue(1);
        assertThat(named.get("user:u0")).hasValue(3);
        assertThat(named.get("user:u1")).hasValue(2);
    }

    private Service service() {
        RateLimitInterceptor interceptor = new RateLimitInterceptor(
                new AnnotationRateLimitOperationSource(new KeyExpressionParser()), counting);
        ProxyFactory factory = new ProxyFactory(new Service());
        factory.setProxyTargetClass(true);
        factory.addAdvice(interceptor);
        return (Service) factory.getProxy();
    }

    static class Service {

        @RateLimit(name = "global", rate = 1000, window = "1s")
        public void global() {
        }

        @RateLimit(key = "'checkout {eu}'", rate = 1000, window = "1s")
        public void checkout() {
        }

        @RateLimit(key = "'user:' + #user", rate = 1000, window = "1s")
        public void user(String user) {
        }
    }
}
