package io.github.redissonratelimit.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.springframework.beans.factory.support.AbstractBeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;

import io.github.redissonratelimit.lease.LeasingRateLimitBackend;
import io.github.redissonratelimit.limiter.LocalRejectionCache;
import io.github.redissonratelimit.limiter.RateLimitBackend;
import io.github.redissonratelimit.limiter.WaitingRateLimitBackend;
import io.github.redissonratelimit.local.LocalFallback;
import io.github.redissonratelimit.local.LocalOutagePolicy;
import io.github.redissonratelimit.redis.RedissonRateLimitBackend;
import io.github.redissonratelimit.resilience.ResilientRateLimitBackend;

/**
 * The backend is the Redisson backend bean wrapped by the {@link RateLimitBackendDecorator} beans in their order:
 * the deadline and circuit breaker right around Redis, the local rejection cache around them, then the leases, then the
 * wait, then the local outage policy outermost; a decorator of the application where its order puts it. No Redis: only the wiring
 * is looked at.
 */
class RateLimitBackendCompositionTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class))
            .withBean(RedissonClient.class, NoRedis::redissonClient);

    /** Sees what it wraps, and wraps nothing. */
    static final class Recorder implements RateLimitBackendDecorator {

        RateLimitBackend wrapped;

        @Override
        public RateLimitBackend decorate(RateLimitBackend backend) {
            wrapped = backend;
            return backend;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Recorders {

        @Bean
        @Order(RateLimitBackendDecorator.RESILIENCE_ORDER - 1)
        Recorder innermost() {
            return new Recorder();
        }

        @Bean
        @Order(RateLimitBackendDecorator.LOCAL_REJECTION_ORDER - 1)
        Recorder between() {
            return new Recorder();
        }

        @Bean
        @Order(RateLimitBackendDecorator.LEASE_ORDER - 1)
        Recorder belowTheLeases() {
            return new Recorder();
        }

        @Bean
        @Order(RateLimitBackendDecorator.WAITING_ORDER - 1)
        Recorder belowTheWait() {
            return new Recorder();
        }

        @Bean
        @Order(RateLimitBackendDecorator.LOCAL_OUTAGE_ORDER - 1)
        Recorder belowTheOutagePolicy() {
            return new Recorder();
        }

        @Bean
        Recorder unordered() {
            return new Recorder();
        }
    }

    private static Recorder recorder(org.springframework.context.ApplicationContext context, String name) {
        return context.getBean(name, Recorder.class);
    }

    @Test
    void theWholeStackInItsOrderAroundRedis() {
        runner.withUserConfiguration(Recorders.class).run(context -> {
            assertThat(context).hasNotFailed().hasBean(RateLimitAutoConfiguration.REDISSON_BACKEND)
                    .hasBean(RateLimitAutoConfiguration.RESILIENCE_DECORATOR)
                    .hasBean(RateLimitAutoConfiguration.LOCAL_REJECTION_DECORATOR)
                    .hasBean(RateLimitAutoConfiguration.LEASE_DECORATOR)
                    .hasBean(RateLimitAutoConfiguration.WAITING_DECORATOR)
                    .hasBean(RateLimitAutoConfiguration.LOCAL_OUTAGE_DECORATOR);
            RateLimitBackend redisson = context.getBean(RateLimitAutoConfiguration.REDISSON_BACKEND, RateLimitBackend.class);
            assertThat(redisson).isInstanceOf(RedissonRateLimitBackend.class);
            assertThat(recorder(context, "innermost").wrapped).isSameAs(redisson);
            assertThat(recorder(context, "between").wrapped).isInstanceOf(ResilientRateLimitBackend.class);
            assertThat(recorder(context, "belowTheLeases").wrapped).isInstanceOf(LocalRejectionCache.class);
            assertThat(recorder(context, "belowTheWait").wrapped).isInstanceOf(LeasingRateLimitBackend.class);
            assertThat(recorder(context, "belowTheOutagePolicy").wrapped).isInstanceOf(WaitingRateLimitBackend.class);
            assertThat(recorder(context, "unordered").wrapped).isInstanceOf(LocalOutagePolicy.class);
            assertThat(((LocalOutagePolicy) recorder(context, "unordered").wrapped).getFallback())
                    .isSameAs(context.getBean(LocalFallback.class));
            // the composed backend is the one RateLimitBackend injected by type: the Redisson backend is no candidate
            assertThat(context.getBean(RateLimitBackend.class)).isSameAs(recorder(context, "unordered").wrapped);
        });
    }

    @Test
    void withoutLocalRejectionTheLeasesWrapTheDeadlineAndBreaker() {
        runner.withUserConfiguration(Recorders.class).withPropertyValues("ratelimit.local-rejection.enabled=false")
                .run(context -> {
                    assertThat(context).doesNotHaveBean(RateLimitAutoConfiguration.LOCAL_REJECTION_DECORATOR);
                    assertThat(recorder(context, "belowTheLeases").wrapped).isInstanceOf(ResilientRateLimitBackend.class);
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnLocalRejection {

        @Bean(RateLimitAutoConfiguration.LOCAL_REJECTION_DECORATOR)
        @Order(RateLimitBackendDecorator.LOCAL_REJECTION_ORDER)
        RateLimitBackendDecorator ownLocalRejection() {
            return TestBackends::wrapping;
        }
    }

    @Test
    void aDecoratorOfTheSameNameReplacesOneAtItsOrder() {
        runner.withUserConfiguration(OwnLocalRejection.class, Recorders.class).run(context -> {
            RateLimitBackend own = recorder(context, "belowTheLeases").wrapped;
            assertThat(TestBackends.wrappedBy(own)).isInstanceOf(ResilientRateLimitBackend.class);
            assertThat(recorder(context, "belowTheWait").wrapped).isInstanceOf(LeasingRateLimitBackend.class);
            assertThat(recorder(context, "belowTheOutagePolicy").wrapped).isInstanceOf(WaitingRateLimitBackend.class);
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
    void aDecoratorOfTheSameNameThatReturnsItsBackendRemovesOne() {
        runner.withUserConfiguration(NoResilience.class, Recorders.class).run(context -> {
            RateLimitBackend redisson = context.getBean(RateLimitAutoConfiguration.REDISSON_BACKEND, RateLimitBackend.class);
            assertThat(recorder(context, "between").wrapped).isSameAs(redisson);
            assertThat(recorder(context, "belowTheLeases").wrapped).isInstanceOf(LocalRejectionCache.class);
        });
    }

    @Test
    void aBackendOfTheRedissonBackendsNameIsTheOneDecorated() {
        RateLimitBackend own = TestBackends.unused();
        runner.withUserConfiguration(Recorders.class)
                .withBean(RateLimitAutoConfiguration.REDISSON_BACKEND, RateLimitBackend.class, () -> own,
                        definition -> ((AbstractBeanDefinition) definition).setDefaultCandidate(false))
                .run(context -> {
                    assertThat(recorder(context, "innermost").wrapped).isSameAs(own);
                    assertThat(context.getBean(RateLimitBackend.class)).isInstanceOf(LocalOutagePolicy.class);
                });
    }

    @Test
    void aRateLimitBackendOfTheApplicationIsUsedUndecorated() {
        RateLimitBackend own = TestBackends.unused();
        runner.withUserConfiguration(Recorders.class).withBean(RateLimitBackend.class, () -> own).run(context -> {
            assertThat(context.getBean(RateLimitBackend.class)).isSameAs(own);
            assertThat(recorder(context, "unordered").wrapped).as("no composition").isNull();
        });
    }
}
