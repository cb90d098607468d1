package io.github.redissonratelimit.autoconfigure.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.redissonratelimit.autoconfigure.NoRedis;
import io.github.redissonratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.redissonratelimit.interceptor.RateLimitInterceptor;
import io.github.redissonratelimit.metrics.RateLimitMetrics;

/** When the meters exist; no Redis (what they count is in {@link RateLimitMetricsRedisTest}). */
class RateLimitMetricsAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class,
                    RateLimitMetricsAutoConfiguration.class))
            .withBean(RedissonClient.class, NoRedis::redissonClient);

    @Test
    void decisionAndOutageMetersWithTheApplicationsRegistry() {
        runner.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
                SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class))
                .run(context -> assertThat(context).hasSingleBean(RateLimitMetrics.class)
                        .hasSingleBean(RateLimitBackendMetrics.class));
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new).run(context ->
                assertThat(context).hasSingleBean(RateLimitMetrics.class).hasSingleBean(RateLimitBackendMetrics.class));
    }

    @Test
    void aNearLimitShareOutsideZeroToOneFailsStartupNamingTheProperty() {
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withPropertyValues("ratelimit.metrics.near-limit-share=80")
                .run(context -> assertThat(context).hasFailed().getFailure().hasStackTraceContaining(
                        "ratelimit.metrics.near-limit-share must be between 0 (no near-limit meter) and 1 but was 80.0; "
                                + "0.2 counts the calls that reach 80 % of a limit"));
    }

    @Test
    void backsOffWithoutARegistry() {
        runner.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(RateLimitMetrics.class)
                .doesNotHaveBean(RateLimitBackendMetrics.class).hasSingleBean(RateLimitInterceptor.class));
    }

    @Test
    void theContextStartsWithoutMicrometer() {
        runner.withClassLoader(new FilteredClassLoader(MeterRegistry.class)).run(context ->
                assertThat(context).hasNotFailed().doesNotHaveBean(RateLimitMetrics.class)
                        .doesNotHaveBean(RateLimitBackendMetrics.class).hasSingleBean(RateLimitInterceptor.class));
        runner.withClassLoader(new FilteredClassLoader("io.micrometer")).run(context ->
                assertThat(context).hasNotFailed().doesNotHaveBean(RateLimitMetrics.class)
                        .doesNotHaveBean(RateLimitBackendMetrics.class).hasSingleBean(RateLimitInterceptor.class));
    }

    @Test
    void backsOffForTheApplicationsMeters() {
        RateLimitMetrics own = new RateLimitMetrics(new SimpleMeterRegistry());
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new).withBean(RateLimitMetrics.class, () -> own)
                .run(context -> assertThat(context.getBean(RateLimitMetrics.class)).isSameAs(own));
    }
}
