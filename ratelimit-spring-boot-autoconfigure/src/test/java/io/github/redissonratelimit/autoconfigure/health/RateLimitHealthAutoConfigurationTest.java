package io.github.redissonratelimit.autoconfigure.health;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.springframework.boot.actuate.autoconfigure.health.HealthContributorAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.health.HealthEndpointAutoConfiguration;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthContributorRegistry;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.util.ClassUtils;

import io.github.redissonratelimit.autoconfigure.NoRedis;
import io.github.redissonratelimit.autoconfigure.RateLimitAutoConfiguration;

/** When the {@code ratelimit} health indicator exists; no Redis. What it reports is in {@link RateLimitHealthIndicatorTest}. */
class RateLimitHealthAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class,
                    RateLimitHealthAutoConfiguration.class))
            .withBean(RedissonClient.class, NoRedis::redissonClient);

    @Test
    void theIndicatorAndItsLatencyWindowExistWhenActuatorIsPresent() {
        runner.run(context -> {
            assertThat(context).hasSingleBean(RateLimitHealthIndicator.class).hasSingleBean(RecentDecisionLatency.class);
            assertThat(context).hasBean(RateLimitHealthAutoConfiguration.HEALTH_INDICATOR);
        });
    }

    @Test
    void actuatorKnowsItAsRatelimit() {
        runner.withConfiguration(AutoConfigurations.of(HealthContributorAutoConfiguration.class,
                HealthEndpointAutoConfiguration.class)).run(context -> {
                    assertThat(context.getBean(HealthContributorRegistry.class).getContributor("ratelimit"))
                            .isSameAs(context.getBean(RateLimitHealthIndicator.class));
                });
    }

    @Test
    void noIndicatorWithoutActuatorOrWithoutRateLimiting() {
        runner.withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate")).run(context ->
                assertThat(context).hasNotFailed().doesNotHaveBean(RateLimitHealthIndicator.class)
                        .doesNotHaveBean(RecentDecisionLatency.class));
        runner.withPropertyValues("ratelimit.enabled=false").run(context ->
                assertThat(context).hasNotFailed().doesNotHaveBean(RateLimitHealthIndicator.class));
    }

    @Test
    void followsActuatorsEnabledProperties() {
        runner.withPropertyValues("management.health.ratelimit.enabled=false").run(context ->
                assertThat(context).hasNotFailed().doesNotHaveBean(RateLimitHealthIndicator.class));
        runner.withPropertyValues("management.health.defaults.enabled=false").run(context ->
                assertThat(context).hasNotFailed().doesNotHaveBean(RateLimitHealthIndicator.class));
        runner.withPropertyValues("management.health.defaults.enabled=false", "management.health.ratelimit.enabled=true")
                .run(context -> assertThat(context).hasSingleBean(RateLimitHealthIndicator.class));
    }

    /**
     * A Boot 3.5 application, which has no {@code spring-boot-health} (this module's tests run without it, as the
     * Boot 4 module is only compile-only here): the Boot 4 auto-configuration backs off, the Boot 3 one applies,
     * and without Actuator neither does; the context starts either way.
     */
    @Test
    void onBoot3TheBoot4IndicatorBacksOff() {
        ApplicationContextRunner both = runner.withConfiguration(
                AutoConfigurations.of(RateLimitHealthContributorAutoConfiguration.class));
        assertThat(ClassUtils.isPresent(RateLimitHealthContributorAutoConfiguration.BOOT4_HEALTH_INDICATOR, null))
                .as("spring-boot-health is not on this module's test class path").isFalse();
        // RateLimitHealthContributor itself cannot even be loaded here: its interface is missing
        both.run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(RateLimitHealthIndicator.class)
                    .hasSingleBean(RateLimitHealth.class);
            assertThat(context.getBean(RateLimitHealthAutoConfiguration.HEALTH_INDICATOR))
                    .isInstanceOf(RateLimitHealthIndicator.class);
        });
        both.withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate",
                "org.springframework.boot.health")).run(context -> assertThat(context).hasNotFailed()
                        .doesNotHaveBean(RateLimitHealthIndicator.class).doesNotHaveBean(RateLimitHealth.class)
                        .doesNotHaveBean(RecentDecisionLatency.class));
    }

    @Test
    void anIndicatorOfTheApplicationsOwnUnderItsNameReplacesIt() {
        HealthIndicator own = () -> Health.up().withDetail("own", true).build();
        runner.withBean(RateLimitHealthAutoConfiguration.HEALTH_INDICATOR, HealthIndicator.class, () -> own)
                .run(context -> {
                    assertThat(context).doesNotHaveBean(RateLimitHealthIndicator.class);
                    assertThat(context.getBean(RateLimitHealthAutoConfiguration.HEALTH_INDICATOR)).isSameAs(own);
                });
    }
}
