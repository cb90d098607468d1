package io.github.redissonratelimit.autoconfigure.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.github.redissonratelimit.local.LocalOutagePolicy;
import io.github.redissonratelimit.annotation.BackendErrorPolicy;
import io.github.redissonratelimit.autoconfigure.NoRedis;
import io.github.redissonratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.redissonratelimit.autoconfigure.RateLimitBackendDecorator;
import io.github.redissonratelimit.autoconfigure.ResilienceDecorator;
import io.github.redissonratelimit.autoconfigure.TestBackends;
import io.github.redissonratelimit.limiter.LocalRejectionCache;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.resilience.ResilientRateLimitBackend;

/**
 * How the health indicator finds the circuit breaker: the resilience decorator keeps the circuits it made, nothing
 * looks through the composed backend; no Redis, nothing is decided.
 */
class RateLimitHealthBackendTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class))
            .withBean(RedissonClient.class, NoRedis::redissonClient);

    @Test
    void findsTheBreakerBehindTheLibrarysDecorators() {
        runner.run(context -> {
            RateLimitBackend backend = context.getBean(RateLimitBackend.class);
            assertThat(context.getBean(ResilienceDecorator.class).circuits())
                    .isSameAs(TestBackends.layer(backend, LocalRejectionCache.class).getDelegate())
                    .isInstanceOf(ResilientRateLimitBackend.class);
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class HidingDecorator {

        @Bean
        RateLimitBackendDecorator hiding() {
            return TestBackends::wrapping;
        }
    }

    @Test
    void findsItBehindADecoratorOfAnotherModuleThatSaysNothingOfWhatItWraps() {
        runner.withUserConfiguration(HidingDecorator.class).run(context -> {
            RateLimitBackend backend = context.getBean(RateLimitBackend.class);
            assertThat(TestBackends.wrappedBy(backend)).isInstanceOf(LocalOutagePolicy.class);
            assertThat(context.getBean(ResilienceDecorator.class).circuits())
                    .isSameAs(TestBackends.layer(backend, LocalRejectionCache.class).getDelegate());
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class NoResilience {

        @Bean(RateLimitAutoConfiguration.RESILIENCE_DECORATOR)
        RateLimitBackendDecorator noResilience() {
            return backend -> backend;
        }
    }

    @Test
    void noneWhenTheBackendHasNoBreaker() {
        runner.withUserConfiguration(NoResilience.class).run(context -> {
            context.getBean(RateLimitBackend.class);
            assertThat(context).doesNotHaveBean(ResilienceDecorator.class);
        });
        runner.withBean(RateLimitBackend.class, TestBackends::unused).run(context -> {
            context.getBean(RateLimitBackend.class);
            assertThat(context.getBean(ResilienceDecorator.class).circuits())
                    .as("an application's own backend: nothing composed").isNull();
        });
    }

    @Test
    void theReportSaysNoneWithoutCircuits() {
        RateLimitHealth health = new RateLimitHealth(() -> null, () -> null, BackendErrorPolicy.ALLOW,
                new RecentDecisionLatency(16, Duration.ofMinutes(1)), Duration.ofSeconds(1));

        RateLimitHealth.Report report = health.report();

        assertThat(report.degraded()).isFalse();
        assertThat(report.details()).containsEntry("circuit", "none").doesNotContainKey("backendTimeout");
    }
}
