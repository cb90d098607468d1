package io.github.redissonratelimit.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;

import io.github.redissonratelimit.local.LocalOutagePolicy;
import io.github.redissonratelimit.limiter.WaitingRateLimitBackend;
import io.github.redissonratelimit.lease.LeasingRateLimitBackend;
import io.github.redissonratelimit.annotation.BackendErrorPolicy;
import io.github.redissonratelimit.annotation.RateLimit;
import io.github.redissonratelimit.interceptor.RateLimitAdvisor;
import io.github.redissonratelimit.interceptor.RateLimitInterceptor;
import io.github.redissonratelimit.limiter.Decision;
import io.github.redissonratelimit.limiter.LocalRejectionCache;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.naming.LimiterNaming;
import io.github.redissonratelimit.redis.BackendOptions;
import io.github.redissonratelimit.redis.LimiterClock;
import io.github.redissonratelimit.redis.RedissonRateLimitBackend;
import io.github.redissonratelimit.resilience.ResilientRateLimitBackend;

/**
 * When the auto-configuration applies, what backs off, and how properties reach the beans; no Redis (the
 * {@link RedissonClient} is {@link NoRedis}). What the limits do on Redis is in
 * {@link RateLimitAutoConfigurationRedisTest}.
 */
class RateLimitAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class, AopAutoConfiguration.class));

    public static class Greeter {
        @RateLimit(key = "'greet:' + #name", rate = 2, interval = 60)
        public String greet(String name) {
            return "hello " + name;
        }
    }

    private ApplicationContextRunner withRedisson() {
        return runner.withBean(RedissonClient.class, NoRedis::redissonClient).withBean(Greeter.class);
    }

    @Test
    void limitsAnnotatedBeansWhenARedissonClientExists() {
        withRedisson().run(context -> {
            assertThat(context).hasSingleBean(RateLimitInterceptor.class).hasSingleBean(RateLimitAdvisor.class);
            assertThat(AopUtils.isAopProxy(context.getBean(Greeter.class))).isTrue();
        });
    }

    @Test
    void backsOffWithoutARedissonClientBean() {
        runner.withBean(Greeter.class).run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(RateLimitInterceptor.class)
                    .doesNotHaveBean(RateLimitAdvisor.class);
            assertThat(AopUtils.isAopProxy(context.getBean(Greeter.class))).isFalse();
        });
    }

    @Test
    void backsOffWithoutRedissonOnTheClasspath() {
        runner.withClassLoader(new FilteredClassLoader(RedissonClient.class)).run(context ->
                assertThat(context).hasNotFailed().doesNotHaveBean(RateLimitInterceptor.class));
    }

    @Test
    void backsOffWhenDisabled() {
        withRedisson().withPropertyValues("ratelimit.enabled=false").run(context -> {
            assertThat(context).doesNotHaveBean(RateLimitInterceptor.class).doesNotHaveBean(RateLimitAdvisor.class);
            Greeter greeter = context.getBean(Greeter.class);
            for (int i = 0; i < 5; i++) {
                greeter.greet("ann");
            }
        });
    }

    @Test
    void everyBeanBacksOffForAUserBean() {
        RateLimitBackend alwaysAllow = request -> CompletableFuture.completedFuture(Decision.allow());
        LimiterNaming naming = new LimiterNaming("custom:", 100);
        withRedisson().withBean(RateLimitBackend.class, () -> alwaysAllow)
                .withBean(LimiterNaming.class, () -> naming)
                .run(context -> {
                    assertThat(context.getBean(RateLimitBackend.class)).isSameAs(alwaysAllow);
                    assertThat(context.getBean(LimiterNaming.class)).isSameAs(naming);
                    Greeter greeter = context.getBean(Greeter.class);
                    for (int i = 0; i < 5; i++) {
                        greeter.greet("dan");
                    }
                });
    }

    @Test
    void bindsProperties() {
        withRedisson().withPropertyValues("ratelimit.max-key-length=64", "ratelimit.order=42",
                "ratelimit.known-limiters=10").run(context -> {
                    RateLimitProperties properties = context.getBean(RateLimitProperties.class);
                    assertThat(properties.getMaxKeyLength()).isEqualTo(64);
                    assertThat(context.getBean(RateLimitAdvisor.class).getOrder()).isEqualTo(42);
                    assertThat(properties.getKnownLimiters()).isEqualTo(10);
                });
    }

    @Test
    void badPropertiesFailStartupNamingTheProperty() {
        withRedisson().withPropertyValues("ratelimit.key-prefix=app:{x}:").run(context ->
                assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("ratelimit.key-prefix must not contain '{' or '}'"));
        withRedisson().withPropertyValues("ratelimit.max-key-length=10").run(context ->
                assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("ratelimit.max-key-length must be at least 51"));
    }

    @Test
    void rejectsFloodsFromMemoryByDefault() {
        withRedisson().run(context -> assertThat(TestBackends.layerTypes(context.getBean(RateLimitBackend.class)))
                .containsExactly(LocalOutagePolicy.class, WaitingRateLimitBackend.class, LeasingRateLimitBackend.class,
                        LocalRejectionCache.class, ResilientRateLimitBackend.class, RedissonRateLimitBackend.class));
    }

    /** Sees what it wraps, right around the Redisson backend. */
    @Configuration(proxyBeanMethods = false)
    static class Innermost {

        RateLimitBackend wrapped;

        @Bean
        @Order(RateLimitBackendDecorator.RESILIENCE_ORDER - 1)
        RateLimitBackendDecorator innermost() {
            return backend -> {
                wrapped = backend;
                return backend;
            };
        }
    }

    @Test
    void localRejectionCanBeTurnedOff() {
        withRedisson().withUserConfiguration(Innermost.class).withPropertyValues("ratelimit.local-rejection.enabled=false")
                .run(context -> {
                    assertThat(TestBackends.layerTypes(context.getBean(RateLimitBackend.class))).containsExactly(
                            LocalOutagePolicy.class, WaitingRateLimitBackend.class, LeasingRateLimitBackend.class,
                            ResilientRateLimitBackend.class, RedissonRateLimitBackend.class);
                    assertThat(context.getBean(Innermost.class).wrapped).isInstanceOf(RedissonRateLimitBackend.class);
                });
        withRedisson().withPropertyValues("ratelimit.local-rejection.max-entries=0").run(context ->
                assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("ratelimit.local-rejection.max-entries must be at least 1"));
    }

    @Test
    void grantsAreStampedWithRedissClockUnlessTheClientsIsAskedFor() {
        withRedisson().run(context -> assertThat(options(context).clock()).isEqualTo(LimiterClock.REDIS));
        withRedisson().withPropertyValues("ratelimit.clock=client")
                .run(context -> assertThat(options(context).clock()).isEqualTo(LimiterClock.CLIENT));
        withRedisson().withPropertyValues("ratelimit.clock=sundial").run(context ->
                assertThat(context).hasFailed().getFailure().hasStackTraceContaining("ratelimit.clock"));
    }

    @Test
    void pipeliningIsOnByDefaultAndConfigurable() {
        withRedisson().run(context -> assertThat(options(context))
                .extracting(BackendOptions::pipelineInFlight, BackendOptions::pipelineBatchSize).containsExactly(3, 64));
        withRedisson().withPropertyValues("ratelimit.pipelining.max-in-flight=4", "ratelimit.pipelining.max-batch-size=16")
                .run(context -> assertThat(options(context))
                        .extracting(BackendOptions::pipelineInFlight, BackendOptions::pipelineBatchSize)
                        .containsExactly(4, 16));
        withRedisson().withPropertyValues("ratelimit.pipelining.enabled=false").run(context ->
                assertThat(options(context).pipelineInFlight()).as("every decision sent at once").isZero());
        withRedisson().withPropertyValues("ratelimit.pipelining.max-in-flight=-1").run(context ->
                assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("ratelimit.pipelining.max-in-flight must be 0 (no pipelining) or more but was -1"));
        withRedisson().withPropertyValues("ratelimit.pipelining.max-batch-size=0").run(context ->
                assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("ratelimit.pipelining.max-batch-size must be at least 1"));
    }

    @Test
    void maxInFlightZeroTurnsPipeliningOffAsInTheBackendOptions() {
        withRedisson().withPropertyValues("ratelimit.pipelining.max-in-flight=0").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(options(context).pipelineInFlight()).as("every decision sent at once").isZero();
        });
    }

    /**
     * What {@code ratelimit.on-backend-error}, {@code backend-timeout} and {@code circuit-breaker.*} default to: since
     * the outage policy {@code local} exists, it is the default (the issue on degraded operation asks for it).
     */
    @Test
    void defaultsLimitLocallyWithinOneHundredMilliseconds() {
        withRedisson().run(context -> {
            // the outage policy outermost, then the wait, the leases and the flood shortcut (both cost no Redis call),
            // and the deadline and circuit breaker around Redis
            RateLimitBackend stack = context.getBean(RateLimitBackend.class);
            assertThat(TestBackends.layerTypes(stack)).containsExactly(LocalOutagePolicy.class,
                    WaitingRateLimitBackend.class, LeasingRateLimitBackend.class, LocalRejectionCache.class,
                    ResilientRateLimitBackend.class, RedissonRateLimitBackend.class);
            assertThat(TestBackends.layer(stack, ResilientRateLimitBackend.class).getTimeout())
                    .isEqualTo(Duration.ofMillis(100));
            assertThat(context.getBean(RateLimitInterceptor.class).getDefaultBackendErrorPolicy())
                    .isEqualTo(BackendErrorPolicy.LOCAL);
            RateLimitProperties properties = context.getBean(RateLimitProperties.class);
            assertThat(properties.getDenyStatus()).isEqualTo(503);
            assertThat(properties.getCircuitBreaker().getFailureThreshold()).isEqualTo(5);
            assertThat(properties.getCircuitBreaker().getOpenDuration()).isEqualTo(Duration.ofSeconds(1));
        });
    }

    @Test
    void badOutageValuesFailStartupNamingTheProperty() {
        assertStartupFails("ratelimit.on-backend-error=default",
                "ratelimit.on-backend-error must be 'local', 'allow' or 'deny'");
        assertStartupFails("ratelimit.local-fallback.instances=-1", "ratelimit.local-fallback.instances must be 0");
        assertStartupFails("ratelimit.local-fallback.heartbeat-interval=10ms",
                "ratelimit.local-fallback.heartbeat-interval must be at least 100ms");
        assertStartupFails("ratelimit.local-fallback.max-limiters=0",
                "ratelimit.local-fallback.max-limiters must be at least 1");
        assertStartupFails("ratelimit.backend-timeout=0ms", "ratelimit.backend-timeout must be positive");
        assertStartupFails("ratelimit.deny-status=200", "ratelimit.deny-status must be an HTTP error status");
        assertStartupFails("ratelimit.circuit-breaker.failure-threshold=0",
                "ratelimit.circuit-breaker.failure-threshold must be at least 1");
        assertStartupFails("ratelimit.circuit-breaker.open-duration=-1s",
                "ratelimit.circuit-breaker.open-duration must be positive");
    }

    private void assertStartupFails(String property, String message) {
        withRedisson().withPropertyValues(property).run(context ->
                assertThat(context).hasFailed().getFailure().hasStackTraceContaining(message));
    }

    private static BackendOptions options(ApplicationContext context) {
        return context.getBean(RateLimitAutoConfiguration.REDISSON_BACKEND, RedissonRateLimitBackend.class).getOptions();
    }
}
