package io.github.redissonratelimit.autoconfigure.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Proxy;
import java.time.Duration;

import org.junit.jupiter.api.Test;

import io.github.redissonratelimit.autoconfigure.TestBackends;
import io.github.redissonratelimit.limiter.DelegatingRateLimitBackend;
import io.github.redissonratelimit.limiter.LocalRejectionCache;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.resilience.ResilientRateLimitBackend;

/** How the health indicator finds the circuit breaker in a composed backend; no Redis, nothing is decided. */
class RateLimitHealthBackendTest {

    private final ResilientRateLimitBackend resilient = new ResilientRateLimitBackend(TestBackends.unused(),
            Duration.ofMillis(100), 5, Duration.ofSeconds(1));

    @Test
    void findsTheBreakerBehindTheLibrarysDecorators() {
        assertThat(RateLimitHealth.resilience(resilient)).isSameAs(resilient);
        assertThat(RateLimitHealth.resilience(new LocalRejectionCache(resilient, 10))).isSameAs(resilient);
    }

    @Test
    void findsItBehindADecoratorOfAnotherModuleThatSaysWhatItWraps() {
        assertThat(RateLimitHealth.resilience(new LocalRejectionCache(conventional(resilient), 10)))
                .isSameAs(resilient);
    }

    @Test
    void noneWhenTheBackendHasNoBreakerOrHidesIt() {
        assertThat(RateLimitHealth.resilience(TestBackends.unused())).isNull();
        assertThat(RateLimitHealth.resilience(TestBackends.wrapping(resilient))).isNull();
    }

    /**
     * A decorator of another module: a {@link DelegatingRateLimitBackend}, nothing else known about it (a proxy, so
     * that it holds whatever shape {@link RateLimitBackend}'s methods have).
     */
    private static RateLimitBackend conventional(RateLimitBackend delegate) {
        return (RateLimitBackend) Proxy.newProxyInstance(RateLimitHealthBackendTest.class.getClassLoader(),
                new Class<?>[] { Delegating.class }, (proxy, method, args) -> {
                    if (method.getName().equals("getDelegate")) {
                        return delegate;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }

    public interface Delegating extends DelegatingRateLimitBackend {
    }
}
